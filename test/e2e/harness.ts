// End-to-end harness: a built-in relay on 127.0.0.1 with fault knobs, a short scenario, a real
// run through real werift peers on real UDP sockets, and the report it builds.
import assert from "node:assert/strict";
import { buildReport } from "../../src/core/report/build.ts";
import { reportToJson } from "../../src/core/report/json.ts";
import { reportToMarkdown } from "../../src/core/report/markdown.ts";
import type { Report } from "../../src/core/report/types.ts";
import { normaliseScenario, type Scenario, validateScenario } from "../../src/core/scenario-file/scenario.ts";
import { memoryLogger } from "../../src/main/observe/log.ts";
import { Relay, type RelayOptions } from "../../src/main/relay/relay.ts";
import { type Engine, inThreadEngine } from "../../src/main/run/engine.ts";
import { type RunOptions, run } from "../../src/main/run/runner.ts";
import type { ShardTick } from "../../src/workers/protocol.ts";

export const QUERY_SECRET = "QUERYSECRET";
export const BEARER_SECRET = "BEARERSECRET";

export interface E2EResult {
  report: Report;
  json: string;
  markdown: string;
  logLines: string[];
  /** the relay the run went through (closed), for its test-only counters */
  relay: Relay;
}

/** A short scenario: ramp 1 s, hold 3 s, warmup 0.5 s, join timeout 5 s, exclude first 1 s. */
export function shortScenario(base: string, over: Partial<Scenario> = {}): Scenario {
  return {
    name: "e2e",
    whip: `${base}/s/whip?token=${QUERY_SECRET}`,
    whep: `${base}/s/whep?token=${QUERY_SECRET}`,
    codec: "vp8",
    viewers: 4,
    rampSeconds: 1,
    holdSeconds: 3,
    warmupSeconds: 0.5,
    joinTimeoutSeconds: 5,
    excludeFirstSeconds: 1,
    loopbackOnly: true,
    bearerEnv: "WHIPBENCH_E2E_TOKEN",
    ...over,
  };
}

/**
 * Ends a run before its hold does, as an interrupt (the report says `interrupted`), once `done`
 * has held for `afterMs`: a test whose stream the relay sends in a fixed burst waits for the burst
 * to have reached every leg, not for a hold that a loaded machine's slow joins can outlast.
 */
export interface StopWhen {
  done: (relay: Relay) => boolean;
  afterMs: number;
}

function watchStop(relay: Relay, w: StopWhen, stop: AbortController): () => void {
  let grace: NodeJS.Timeout | undefined;
  const poll = setInterval(() => {
    if (grace === undefined && w.done(relay)) grace = setTimeout(() => stop.abort(), w.afterMs);
  }, 50);
  return () => {
    clearInterval(poll);
    clearTimeout(grace);
  };
}

export async function runThroughRelay(
  relayOpts: Omit<RelayOptions, "ice" | "token"> = {},
  over: Partial<Scenario> = {},
  engine: Engine = inThreadEngine(),
  onShardTick?: (tick: ShardTick) => void,
  { stopWhen, ...extra }: Pick<RunOptions, "onReferenceFigures"> & { stopWhen?: StopWhen } = {},
): Promise<E2EResult> {
  const relay = new Relay({
    ice: { loopbackOnly: true, includeLoopback: false },
    token: BEARER_SECRET,
    ...relayOpts,
  });
  const base = await relay.listen();
  const log = memoryLogger();
  const stop = new AbortController();
  const unwatch = stopWhen === undefined ? () => {} : watchStop(relay, stopWhen, stop);
  try {
    const s = normaliseScenario(shortScenario(base, over));
    validateScenario(s);
    const input = await run({
      command: "run",
      scenario: s,
      bearer: BEARER_SECRET,
      engine,
      log,
      interrupt: stop.signal,
      relaySocketDrops: relay.socketDrops,
      ...(onShardTick ? { onShardTick } : {}),
      ...extra,
    });
    const report = buildReport(input);
    return {
      report,
      json: reportToJson(report),
      markdown: reportToMarkdown(report),
      logLines: log.lines,
      relay,
    };
  } finally {
    unwatch();
    await relay.close();
  }
}

export function fingerprintBlock(r: Report) {
  const b = r.aggregate.oneWayDelay[0];
  if (!b) throw new Error("no pooled one-way delay block");
  return b;
}

/**
 * A delay block is comparable, or — only when the client was near its own ceiling — not
 * comparable for exactly that reason. For tests about other comparability rules: whether this
 * machine's client stays under the ceiling guard is test/e2e/workers.test.ts's and truth's business.
 */
export function assertComparableUnlessClientBound(
  r: Report,
  block: { comparable?: boolean; notComparableReason?: string } | undefined,
  label = "",
): void {
  if (r.client.ceiling?.nearCeiling) {
    assert.equal(block?.comparable, false, label);
    assert.match(block?.notComparableReason ?? "", /^the client was near its own ceiling/, label);
    return;
  }
  assert.equal(block?.comparable, true, `${label} ${block?.notComparableReason ?? ""}`);
}
