// The client-ceiling rule (src/core/ceiling.ts): event-loop figures, kernel drops, and the viewer
// threads' receive lag weighed against the delay the run measures.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ceilingVerdict, DEFAULT_CEILING, receiveLagThresholdMs } from "../../src/core/report/ceiling.ts";

const quiet = { name: "worker 0", eventLoopUtilisation: 0.2, eventLoopDelayP99Ms: 3 };

test("receive-lag threshold: the larger of the 5 ms floor and 10 % of the delay p99", () => {
  assert.equal(receiveLagThresholdMs(null), 5);
  assert.equal(receiveLagThresholdMs(4), 5);
  assert.equal(receiveLagThresholdMs(80), 8);
  assert.equal(DEFAULT_CEILING.receiveLagFloorMs, 5);
});

test("a thread whose receive lag p99 reaches the threshold is near the ceiling, with the evidence", () => {
  const v = ceilingVerdict([{ ...quiet, receiveLagP99Ms: 9 }], null, DEFAULT_CEILING, 80);
  assert.equal(v.nearCeiling, true);
  assert.equal(v.thresholds.receiveLagP99Ms, 8);
  assert.deepEqual(v.evidence, [
    "worker 0: receive lag p99 9.00 ms ≥ 8.00 ms (10 % of the frame-delay p99 80.00 ms)",
  ]);
  // the same lag against a slow server is small: not near
  assert.equal(
    ceilingVerdict([{ ...quiet, receiveLagP99Ms: 9 }], null, DEFAULT_CEILING, 200).nearCeiling,
    false,
  );
  // below the floor: not near, however small the delay
  assert.equal(
    ceilingVerdict([{ ...quiet, receiveLagP99Ms: 4 }], null, DEFAULT_CEILING, 2).nearCeiling,
    false,
  );
  // a thread that stamped nothing has no receive lag and is judged on the rest
  assert.equal(ceilingVerdict([quiet], null, DEFAULT_CEILING, 2).nearCeiling, false);
  const floor = ceilingVerdict([{ ...quiet, receiveLagP99Ms: 5.2 }], null, DEFAULT_CEILING, 2);
  assert.deepEqual(floor.evidence, ["worker 0: receive lag p99 5.20 ms ≥ 5.00 ms"]);
});
