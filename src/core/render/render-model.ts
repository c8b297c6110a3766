// What one viewer would have seen (docs/definitions.md#viewer-experience): the render model's
// counters, pure and synchronous. This first version holds the empty value only.
import type { RenderCounters } from "../types.ts";

/** The render counters of a viewer that showed nothing. */
export function emptyRender(): RenderCounters {
  return {
    finder: "",
    framesShown: 0,
    framesNotDecodable: 0,
    framesLate: 0,
    freezes: 0,
    frozenMs: 0,
    longestFreezeMs: 0,
    pauses: 0,
    pausedMs: 0,
    measuredMs: 0,
    endGapMs: -1,
    recoveries: 0,
    plisSent: 0,
    plisAnswered: 0,
  };
}
