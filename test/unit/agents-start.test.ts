// The agent's check of the coordinator's start message (docs/definitions.md#many-hosts): viewer ids
// of the scenario's viewers, start offsets within a day, and each viewer's cohort an index of the
// scenario's cohorts (absent: unimpaired).
import assert from "node:assert/strict";
import { test } from "node:test";
import { startOk } from "../../src/main/agents/agent-share.ts";

function start(viewers: unknown[]): Record<string, unknown> {
  return { type: "start", t0WallNs: "1765000000000000000", deadlineOffsetNs: 5e9, viewers };
}

test("a start message with cohort indexes below the scenario's cohorts is accepted", () => {
  const m = start([
    { id: 0, startOffsetNs: 0 },
    { id: 2, startOffsetNs: 1e8, cohort: 0 },
    { id: 4, startOffsetNs: 2e8, cohort: 1 },
  ]);
  assert.equal(startOk(m, 6, 2), true);
});

test("a cohort index out of range, negative or not a whole number is refused", () => {
  for (const cohort of [2, 7, -1, 0.5, "0", null, Number.NaN]) {
    const m = start([
      { id: 0, startOffsetNs: 0, cohort: 0 },
      { id: 1, startOffsetNs: 0, cohort },
    ]);
    assert.equal(startOk(m, 6, 2), false, `cohort ${String(cohort)}`);
  }
  // a scenario without cohorts takes no cohort index at all
  assert.equal(startOk(start([{ id: 0, startOffsetNs: 0, cohort: 0 }]), 6, 0), false);
  assert.equal(startOk(start([{ id: 0, startOffsetNs: 0 }]), 6, 0), true);
});

test("ids outside the scenario's viewers or repeated are refused", () => {
  assert.equal(startOk(start([{ id: 6, startOffsetNs: 0 }]), 6, 0), false);
  assert.equal(
    startOk(
      start([
        { id: 1, startOffsetNs: 0 },
        { id: 1, startOffsetNs: 0 },
      ]),
      6,
      0,
    ),
    false,
  );
});
