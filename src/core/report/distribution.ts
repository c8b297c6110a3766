// The pooled one-way delay distribution as bucket counts, for charts (the HTML report): the same
// viewers the pooled block merges (joined, with an available fingerprint block), all frames and
// keyframe / delta frames apart. The report JSON keeps only summaries; this is beside it.

import * as hdr from "hdr-histogram-js";
import { UNIMPAIRED } from "../link/parse.ts";
import { DelayHistogram } from "../stats/summaries.ts";
import type { ReportInput } from "./input.ts";
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
  if (h.count === 0) return [];
  const decoded = hdr.decodeFromCompressedBase64(h.encode().hdr, 32, false);
  // internal: invariant, the histogram was encoded by this process
  if (!(decoded instanceof hdr.JsHistogram)) throw new Error("distribution: cannot decode histogram");
  const out: DelayBucket[] = [];
  for (let i = 0; i < decoded.countsArrayLength; i++) {
    const count = decoded.getCountAtIndex(i);
    if (count === 0) continue;
    const lowUs = decoded.valueFromIndex(i);
    const widthUs = decoded.sizeOfEquivalentValueRange(lowUs);
    out.push({ lowMs: lowUs / 1e3, highMs: (lowUs + widthUs) / 1e3, count });
  }
  return out;
}

/** The pooled distribution of a built report's run; null when the pooled block has no figure. */
export function delayDistribution(input: ReportInput, report: Report): DelayDistribution | null {
  const pooled = report.aggregate.oneWayDelay.find((b) => b.source === "fingerprint");
  if (pooled === undefined || !pooled.available || report.viewers === null) return null;
  const byId = new Map(report.viewers.map((v) => [v.id, v]));
  const all = new DelayHistogram();
  const keyframes = new DelayHistogram();
  const deltaFrames = new DelayHistogram();
  const groups = report.aggregate.cohorts;
  const byCohort = new Map((groups ?? []).map((c) => [c.name, new DelayHistogram()]));
  for (const v of input.viewers) {
    const r = byId.get(v.record.id);
    const block = r?.oneWayDelay.find((b) => b.source === "fingerprint");
    if (r === undefined || !r.joined || block?.available !== true) continue;
    all.add(v.record.delayHist);
    keyframes.add(v.record.delayKeyHist);
    deltaFrames.add(v.record.delayDeltaHist);
    byCohort.get(r.cohort ?? UNIMPAIRED)?.add(v.record.delayHist);
  }
  const s = all.summaryMs();
  return {
    all: delayBuckets(all),
    keyframes: delayBuckets(keyframes),
    deltaFrames: delayBuckets(deltaFrames),
    samples: all.count,
    minMs: s.min,
    maxMs: s.max,
    ...(groups !== undefined
      ? {
          cohorts: groups.map((c) => ({
            name: c.name,
            all: delayBuckets(byCohort.get(c.name) ?? new DelayHistogram()),
          })),
        }
      : {}),
  };
}
