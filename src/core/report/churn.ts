// docs/definitions.md#churn-figures: the aggregate's churn counts and the late joiners' setup and
// join, from the viewers' reports (each viewer's figures already cover its own lifetime).

import { exactSummary } from "../stats/summaries.ts";
import type { ChurnReport } from "./churn-types.ts";
import type { ViewerInput } from "./input.ts";
import type { ViewerReport } from "./types.ts";

export function churnReport(inputs: readonly ViewerInput[], viewers: readonly ViewerReport[]): ChurnReport {
  const late = viewers.filter((v) => v.lateJoiner === true);
  const lateJoined = late.filter((v) => v.joined);
  const values = (pick: (v: ViewerReport) => number | undefined): number[] =>
    lateJoined.map(pick).filter((x): x is number => x !== undefined);
  return {
    viewers: viewers.length,
    lateJoiners: late.length,
    joins: viewers.filter((v) => v.joined).length,
    lateJoins: lateJoined.length,
    leaves: inputs.filter((v) => v.left === true).length,
    lateSignallingMs: exactSummary(values((v) => v.signallingMs)),
    lateIceConnectedMs: exactSummary(values((v) => v.iceConnectedMs)),
    lateJoinFirstKeyframeMs: exactSummary(values((v) => v.firstKeyframeMs)),
  };
}
