// The freeze rule of docs/definitions.md#freezes-and-pauses (libwebrtc's video quality observer):
// window of 30 intervals, integer-floor mean, 5 intervals before any freeze, max(3·mean,
// mean + 150 ms), the whole interval counted, the window never reset, a pause not tested.
import assert from "node:assert/strict";
import { test } from "node:test";
import { FreezeClock } from "../../src/core/render/freeze-clock.ts";

const MS = 1e6;

/** Shows frames at the given ms instants; returns the clock. */
function run(instantsMs: readonly number[], clock = new FreezeClock()): FreezeClock {
  for (const t of instantsMs) clock.shown(t * MS);
  return clock;
}

/** n instants `stepMs` apart from `fromMs` (exclusive of fromMs). */
function steady(fromMs: number, n: number, stepMs: number): number[] {
  return Array.from({ length: n }, (_, i) => fromMs + (i + 1) * stepMs);
}

test("no interval is a freeze before 5 are in the window", () => {
  // 4 intervals, the 4th huge: still no freeze
  const c = run([0, 33, 66, 99, 2000]);
  assert.equal(c.freezes, 0);
  // the 5th interval is tested
  const d = run([0, 33, 66, 99, 132, 2000]);
  assert.equal(d.freezes, 1);
  assert.equal(d.frozenMs, 1868);
  assert.equal(d.longestFreezeMs, 1868);
});

test("threshold: max(3·mean, mean + 150), the mean rounded down with the interval itself in it", () => {
  // 29 intervals of 33 ms then one of T: mean = floor((29·33 + T) / 30)
  const base = [0, ...steady(0, 29, 33)];
  const last = base[base.length - 1]!;
  // T = 187: mean floor(1144/30) = 38, threshold 188 → no freeze; T = 188 → freeze
  assert.equal(run([...base, last + 187]).freezes, 0);
  const c = run([...base, last + 188]);
  assert.equal(c.freezes, 1);
  assert.equal(c.frozenMs, 188);
  // at 5 fps 3·mean dominates: 29 × 200 ms then T, mean floor((5800 + T)/30): 641 → 214 → 642,
  // no freeze; 642 → 214 → 642, a freeze
  const slow = [0, ...steady(0, 29, 200)];
  assert.equal(run([...slow, slow[slow.length - 1]! + 641]).freezes, 0);
  assert.equal(run([...slow, slow[slow.length - 1]! + 642]).freezes, 1);
});

test("the GOP-position example: a loss at p ≤ 25 freezes, p = 26…29 does not (30 fps, 1 s GOP)", () => {
  const frame = 1000 / 30;
  for (let p = 1; p <= 29; p++) {
    // two clean GOPs, then frames 0..p−1 of the third shown, p..29 lost, next keyframe at 30
    const shown: number[] = [];
    for (let i = 0; i < 60 + p; i++) shown.push(i * frame);
    shown.push((60 + 30) * frame);
    for (let i = 91; i < 100; i++) shown.push(i * frame);
    const c = run(shown);
    assert.equal(c.freezes, p <= 25 ? 1 : 0, `p = ${p}`);
  }
});

test("the window is never reset: a second gap soon after needs to be longer", () => {
  const a = [0, ...steady(0, 40, 33)];
  const gap = a[a.length - 1]! + 400; // freeze 1
  a.push(gap, ...steady(gap, 5, 33));
  // 195 ms would be a freeze on a clean window (threshold 188); with the 400 in it, the mean is
  // floor((23·33 + 400 + 5·33 + 195)/30) = 50 → threshold 200
  a.push(gap + 5 * 33 + 195);
  const c = run(a);
  assert.equal(c.freezes, 1);
  assert.equal(c.frozenMs, 400);
});

test("a pause is counted as a pause, not tested, and leaves the window alone", () => {
  const clock = run([0, ...steady(0, 30, 33)]);
  clock.inactive();
  clock.shown(990 * MS + 8000 * MS);
  assert.equal(clock.pauses, 1);
  assert.equal(clock.pausedMs, 8000);
  assert.equal(clock.freezes, 0);
  // the next long interval is tested against a window without the pause: 200 ms is a freeze
  clock.shown(990 * MS + 8200 * MS);
  assert.equal(clock.freezes, 1);
});

test("inactive before the first frame is no pause", () => {
  const clock = new FreezeClock();
  clock.inactive();
  clock.shown(0);
  clock.shown(33 * MS);
  assert.equal(clock.pauses, 0);
});

test("onFreeze is called with the two shown frames that bound the freeze", () => {
  const seen: Array<[number, number]> = [];
  const clock = new FreezeClock((a, b) => seen.push([a, b]));
  run([0, ...steady(0, 10, 33), 330 + 500], clock);
  assert.deepEqual(seen, [[330 * MS, 830 * MS]]);
});

test("intervals are whole milliseconds of the instants (floor), as libwebrtc's ms clock", () => {
  // instants 0.9 ms and 33.1 ms apart in ns still give whole-ms intervals
  const clock = new FreezeClock();
  clock.shown(0.9 * MS);
  clock.shown(33.1 * MS);
  assert.equal(clock.frames, 2);
  assert.equal(clock.lastNs, 33.1 * MS);
});
