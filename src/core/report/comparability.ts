// Comparability of one-way delay blocks and the ranking rule (docs/definitions.md#comparability).

import { fmtG } from "../go-compat/fmt.ts";
import { jsonValue } from "./json.ts";
import type { ClockBlock, Comparability, DelaySource, PooledDelayBlock, Report } from "./types.ts";

/** The largest clock uncertainty a ranking allows, ms. */
export const MAX_RANKABLE_UNCERTAINTY_MS = 1;

type WithoutComparability<B> = Omit<B, "uncertaintyMs" | "comparable" | "notComparableReason">;

/**
 * The docs/definitions.md#comparability reason a block is not comparable under this clock;
 * undefined when it is. After the reference tool's rules comes ours: a client near its own ceiling
 * (`clientBound`, the reason text).
 */
function notComparableReason(clock: ClockBlock, clientBound?: string): string | undefined {
  if (clock.method === "none" || clock.method === "") {
    const reason = clock.reason ?? "";
    return reason === "" ? "publisher clock not measured" : `publisher clock not measured: ${reason}`;
  }
  if (clock.uncertaintyMs === undefined) return "clock uncertainty not measured";
  if (clock.uncertaintyMs > MAX_RANKABLE_UNCERTAINTY_MS) {
    return `clock uncertainty ${fmtG(clock.uncertaintyMs)} ms is above the ${MAX_RANKABLE_UNCERTAINTY_MS} ms a ranking allows`;
  }
  if (clock.stepDetected && clock.method !== "monotonic") return "the wall clock stepped during the run";
  return clientBound;
}

/**
 * The docs/definitions.md#comparability fields, in serialisation order, for a block of the given
 * availability.
 */
export function comparabilityOf(available: boolean, clock: ClockBlock, clientBound?: string): Comparability {
  if (!available) return { comparable: false, notComparableReason: "no figure: the block is unavailable" };
  const reason = notComparableReason(clock, clientBound);
  return {
    ...(clock.uncertaintyMs !== undefined ? { uncertaintyMs: clock.uncertaintyMs } : {}),
    comparable: reason === undefined,
    ...(reason !== undefined ? { notComparableReason: reason } : {}),
  };
}

/**
 * Returns the block with uncertaintyMs / comparable / notComparableReason (re)set from the clock,
 * appended after the block's own keys (their serialised position).
 */
export function applyComparability<B extends { available: boolean }>(
  block: B,
  clock: ClockBlock,
  clientBound?: string,
): WithoutComparability<B> & Comparability {
  const { uncertaintyMs: _u, comparable: _c, notComparableReason: _r, ...rest } = block as B & Comparability;
  return { ...rest, ...comparabilityOf(block.available, clock, clientBound) };
}

export type Rankability = { ok: true } | { ok: false; reason: string };

/**
 * The scenario keys that take part in ranking: those that shape the load the server carries or
 * the definitions the figures are measured under — the codec and the clip, the number of viewers, the ramp
 * and its offsets, the hold and warmup, the join timeout, the stall threshold, the excluded
 * first seconds, whether the publisher answers keyframe requests (it sets the join time a
 * server's keyframe handling gives) and when the viewers make them (what a server is asked
 * for) — the ICE keys, which choose the network path the media crosses, and the cohorts, which
 * emulate the viewers' links, simulcast and layerSwitch, which change what the publisher sends and
 * what a server forwards, and churn, which makes viewers leave and join. Keys that only say
 * how the client ran or is named do not: `name`, the endpoint hosts, `bearerEnv`, `metrics`,
 * `workers` (the client's own load is judged by client.ceiling instead) and `receivePath` and
 * `viewerSockets` (held to the same figures by test/e2e/receive-path.test.ts), nor a key this
 * list does not know, such as the reference tool's future ones.
 */
export const RANKED_SCENARIO_KEYS: readonly string[] = [
  "codec",
  "clip",
  "viewers",
  "rampSeconds",
  "holdSeconds",
  "rampOffsetSeed",
  "rampOffsetMaxSeconds",
  "warmupSeconds",
  "joinTimeoutSeconds",
  "stallMs",
  "excludeFirstSeconds",
  "includeLoopback",
  "loopbackOnly",
  "keyframeOnRequest",
  "keyframeRequests",
  "viewerProfile",
  "audio",
  "simulcast",
  "layerSwitch",
  "cohorts",
  "churn",
];

/**
 * A ranked key's value as ranking compares it: a cohort's `referenceViewers` is left out, since
 * reference viewers are not load (docs/definitions.md#reference-viewers).
 */
function rankedValue(key: string, v: unknown): unknown {
  if (key !== "cohorts" || !Array.isArray(v)) return v;
  return v.map((c: unknown) => {
    if (typeof c !== "object" || c === null) return c;
    const { referenceViewers: _, ...rest } = c as Record<string, unknown>;
    return rest;
  });
}

function sourceBlock(r: Report, source: DelaySource): PooledDelayBlock | undefined {
  return r.aggregate.oneWayDelay.find((b) => b.source === source);
}

function clipCodec(r: Report): string {
  return r.publisher?.codec ?? r.scenario.codec ?? "";
}

/**
 * Rankable(A, B, source) of docs/definitions.md#comparability: may the two reports be ranked on
 * this source?
 */
export function rankable(
  a: Report | null | undefined,
  b: Report | null | undefined,
  source: DelaySource,
): Rankability {
  if (!a || !b) return { ok: false, reason: "a report is missing" };
  const named: Array<[string, Report]> = [
    ["A", a],
    ["B", b],
  ];
  const blocks: PooledDelayBlock[] = [];
  for (const [name, r] of named) {
    const block = sourceBlock(r, source);
    if (block === undefined) return { ok: false, reason: `report ${name} has no "${source}" source` };
    blocks.push(block);
  }
  for (const [name, r] of named) {
    if (!r.aggregate.valid)
      return { ok: false, reason: `report ${name} has no verdict: ${r.aggregate.verdict}` };
  }
  for (const [i, [name]] of named.entries()) {
    const block = blocks[i];
    if (block === undefined || block.comparable !== true) {
      const why = block?.notComparableReason ?? "it carries no comparability verdict";
      return { ok: false, reason: `report ${name}'s ${source} figure is not comparable: ${why}` };
    }
  }
  for (const [i, [name]] of named.entries()) {
    const u = blocks[i]?.uncertaintyMs;
    if (u === undefined || !(u <= MAX_RANKABLE_UNCERTAINTY_MS)) {
      return {
        ok: false,
        reason: `report ${name}'s ${source} figure has no clock uncertainty of ${MAX_RANKABLE_UNCERTAINTY_MS} ms or less`,
      };
    }
  }
  const loopA = blocks[0]?.loopFrames ?? 0;
  const loopB = blocks[1]?.loopFrames ?? 0;
  if (clipCodec(a) !== clipCodec(b) || loopA !== loopB) {
    return {
      ok: false,
      reason: `clips differ: ${clipCodec(a)} of ${loopA} frames, ${clipCodec(b)} of ${loopB} frames`,
    };
  }
  // codec and loop length can match while the bytes do not (our clips and the reference's)
  for (const [i, [name]] of named.entries()) {
    if (blocks[i]?.clipHash === undefined) {
      return { ok: false, reason: `report ${name} does not record its clip's identity (clipHash)` };
    }
  }
  if (blocks[0]?.clipHash !== blocks[1]?.clipHash) {
    return { ok: false, reason: `clips differ: ${blocks[0]?.clipHash} and ${blocks[1]?.clipHash}` };
  }
  // a thread's stamp carries the client's own queueing, the kernel's does not; a report that
  // records no source (the reference tool's) is not held to this
  const stampA = a.client.stampSource;
  const stampB = b.client.stampSource;
  if (stampA !== undefined && stampB !== undefined && stampA !== stampB) {
    return { ok: false, reason: `stamp sources differ: ${stampA} and ${stampB}` };
  }
  // the hand-over instant precedes the wire by the publisher's own build of the frame
  const sendA = a.client.sendStampSource;
  const sendB = b.client.sendStampSource;
  if (sendA !== undefined && sendB !== undefined && sendA !== sendB) {
    return { ok: false, reason: `send-stamp sources differ: ${sendA} and ${sendB}` };
  }
  const sa = a.scenario as unknown as Record<string, unknown>;
  const sb = b.scenario as unknown as Record<string, unknown>;
  for (const key of [...RANKED_SCENARIO_KEYS].sort()) {
    if (jsonValue(rankedValue(key, sa[key])) !== jsonValue(rankedValue(key, sb[key])))
      return { ok: false, reason: `scenarios differ on ${key}` };
  }
  return { ok: true };
}
