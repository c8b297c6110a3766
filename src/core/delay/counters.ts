// The one-way delay counters, declared once (docs/definitions.md#one-way-delay-per-viewer): both
// sources' per-viewer counters (core/types.ts), the counter keys of the report's blocks per
// viewer and pooled (report/types.ts) and their order, their sums over viewers (report/pooled.ts)
// and the zeroes of a viewer that counted nothing are derived from these lists; a unit test
// (test/unit/figure-lists.test.ts) checks that the Markdown and definitions.md name every one.

/**
 * A delay block's frame counters, in the report's key order (between `frameEnd` and `ms`). Each
 * pools as a sum over the joined viewers; a block's `samples` is its histogram's count.
 */
export const DELAY_COUNTERS = [
  "completeFrames",
  "incompleteFrames",
  "samples",
  "invalid",
  "unmatchedFrames",
  "excludedFrames",
  "lateCompletedFrames",
] as const;
export type DelayCounter = (typeof DELAY_COUNTERS)[number];

/**
 * The samples by frame kind, counted per viewer beside them (a block's `keyframes` and
 * `deltaFrames` halves).
 */
export const FRAME_KIND_COUNTERS = ["keyframeSamples", "deltaFrameSamples"] as const;
export type FrameKindCounter = (typeof FRAME_KIND_COUNTERS)[number];

/** What one viewer counts for one delay source: every counter of both lists. */
export const VIEWER_DELAY_COUNTERS = [...DELAY_COUNTERS, ...FRAME_KIND_COUNTERS] as const;

/** A block's counters. */
export type DelayCounts = Record<DelayCounter, number>;
/** One viewer's counters of one source. */
export type ViewerDelayCounts = Record<DelayCounter | FrameKindCounter, number>;
