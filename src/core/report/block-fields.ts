// What every delay block (per viewer and pooled, each source) builds its fields with: durations
// arrive in ns and leave in ms, and the keyframe / delta-frame halves
// (docs/definitions.md#keyframes-and-delta-frames).

import { DELAY_COUNTERS, type DelayCounts } from "../delay/counters.ts";
import { pickCounts } from "../figures.ts";
import type { DelayHistogram } from "../stats/summaries.ts";
import type { FrameKindSplit } from "./types.ts";

export function nsToMs(ns: number): number {
  return ns / 1e6;
}

/** A keyframe or delta-frame half: `ms` only when the block is available and the half has samples. */
export function frameKindSplit(hist: DelayHistogram, blockAvailable: boolean): FrameKindSplit {
  const split: FrameKindSplit = { samples: hist.count };
  if (blockAvailable && hist.count > 0) split.ms = hist.summaryMs();
  return split;
}

/** A block's counters in DELAY_COUNTERS order (core/delay/counters.ts), `samples` its histogram's count. */
export function blockCounts(c: Readonly<DelayCounts>, samples: number): DelayCounts {
  const out = pickCounts(c, DELAY_COUNTERS);
  out.samples = samples;
  return out;
}
