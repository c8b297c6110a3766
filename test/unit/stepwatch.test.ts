// Clock-step detector thresholds (docs/definitions.md#clock-step-detector) with injected readings, and the real clock source.
import assert from "node:assert/strict";
import { test } from "node:test";
import { edgeWallReading } from "../../src/core/clock/clock.ts";
import { isStep, StepWatch } from "../../src/core/clock/stepwatch.ts";

const MS = 1e6;
const S = 1e9;

test("docs/definitions.md#clock-step-detector thresholds: 0.1 ms plus 500 ppm per interval", () => {
  assert.equal(isStep(S + 0.6 * MS, S), false, "0.6 ms in 1 s is the allowance");
  assert.equal(isStep(S + 0.601 * MS, S), true, "0.601 ms in 1 s");
  assert.equal(isStep(S - 0.601 * MS, S), true, "−0.601 ms in 1 s");
  assert.equal(isStep(10 * MS + 0.1 * MS, 10 * MS), false, "0.1 ms within 10 ms");
  assert.equal(isStep(10 * MS + 0.2 * MS, 10 * MS), true, "0.2 ms within 10 ms");
});

test("a steady 2.8 ppm drift over 42 s is no step; a 1 s jump after a minute at 3 ppm is", () => {
  const drift = new StepWatch();
  for (let t = 0; t <= 42; t++) drift.observe(t * S * (1 + 2.8e-6), t * S);
  assert.equal(drift.stepDetected, false);
  const jump = new StepWatch();
  for (let t = 0; t <= 60; t++) jump.observe(t * S * (1 + 3e-6), t * S);
  assert.equal(jump.stepDetected, false);
  jump.observe(61 * S * (1 + 3e-6) + S, 61 * S);
  assert.equal(jump.stepDetected, true);
  jump.observe(62 * S * (1 + 3e-6) + S, 62 * S);
  assert.equal(jump.stepDetected, true, "a step sets the flag for good");
});

test("edge-aligned wall readings of this machine: no step over 3 s of 100 ms intervals", async () => {
  const w = new StepWatch();
  let worstNs = 0;
  let prev = edgeWallReading();
  w.observe(prev.wallNs, prev.monoNs);
  for (let i = 0; i < 30; i++) {
    await new Promise((r) => setTimeout(r, 100));
    const r = edgeWallReading();
    w.observe(r.wallNs, r.monoNs);
    worstNs = Math.max(worstNs, Math.abs(r.wallNs - prev.wallNs - (r.monoNs - prev.monoNs)));
    prev = r;
  }
  assert.equal(w.stepDetected, false, `worst |Δwall − Δmono| ${worstNs} ns`);
  assert.ok(
    worstNs < 100_000,
    `edge readings agree with the monotonic clock to < 0.1 ms (worst ${worstNs} ns)`,
  );
});
