// What the coordinator accepts from an agent: each tick, viewer record and shard profile must have
// the shape of the project's own (checked against a template of that type: same keys, same JSON
// types, optional keys from a fixed list) and its histograms must decode. Anything else is a
// malformed message: the agent's connection is closed and counted, nothing is thrown.

import { isViewerErrorKind } from "../../core/errors.ts";
import { VIEWER_HISTOGRAM_KEYS } from "../../core/figures/histograms.ts";
import { zeroCounts } from "../../core/figures.ts";
import { type KeyShape, THREAD_CARRIED, type ThreadCarried } from "../../core/report/client-types.ts";
import { STAMP_SOURCES } from "../../core/scenario/defaults.ts";
import { DelayHistogram } from "../../core/stats/summaries.ts";
import { COHORT_TICK_COUNT_KEYS } from "../../core/tick-counts.ts";
import type { EncodedHistogram, ViewerRecord } from "../../core/types.ts";
import { emptyRecord } from "../../core/viewer-record.ts";
import type { ShardProfile, ShardTick } from "../../workers/protocol.ts";
import { emptyTick } from "./tick-merge.ts";

const DELAY = { p50: 0, p99: 0, max: 0 };
const THREAD = { cpuSeconds: 0, eventLoopUtilisation: 0, eventLoopDelayMs: DELAY };

function isNum(v: unknown): v is number {
  return typeof v === "number" && Number.isFinite(v);
}

/**
 * Every template key present with the template's JSON type (recursively); extra keys only from
 * `optional`. A null in the template is a figure not measured yet: a number or null.
 */
function like(v: unknown, t: unknown, optional: Record<string, (x: unknown) => boolean> = {}): boolean {
  if (typeof t === "number") return isNum(v);
  if (t === null) return v === null || isNum(v);
  if (typeof t !== "object" || t === null) return typeof v === typeof t;
  if (typeof v !== "object" || v === null) return false;
  if (Array.isArray(t)) return Array.isArray(v) && v.every(isNum);
  const obj = v as Record<string, unknown>;
  const tmpl = t as Record<string, unknown>;
  for (const k of Object.keys(obj)) {
    if (k in tmpl) {
      if (!like(obj[k], tmpl[k])) return false;
    } else if (!(optional[k]?.(obj[k]) ?? false)) {
      return false;
    }
  }
  return Object.keys(tmpl).every((k) => k in obj);
}

/** An encoded histogram whose figures are numbers and whose buckets decode. */
export function histogramOk(v: unknown): v is EncodedHistogram {
  if (!like(v, { hdr: "", n: 0, sumNs: 0, minNs: 0, maxNs: 0 })) return false;
  const h = v as EncodedHistogram;
  if (h.n === 0) return true;
  try {
    DelayHistogram.decode(h);
    return true;
  } catch {
    return false;
  }
}

const str = (x: unknown) => typeof x === "string" && x.length <= 2000;
/** more layers than a simulcast scenario may name */
const MAX_LAYERS = 16;
const layerNumbers = (x: unknown) => Array.isArray(x) && x.length <= MAX_LAYERS && x.every(isNum);
const LAYER_TICK = { delays: [], switches: [], switchNs: [] };
/** more asks or switches than a viewer keeps (its first 256 stays: docs/definitions.md#layer-switches) */
const MAX_SWITCHES = 512;
const numOrNull = (x: unknown) => x === null || isNum(x);
const strOrNull = (x: unknown) => x === null || str(x);
const ASK_KEYS = ["rid", "atNs", "status", "error"];
const SWITCH_KEYS = ["from", "to", "askedNs", "switchNs", "framesLost"];

function askOk(v: unknown): boolean {
  if (typeof v !== "object" || v === null) return false;
  const a = v as Record<string, unknown>;
  const known = Object.keys(a).every((k) => ASK_KEYS.includes(k));
  return known && str(a.rid) && isNum(a.atNs) && isNum(a.status) && (a.error === undefined || str(a.error));
}

function switchOk(v: unknown): boolean {
  if (typeof v !== "object" || v === null) return false;
  const s = v as Record<string, unknown>;
  const known = Object.keys(s).length === SWITCH_KEYS.length && SWITCH_KEYS.every((k) => k in s);
  return (
    known &&
    strOrNull(s.from) &&
    str(s.to) &&
    numOrNull(s.askedNs) &&
    numOrNull(s.switchNs) &&
    numOrNull(s.framesLost)
  );
}

/** A viewer's layer choice (docs/definitions.md#layer-switches): its asks and switches, bounded. */
function layerChoiceOk(v: unknown): boolean {
  if (typeof v !== "object" || v === null) return false;
  const { asks, switches, reason, ...extra } = v as Record<string, unknown>;
  const list = (x: unknown, ok: (e: unknown) => boolean) =>
    Array.isArray(x) && x.length <= MAX_SWITCHES && x.every(ok);
  return (
    Object.keys(extra).length === 0 &&
    (reason === undefined || str(reason)) &&
    list(asks, askOk) &&
    list(switches, switchOk)
  );
}

const COUNTS_TEMPLATE = { datagrams: 0, delayed: 0, droppedLoss: 0, droppedQueue: 0 };
const LINK_TEMPLATE = { down: COUNTS_TEMPLATE, up: COUNTS_TEMPLATE };
/** A viewer's audio record (docs/definitions.md#audio-track): the template's types, its histogram decodes. */
function audioOk(v: unknown): boolean {
  if (typeof v !== "object" || v === null) return false;
  const { delayHist, ...rest } = v as Record<string, unknown>;
  const template = {
    rtp: (emptyRecord(0, true) as unknown as { rtp: unknown }).rtp,
    matched: false,
    samples: 0,
    invalid: 0,
    unmatchedPackets: 0,
    duplicatePackets: 0,
    excludedPackets: 0,
    avOffsetNs: [],
  };
  return histogramOk(delayHist) && like(rest, template, { firstAudioNs: isNum });
}

const RECORD_OPTIONAL: Record<string, (x: unknown) => boolean> = {
  codec: str,
  whepFlow: (x) => x === "answer" || x === "counter-offer",
  postMonoNs: isNum,
  signallingNs: isNum,
  iceConnectedNs: isNum,
  firstRtpNs: isNum,
  firstKeyframeNs: isNum,
  droppedAfterJoin: (x) => typeof x === "boolean",
  errorKind: isViewerErrorKind,
  error: str,
  stopMonoNs: isNum,
  cohort: str,
  link: (x) => like(x, LINK_TEMPLATE),
  audio: audioOk,
  // simulcast (docs/definitions.md#layer-delay): per layer, lowest first
  layerSamples: layerNumbers,
  layerNs: layerNumbers,
  layerFrames: layerNumbers,
  layerExcluded: layerNumbers,
  layerDelayHists: (x) => Array.isArray(x) && x.length <= MAX_LAYERS && x.every(histogramOk),
  layerChoice: layerChoiceOk,
};
const HISTS = VIEWER_HISTOGRAM_KEYS;

const RECORD_TEMPLATE = (() => {
  const t = emptyRecord(0, true) as unknown as Record<string, unknown>;
  // the blocker is a small union: checked on its own
  const { oneWayDelayBlocker: _b, ...rest } = t;
  for (const h of HISTS) delete rest[h];
  return rest;
})();

function blockerOk(v: unknown): boolean {
  if (typeof v !== "object" || v === null) return false;
  const b = v as { kind?: unknown; codec?: unknown };
  if (b.kind === "codec") return typeof b.codec === "string" && Object.keys(b).length === 2;
  return (
    (b.kind === "none" || b.kind === "no_send_log" || b.kind === "no_track") && Object.keys(b).length === 1
  );
}

/** One viewer record from an agent, of a viewer in `ids` (its share). */
export function recordOk(v: unknown, ids: ReadonlySet<number>): v is ViewerRecord {
  if (typeof v !== "object" || v === null) return false;
  const r = v as Record<string, unknown>;
  const { oneWayDelayBlocker, ...rest } = r;
  for (const h of HISTS) {
    if (!histogramOk(r[h])) return false;
    delete rest[h];
  }
  if (!blockerOk(oneWayDelayBlocker)) return false;
  // rtp's frame-end strings and counters: the template's types
  return like(rest, RECORD_TEMPLATE, RECORD_OPTIONAL) && ids.has(r.id as number);
}

const TICK_TEMPLATE = (() => {
  const { thread: _t, ...rest } = emptyTick(0, 0, THREAD);
  return rest;
})();

const COHORT_TICK = {
  cohort: "",
  ...zeroCounts(COHORT_TICK_COUNT_KEYS),
  delaySamples: [],
  freezes: 0,
  frozenNs: [],
};

export function tickOk(v: unknown): v is ShardTick {
  if (typeof v !== "object" || v === null) return false;
  const { thread, ...rest } = v as Record<string, unknown>;
  const cohortsOk = (x: unknown) =>
    Array.isArray(x) && x.length <= 64 && x.every((c) => like(c, COHORT_TICK));
  const dropsOk = (x: unknown) => x === null || (Number.isInteger(x) && (x as number) >= 0);
  const layersOk = (x: unknown) => like(x, LAYER_TICK);
  if (!like(rest, TICK_TEMPLATE, { cohorts: cohortsOk, socketDrops: dropsOk, layers: layersOk }))
    return false;
  const second = (v as ShardTick).second;
  if (!Number.isSafeInteger(second) || second < 0 || second > 1e7) return false;
  return like(thread, THREAD, {
    receiveLagMs: (x) => like(x, DELAY),
    processingWaitMs: (x) => like(x, DELAY),
    stampSource: stampSourceOk,
  });
}

function stampSourceOk(x: unknown): boolean {
  return x === "mixed" || (STAMP_SOURCES as readonly unknown[]).includes(x);
}

const STAMPS_TEMPLATE = { source: "", kernelStamped: 0, threadStamped: 0 };

function stampsOk(x: unknown): boolean {
  return (
    like(x, STAMPS_TEMPLATE, {
      threadReason: (r) => typeof r === "string",
      threadLagMs: (d) => like(d, DELAY),
    }) && stampSourceOk((x as { source?: unknown }).source)
  );
}

/** A value of a declared shape (core/report/client-types.ts KeyShape). */
function fits(x: unknown, shape: KeyShape): boolean {
  if (shape === "count") return Number.isInteger(x) && (x as number) >= 0;
  if (shape === "number") return isNum(x);
  if (shape === "delay") return like(x, DELAY);
  if (shape === "text") return typeof x === "string";
  return shape.includes(x as string);
}

/** Every key of the protocol's profile (workers/protocol.ts ShardProfile) not carried, each checked. */
const PROFILE_OWN: Record<
  Exclude<keyof ShardProfile, keyof ThreadCarried>,
  { ok: (x: unknown) => boolean; optional: boolean }
> = {
  receiveLagHist: { ok: histogramOk, optional: false },
  intakeDropped: { ok: isNum, optional: false },
  stamps: { ok: stampsOk, optional: false },
  repairedFrames: { ok: isNum, optional: false },
  stampSource: { ok: stampSourceOk, optional: true },
};

/** Every key carried (THREAD_CARRIED) or the profile's own, of its shape; the required ones present. */
export function profileOk(v: unknown): v is ShardProfile {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const p = v as Record<string, unknown>;
  const carried: Record<string, { shape: KeyShape; optional: boolean }> = THREAD_CARRIED;
  const owns: Record<string, { ok: (x: unknown) => boolean; optional: boolean }> = PROFILE_OWN;
  for (const [k, x] of Object.entries(p)) {
    const key = Object.hasOwn(carried, k) ? carried[k] : undefined;
    const own = Object.hasOwn(owns, k) ? owns[k] : undefined;
    if (!(key !== undefined ? fits(x, key.shape) : (own?.ok(x) ?? false))) return false;
  }
  const required = [...Object.entries(carried), ...Object.entries(PROFILE_OWN)].filter(
    ([, k]) => !k.optional,
  );
  return required.every(([k]) => k in p);
}
