// The data behind the HTML report's charts, as plain arrays (uPlot's aligned columns): the
// per-second timeline, the one-way delay histogram (log-spaced bins) and CDF, pooled and
// keyframe/delta apart, and join times per viewer in start order.

import type { DelayBucket, DelayDistribution } from "./distribution.ts";
import type { Report } from "./types.ts";

export interface TimelineChart {
  t: number[];
  active: number[];
  packets: number[];
  /** null where the report has no figure for that second */
  cpuPercent: (number | null)[];
  eventLoopDelayMs: (number | null)[];
  /** mean viewers frozen that second; null where the report has none (an older report) */
  viewersFrozen: (number | null)[];
}

/** One x column and three y columns (pooled, keyframes, delta frames). */
export interface DelayChart {
  ms: number[];
  all: (number | null)[];
  keyframes: (number | null)[];
  deltaFrames: (number | null)[];
}

export interface JoinChart {
  /** 1-based position in start order */
  order: number[];
  viewerId: number[];
  startS: number[];
  /** first complete keyframe after the POST, ms; null for a viewer that did not join */
  joinMs: (number | null)[];
}

/** One x column (delay, ms) and one cumulative-% column per cohort, unimpaired last. */
export interface CohortDelayChart {
  ms: number[];
  names: string[];
  /** null throughout for a cohort with no sample */
  cdf: (number | null)[][];
}

export interface ChartData {
  timeline: TimelineChart;
  delayHistogram: DelayChart | null;
  delayCdf: DelayChart | null;
  joins: JoinChart;
  /** only with cohorts: their one-way delay CDFs on one chart */
  cohortDelayCdf?: CohortDelayChart | null;
}

/** Histogram bins per decade of milliseconds. */
export const BINS_PER_DECADE = 20;

export function timelineChart(r: Report): TimelineChart {
  const tl = r.timeline ?? [];
  return {
    t: tl.map((e) => e.t),
    active: tl.map((e) => e.active),
    packets: tl.map((e) => e.packets),
    cpuPercent: tl.map((e) => e.cpuPercent ?? null),
    eventLoopDelayMs: tl.map((e) => e.eventLoopDelayMs ?? null),
    viewersFrozen: tl.map((e) => e.viewersFrozen ?? null),
  };
}

function total(b: readonly DelayBucket[]): number {
  let n = 0;
  for (const x of b) n += x.count;
  return n;
}

const binOf = (ms: number) => Math.floor(Math.log10(ms) * BINS_PER_DECADE);
const edgeOf = (bin: number) => 10 ** (bin / BINS_PER_DECADE);

/**
 * Log-spaced bins (BINS_PER_DECADE a decade) over the pooled range; each hdr bucket goes to the
 * bin of its midpoint; y is the percentage of that series' own samples. The last x is the upper
 * edge of the last bin with y 0, so a stepped line closes.
 */
export function delayHistogram(d: DelayDistribution): DelayChart | null {
  const mid = (b: DelayBucket) => Math.max((b.lowMs + b.highMs) / 2, 1e-3);
  if (d.all.length === 0) return null;
  const first = binOf(mid(d.all[0]!));
  const last = binOf(mid(d.all[d.all.length - 1]!));
  const n = last - first + 1;
  const column = (buckets: readonly DelayBucket[]): (number | null)[] => {
    const sum = total(buckets);
    const out = new Array<number | null>(n + 1).fill(sum === 0 ? null : 0);
    if (sum === 0) return out;
    for (const b of buckets) {
      const i = Math.min(n - 1, Math.max(0, binOf(mid(b)) - first));
      out[i] = (out[i] ?? 0) + (100 * b.count) / sum;
    }
    out[n] = 0;
    return out;
  };
  return {
    ms: Array.from({ length: n + 1 }, (_, i) => edgeOf(first + i)),
    all: column(d.all),
    keyframes: column(d.keyframes),
    deltaFrames: column(d.deltaFrames),
  };
}

/** The cumulative percentage of `buckets` at each edge of `ms` (ascending); null throughout when empty. */
function cdfColumn(ms: readonly number[], buckets: readonly DelayBucket[]): (number | null)[] {
  const sum = total(buckets);
  if (sum === 0) return ms.map(() => null);
  let j = 0;
  let acc = 0;
  return ms.map((edge) => {
    while (j < buckets.length && buckets[j]!.highMs <= edge) acc += buckets[j++]!.count;
    return (100 * acc) / sum;
  });
}

/** Cumulative percentage at every pooled bucket's upper edge, for each series. */
export function delayCdf(d: DelayDistribution): DelayChart | null {
  if (d.all.length === 0) return null;
  const ms = d.all.map((b) => b.highMs);
  return {
    ms,
    all: cdfColumn(ms, d.all),
    keyframes: cdfColumn(ms, d.keyframes),
    deltaFrames: cdfColumn(ms, d.deltaFrames),
  };
}

/**
 * Each cohort's CDF at every upper bucket edge of any cohort (each cohort's buckets are a subset of
 * the pooled ones).
 */
export function cohortDelayCdf(d: DelayDistribution): CohortDelayChart | null {
  const groups = d.cohorts ?? [];
  if (groups.every((g) => g.all.length === 0)) return null;
  const ms = [...new Set(groups.flatMap((g) => g.all.map((b) => b.highMs)))].sort((a, b) => a - b);
  return { ms, names: groups.map((g) => g.name), cdf: groups.map((g) => cdfColumn(ms, g.all)) };
}

export function joinChart(r: Report): JoinChart {
  const viewers = [...(r.viewers ?? [])].sort((a, b) => a.startOffsetMs - b.startOffsetMs || a.id - b.id);
  return {
    order: viewers.map((_, i) => i + 1),
    viewerId: viewers.map((v) => v.id),
    startS: viewers.map((v) => v.startOffsetMs / 1e3),
    joinMs: viewers.map((v) => (v.joined && v.firstKeyframeMs !== undefined ? v.firstKeyframeMs : null)),
  };
}

export function chartData(r: Report, d: DelayDistribution | null): ChartData {
  return {
    timeline: timelineChart(r),
    delayHistogram: d ? delayHistogram(d) : null,
    delayCdf: d ? delayCdf(d) : null,
    joins: joinChart(r),
    ...(r.aggregate.cohorts !== undefined ? { cohortDelayCdf: d ? cohortDelayCdf(d) : null } : {}),
  };
}
