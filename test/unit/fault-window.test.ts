// The libwebrtc calibration's fault window (bench/fault-window.ts), without libwebrtc: the faults go
// on FAULT_FROM_S after the last receiver's leg and off FAULT_UNTIL_S before the first receiver stops
// (its leg + seconds), the window applied is recorded, and a short or empty one makes the pattern
// unavailable instead of a vacuous agreement.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  FAULT_FROM_S,
  FAULT_UNTIL_S,
  FaultWindowClock,
  intendedWindowMs,
  plannedWindow,
  shortWindowReason,
  windowLine,
} from "../../bench/fault-window.ts";

const SECONDS = 16;

test("the window's end follows the receivers: late legs shift it, they do not shrink it", () => {
  assert.equal(FAULT_FROM_S, 2);
  assert.equal(FAULT_UNTIL_S, 3);
  assert.equal(intendedWindowMs(SECONDS), 11_000);
  assert.deepEqual(plannedWindow([300, 500, 400], SECONDS), { fromMs: 2500, untilMs: 13_300 });
  // a loaded machine: every receiver 8 s late. A fixed end at 13 s would leave 2.6 s (10.4 → 13)
  const late = plannedWindow([8000, 8400, 8200], SECONDS);
  assert.deepEqual(late, { fromMs: 10_400, untilMs: 21_000 });
  assert.ok(late.untilMs - late.fromMs >= intendedWindowMs(SECONDS) - 400, "only the legs' spread is lost");
  // legs 9 s apart: what is left is short, and an empty plan has from ≥ until
  const apart = plannedWindow([0, 9000], SECONDS);
  assert.equal(apart.untilMs - apart.fromMs, 2000);
  const empty = plannedWindow([0, 12_000], SECONDS);
  assert.ok(empty.untilMs <= empty.fromMs);
  const none = plannedWindow([], SECONDS);
  assert.ok(none.untilMs <= none.fromMs, "no leg: nothing to apply");
});

test("the clock keeps each leg's first instant, plans once, and records what was applied", () => {
  const c = new FaultWindowClock(SECONDS, 3);
  assert.equal(c.legs(0, 100), null);
  assert.equal(c.legs(1, 200), null);
  assert.equal(c.legs(1, 300), null, "the same leg again");
  assert.equal(c.legs(2, 5000), null);
  assert.deepEqual(c.legs(3, 5100), { fromMs: 7100, untilMs: 13_200 });
  assert.equal(c.legs(3, 5200), null, "planned once");
  c.switchedOff(7000);
  c.switchedOn(7150);
  c.switchedOn(9000);
  c.switchedOff(13_210);
  const w = c.applied(16_500);
  assert.deepEqual(w, {
    fromMs: 7150,
    untilMs: 13_210,
    lengthMs: 6060,
    intendedMs: 11_000,
    legsMs: [200, 5000, 5100],
    legsWanted: 3,
  });
  assert.equal(shortWindowReason(w), null, "6.1 s of 11: over half");
  assert.equal(
    windowLine(w),
    "fault window: 7.2 → 13.2 s after the receivers were started, 6.1 s (intended 11.0 s; legs at 0.2, 5.0, 5.1 s of 3)",
  );
});

test("short, empty or never applied: the comparison is unavailable, saying why", () => {
  const short = new FaultWindowClock(SECONDS, 2);
  short.legs(2, 4000);
  short.switchedOn(6000);
  short.switchedOff(11_000);
  const w = short.applied(16_000);
  assert.equal(w.lengthMs, 5000);
  assert.match(
    shortWindowReason(w) ?? "",
    /^the fault window was 5\.0 s, under 50 % of the 11\.0 s intended \(the receivers' legs came at 4\.0, 4\.0 s\)/,
  );
  // faults still on when a receiver ended early count until that end
  const early = new FaultWindowClock(SECONDS, 1);
  early.legs(1, 0);
  early.switchedOn(2000);
  assert.equal(early.applied(3000).lengthMs, 1000);
  // a leg that never came: nothing applied
  const missing = new FaultWindowClock(SECONDS, 3);
  missing.legs(2, 500);
  const m = missing.applied(16_000);
  assert.deepEqual([m.fromMs, m.untilMs, m.lengthMs], [null, null, 0]);
  assert.match(shortWindowReason(m) ?? "", /only 2 of 3 receivers got a leg/);
  assert.equal(windowLine(m), "fault window: none applied (legs at 0.5, 0.5 s of 3)");
});
