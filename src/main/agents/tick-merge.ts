// An agent's worker ticks of one second merged into the one tick its coordinator expects of it
// (one shard per agent): counters summed, each thread figure the worst of its threads (CPU
// summed). The live delay samples (for /metrics and live thresholds only; the report's figures
// come from the exact histograms) are thinned to at most MAX_LIVE_SAMPLES per source; with cohorts,
// each cohort's part is summed by its name and its samples thinned the same way; with simulcast,
// the layer pairs likewise.
import { addCounts, zeroCounts } from "../../core/figures.ts";
import { mergePairs } from "../../core/report/frozen-seconds.ts";
import { COHORT_TICK_COUNT_KEYS, TICK_COUNT_KEYS } from "../../core/tick-counts.ts";
import type { ThreadFigures } from "../../net/thread-profile.ts";
import type { CohortTick, LayerTick, ShardTick } from "../../workers/protocol.ts";

export const MAX_LIVE_SAMPLES = 5000;

function thin(all: number[]): number[] {
  if (all.length <= MAX_LIVE_SAMPLES) return all.map(Math.round);
  const out: number[] = [];
  const step = all.length / MAX_LIVE_SAMPLES;
  for (let i = 0; i < MAX_LIVE_SAMPLES; i++) out.push(Math.round(all[Math.floor(i * step)] ?? 0));
  return out;
}

function worse(a: { p50: number; p99: number; max: number }, b: { p50: number; p99: number; max: number }) {
  return { p50: Math.max(a.p50, b.p50), p99: Math.max(a.p99, b.p99), max: Math.max(a.max, b.max) };
}

/** A tick with nothing in it: the start of a merge, or a lost agent's empty second. */
export function emptyTick(shard: number, second: number, thread: ThreadFigures): ShardTick {
  return {
    shard,
    second,
    final: false,
    ...zeroCounts(TICK_COUNT_KEYS),
    delaySamples: [],
    stampSamples: [],
    transitSamples: [],
    freezes: 0,
    frozenNs: [],
    thread,
  };
}

/** The threads' per-cohort parts summed by cohort, in the order first seen, delay samples thinned. */
function mergeCohorts(ticks: readonly ShardTick[]): CohortTick[] | null {
  const byName = new Map<string, CohortTick>();
  for (const t of ticks) {
    for (const c of t.cohorts ?? []) {
      const m = byName.get(c.cohort);
      if (m === undefined) {
        byName.set(c.cohort, { ...c, delaySamples: [...c.delaySamples], frozenNs: [...c.frozenNs] });
        continue;
      }
      m.freezes += c.freezes;
      m.frozenNs = mergePairs([m.frozenNs, c.frozenNs]);
      addCounts(m, c, COHORT_TICK_COUNT_KEYS);
      for (const v of c.delaySamples) m.delaySamples.push(v);
    }
  }
  if (byName.size === 0) return null;
  return [...byName.values()].map((c) => ({ ...c, delaySamples: thin(c.delaySamples) }));
}

/** The threads' live layer pairs, one after another (whole pairs, thinned as the delays are). */
function mergeLayers(all: readonly LayerTick[]): LayerTick {
  const pairs = (key: keyof LayerTick) => thinPairs(all.flatMap((l) => l[key]));
  return { delays: pairs("delays"), switches: pairs("switches"), switchNs: pairs("switchNs") };
}

function thinPairs(flat: number[]): number[] {
  const n = flat.length / 2;
  if (n <= MAX_LIVE_SAMPLES) return flat.map(Math.round);
  const out: number[] = [];
  const step = n / MAX_LIVE_SAMPLES;
  for (let i = 0; i < MAX_LIVE_SAMPLES; i++) {
    const j = 2 * Math.floor(i * step);
    out.push(flat[j] ?? 0, Math.round(flat[j + 1] ?? 0));
  }
  return out;
}

export function mergeTicks(ticks: readonly ShardTick[]): ShardTick | null {
  const first = ticks[0];
  if (first === undefined) return null;
  const out = emptyTick(0, first.second, { ...first.thread, cpuSeconds: 0 });
  out.final = first.final;
  const delays: number[] = [];
  const stamps: number[] = [];
  const transits: number[] = [];
  for (const t of ticks) {
    // the counts sum, the active gauge too: each thread's viewers are its own
    addCounts(out, t, TICK_COUNT_KEYS);
    out.freezes += t.freezes;
    for (const v of t.delaySamples) delays.push(v);
    for (const v of t.stampSamples) stamps.push(v);
    for (const v of t.transitSamples) transits.push(v);
    const th = out.thread;
    th.cpuSeconds += t.thread.cpuSeconds;
    th.eventLoopUtilisation = Math.max(th.eventLoopUtilisation, t.thread.eventLoopUtilisation);
    th.eventLoopDelayMs = worse(th.eventLoopDelayMs, t.thread.eventLoopDelayMs);
    if (t.thread.receiveLagMs !== undefined) {
      th.receiveLagMs = th.receiveLagMs
        ? worse(th.receiveLagMs, t.thread.receiveLagMs)
        : t.thread.receiveLagMs;
    }
    const w = t.thread.processingWaitMs;
    if (w !== undefined) th.processingWaitMs = th.processingWaitMs ? worse(th.processingWaitMs, w) : w;
    const src = t.thread.stampSource;
    if (src !== undefined)
      th.stampSource = th.stampSource === undefined || th.stampSource === src ? src : "mixed";
  }
  out.delaySamples = thin(delays);
  out.stampSamples = thin(stamps);
  out.transitSamples = thin(transits);
  out.frozenNs = mergePairs(ticks.map((t) => t.frozenNs));
  const cohorts = mergeCohorts(ticks);
  if (cohorts !== null) out.cohorts = cohorts;
  const layers = ticks.flatMap((t) => (t.layers !== undefined ? [t.layers] : []));
  if (layers.length > 0) out.layers = mergeLayers(layers);
  return out;
}
