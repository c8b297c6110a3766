// The report's blocks of what the viewers would have seen (docs/definitions.md#viewer-experience-pooled):
// `viewers[].render` from each viewer's render counters and `aggregate.render` pooled over the
// joined viewers, keys in serialisation order.

import type { PooledRenderCounts, RenderCounts } from "../render/counts.ts";
import type { Summary } from "../types.ts";

/** The reference finder a viewer's frames went to (docs/definitions.md#viewer-experience). */
export type RenderFinder = "frame-id" | "seq-num" | "vp8" | "generic";

/**
 * docs/definitions.md#viewer-experience-per-viewer one viewer's `render` block: after `finder`
 * the counts of core/render/counts.ts in its order, with frozenPercent after frozenMs, endGapMs
 * after measuredMs, recoveryMs after recoveries and pliKeyframeMs last.
 */
export interface ViewerRenderBlock extends RenderCounts {
  /** false when no frame was judged: no video track, a codec the model does not read, nothing shown */
  available: boolean;
  reason?: string;
  finder?: RenderFinder;
  /** frozenMs / measuredMs × 100; only when available */
  frozenPercent?: number;
  /** last shown frame → the viewer's end; absent when nothing was shown */
  endGapMs?: number;
  /** broken chain → next shown frame, per recovery; only when there was one */
  recoveryMs?: Summary;
  /** PLI sent → next keyframe shown, per answered PLI; only when there was one */
  pliKeyframeMs?: Summary;
}

/**
 * docs/definitions.md#viewer-experience-pooled the pooled `render` block. Its counts
 * (PooledRenderCounts, core/render/counts.ts) are pooled over every joined viewer as the list
 * says (one that showed nothing adds its frames not decodable and PLIs): summed, the ms ones as
 * seconds, and longestFreezeMs the longest of any viewer (0 without a freeze). Key order: the
 * builder's, pooledRenderBlock in report/render.ts (test/unit/render-report.test.ts holds it).
 */
export interface PooledRenderBlock extends PooledRenderCounts {
  available: boolean;
  reason?: string;
  /** joined viewers whose render block is available (the viewers judged) */
  viewers: number;
  viewersByFinder: Record<string, number>;
  /** freezes / (measuredSeconds / 60); only when available */
  freezesPerViewerMinute?: number;
  /** each judged viewer's frozen share, % (n: 0 when none was judged) */
  frozenPercent: Summary;
  /** each judged viewer's end gap, ms */
  endGapMs: Summary;
  /** every recovery of every joined viewer, merged exactly; only when there was one */
  recoveryMs?: Summary;
  /** every answered PLI of every joined viewer, merged exactly; only when there was one */
  pliKeyframeMs?: Summary;
}
