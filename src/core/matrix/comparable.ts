// Whether one matrix repeat may be ranked (docs/definitions.md#matrix-ranking): its run has a
// verdict, and its figure is comparable — for a one-way delay figure, that source's pooled block
// (clock measured within 1 ms, no clock step, the client not near its own ceiling:
// docs/definitions.md#comparability); for every other figure, the client not near its own
// ceiling, whose own queueing and drops are inside every figure it measures.

import { clientBoundReason } from "../report/client-block.ts";
import type { DelaySource, Report } from "../report/types.ts";

export interface RepeatComparability {
  comparable: boolean;
  /** why not, when not */
  notComparableReason?: string;
}

/** The one-way delay source a figure name reads, or null when it is not a one-way delay figure. */
function delaySource(figure: string): DelaySource | null {
  if (!figure.startsWith("oneWayDelay.")) return null;
  return figure.startsWith("oneWayDelay.stamp.") ? "stamp" : "fingerprint";
}

export function repeatComparability(r: Report, figure: string): RepeatComparability {
  // the verdict of a run without one says so ("no verdict: …")
  if (!r.aggregate.valid) return { comparable: false, notComparableReason: r.aggregate.verdict };
  const source = delaySource(figure);
  if (source !== null) {
    const block = r.aggregate.oneWayDelay.find((b) => b.source === source);
    if (block?.comparable === true) return { comparable: true };
    return {
      comparable: false,
      notComparableReason: block?.notComparableReason ?? `the report has no ${source} one-way delay block`,
    };
  }
  const bound = clientBoundReason(r.client.ceiling);
  return bound === undefined ? { comparable: true } : { comparable: false, notComparableReason: bound };
}
