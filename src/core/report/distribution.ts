// The pooled one-way delay distribution as bucket counts, for charts (the HTML report): the very
// histograms the pooled block was made from (joined viewers with an available fingerprint block,
// pooled once by buildReportParts), all frames and keyframe / delta frames apart. The report JSON
// keeps only summaries; this is beside it.

import { DelayHistogram } from "../stats/summaries.ts";
import type { DelayPools } from "./pooled.ts";
import type { Report } from "./types.ts";

/** One histogram bucket: values in [lowMs, highMs) (whole microseconds underneath). */
export interface DelayBucket {
  lowMs: number;
  highMs: number;
  count: number;
}

export interface DelayDistribution {
  all: DelayBucket[];
  keyframes: DelayBucket[];
  deltaFrames: DelayBucket[];
  /** exact n / min / max of `all`, ms */
  samples: number;
  minMs: number;
  maxMs: number;
  /** with cohorts: each entry of aggregate.cohorts[] in its order, all frames of its viewers */
  cohorts?: { name: string; all: DelayBucket[] }[];
}

/** The non-empty buckets of a histogram, ascending. */
export function delayBuckets(h: DelayHistogram): DelayBucket[] {
  const out: DelayBucket[] = [];
  h.forEachBucket((lowUs, widthUs, count) => {
    out.push({ lowMs: lowUs / 1e3, highMs: (lowUs + widthUs) / 1e3, count });
  });
  return out;
}

/**
 * The pooled distribution of a built report's run (`pools`: buildReportParts's, the histograms its
 * pooled blocks were made from); null when the pooled block has no figure.
 */
export function delayDistribution(report: Report, pools: DelayPools): DelayDistribution | null {
  const pooled = report.aggregate.oneWayDelay.find((b) => b.source === "fingerprint");
  if (pooled === undefined || !pooled.available || report.viewers === null) return null;
  const { all, keyframes, deltaFrames } = pools.all;
  const s = all.summaryMs();
  const groups = report.aggregate.cohorts;
  return {
    all: delayBuckets(all),
    keyframes: delayBuckets(keyframes),
    deltaFrames: delayBuckets(deltaFrames),
    samples: all.count,
    minMs: s.min,
    maxMs: s.max,
    ...(groups !== undefined
      ? {
          cohorts: groups.map((c, i) => ({
            name: c.name,
            all: delayBuckets(pools.cohorts?.[i]?.all ?? new DelayHistogram()),
          })),
        }
      : {}),
  };
}
