// The report's churn block (docs/definitions.md#churn-figures).

import type { Summary } from "../types.ts";

/** docs/definitions.md#churn-figures the churn counts and the late joiners' figures. */
export interface ChurnReport {
  /** every viewer scheduled: the first viewers and the late joiners */
  viewers: number;
  lateJoiners: number;
  /** viewers that joined, late joiners included */
  joins: number;
  lateJoins: number;
  /** viewers that ran and left before the viewers' deadline (WHEP DELETE at their lifetime's end) */
  leaves: number;
  /** over the late joiners that joined: the WHEP answer, ICE connected, the first complete keyframe */
  lateSignallingMs: Summary;
  lateIceConnectedMs: Summary;
  lateJoinFirstKeyframeMs: Summary;
}
