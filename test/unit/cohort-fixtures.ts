// A report input with cohorts for the unit tests: 6 viewers, `far` (ids 1 and 4 by the spread
// assignment of a 2-viewer count) with 20 ms more delay, 2 NACKs each and its emulator's counts,
// and the other 4 unimpaired.
import { assignCohorts } from "../../src/core/link/assign.ts";
import { parseCohorts } from "../../src/core/link/parse.ts";
import type { LinkRecord } from "../../src/core/link/types.ts";
import type { ReportInput } from "../../src/core/report/input.ts";
import { makeInput, makeScenario, makeViewer } from "./report-fixtures.ts";

const LINK: LinkRecord = {
  down: { datagrams: 1200, delayed: 1180, droppedLoss: 12, droppedQueue: 3 },
  up: { datagrams: 90, delayed: 0, droppedLoss: 1, droppedQueue: 0 },
};

export const FAR_EXTRA_MS = 20;

export function cohortInput(): ReportInput {
  const cohorts = parseCohorts([
    { name: "far", viewers: 2, down: { delay: "20ms", loss: "1%" }, up: { loss: "1%" } },
  ]);
  const assigned = assignCohorts(cohorts, 6);
  const viewers = assigned.map((group, id) => {
    const far = group === 0;
    const add = far ? FAR_EXTRA_MS : 0;
    const v = makeViewer(id, {
      keyMs: [8 + add, 9 + add],
      deltaMs: [2 + add, 3 + add, 4 + add, 5 + add],
      nacksSent: far ? 2 : 0,
      render: {
        finder: "frame-id",
        framesShown: far ? 850 : 900,
        framesNotDecodable: far ? 40 : 0,
        freezes: far ? 3 : 0,
        frozenMs: far ? 1500 : 0,
        longestFreezeMs: far ? 700 : 0,
        measuredMs: 30_000,
        endGapMs: 33,
        recoveries: far ? 3 : 0,
      },
      ...(far ? { recoveryMs: [400, 500, 600] } : {}),
      ...(far ? { rtp: { lost: 3, received: 997, lossPercent: 0.3 } } : {}),
    });
    if (far) v.record = { ...v.record, cohort: "far", link: LINK };
    return v;
  });
  return makeInput(viewers, { scenario: makeScenario(6, { cohorts }), requestedViewers: 6 });
}
