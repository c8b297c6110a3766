// Live evaluation of the abortOnFail thresholds, once a timeline second. What it reads: the live
// one-way delay and transit samples every viewer hands over each second, pooled since the
// viewers' start into the live quantile buckets (each 2 % wide, so a live percentile is within
// ±1 % of the exact one) with exact min/mean; and the running count of viewers that failed to
// join. It does not apply the per-viewer excludeFirstSeconds of the report's figures, so live
// values include the first seconds of each viewer. A figure with no sample yet is not judged.
// The final pass/fail always comes from the report's exact figures (evaluate.ts).

import type { Threshold, ThresholdStop } from "../scenario/threshold-types.ts";
import { LiveQuantiles } from "../stats/live-quantiles.ts";
import { holds } from "./evaluate.ts";
import type { Stat } from "./figures.ts";
import { FIGURES } from "./figures.ts";

/** The part of a shard's per-second tick the live evaluation reads. */
export interface LiveTick {
  failed: number;
  delaySamples: readonly number[];
  stampSamples: readonly number[];
  transitSamples: readonly number[];
}

/** One line for the report's method: what the live evaluation uses. */
export const LIVE_THRESHOLD_METHOD =
  "abortOnFail thresholds are also judged live once a second (after their delayAbortEval): one-way delay and packet transit from all samples since the viewers' start in 2 %-wide live buckets (exact min and mean, no excludeFirstSeconds), failed viewers from the running count; the threshold that stops a run fails, and every threshold's pass/fail is then judged on the report's exact pooled figures.";

class Stream {
  readonly q = new LiveQuantiles(1);
  n = 0;
  sumNs = 0;
  minNs = Number.POSITIVE_INFINITY;

  record(values: readonly number[]): void {
    if (values.length === 0) return;
    this.q.record(values);
    this.n += values.length;
    for (const v of values) {
      this.sumNs += v;
      if (v < this.minNs) this.minNs = v;
    }
  }

  /** The statistic in ms, or null with no sample. */
  statMs(stat: Stat): number | null {
    if (this.n === 0) return null;
    if (stat === "mean") return this.sumNs / this.n / 1e6;
    if (stat === "min") return this.minNs / 1e6;
    const p = stat === "max" ? 100 : Number(stat.slice(1));
    const q = this.q.quantilesNs([p]);
    return q === null ? null : (q[0] ?? 0) / 1e6;
  }
}

export class LiveThresholds {
  private readonly list: readonly Threshold[];
  private readonly viewersAsked: number;
  private readonly streams = {
    fingerprint: new Stream(),
    stamp: new Stream(),
    transit: new Stream(),
  };
  private failed = 0;

  constructor(list: readonly Threshold[], viewersAsked: number) {
    this.list = list;
    this.viewersAsked = viewersAsked;
  }

  /** Whether any threshold is judged live (and so whether live samples are needed). */
  static wanted(list: readonly Threshold[] | undefined): boolean {
    return (list ?? []).some((t) => t.abortOnFail);
  }

  private liveValue(t: Threshold): number | null {
    const src = FIGURES.get(t.figure)?.live;
    if (src === undefined) return null;
    if (src.kind === "failed") return this.failed;
    if (src.kind === "failedPercent")
      return this.viewersAsked > 0 ? (100 * this.failed) / this.viewersAsked : null;
    return this.streams[src.stream].statMs(src.stat);
  }

  /** Takes the shards' ticks (a final flush too: pass `atS` null) and feeds the counts. */
  record(ticks: readonly LiveTick[]): void {
    for (const tick of ticks) {
      this.failed += tick.failed;
      this.streams.fingerprint.record(tick.delaySamples);
      this.streams.stamp.record(tick.stampSamples);
      this.streams.transit.record(tick.transitSamples);
    }
  }

  /**
   * Judges the abortOnFail thresholds at `atS` (seconds since the viewers' start); the first that
   * fails stops the run.
   */
  judge(atS: number): ThresholdStop | null {
    for (const [index, t] of this.list.entries()) {
      if (!t.abortOnFail || atS < t.delayAbortEvalS) continue;
      const v = this.liveValue(t);
      if (v === null) continue;
      if (!holds(v, t.condition.op, t.condition.value)) return { index, atS, observed: v };
    }
    return null;
  }
}
