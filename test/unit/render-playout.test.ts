// The render model's playout stage (docs/definitions.md#playout): libwebrtc's timestamp
// extrapolator and jitter estimate, render times, the skip of late frames and the show instants,
// on hand-built frame instants.
import assert from "node:assert/strict";
import { test } from "node:test";
import { JitterEstimator } from "../../src/core/render/jitter-estimator.ts";
import { Playout } from "../../src/core/render/playout.ts";
import { DECODER_BUSY_MS } from "../../src/core/render/playout-params.ts";
import { TimestampExtrapolator } from "../../src/core/render/timestamp-extrapolator.ts";

const MS = 1e6;
const FRAME_MS = 1000 / 30;

test("extrapolator: a steady 30 fps stream maps each timestamp to its arrival; it wraps at 2^32", () => {
  const x = new TimestampExtrapolator(0);
  const ts0 = 2 ** 32 - 3000 * 50; // wraps 50 frames in
  for (let i = 0; i < 100; i++) x.update(1000 + i * FRAME_MS, (ts0 + i * 3000) >>> 0);
  for (const i of [100, 130]) {
    const local = x.localMs((ts0 + i * 3000) >>> 0);
    assert.ok(Math.abs(local - (1000 + i * FRAME_MS)) <= 1, `frame ${i}: ${local}`);
  }
  // a timestamp from before the wrap, read after it: a step back across 2^32, not 13 hours ahead
  const before = x.localMs((ts0 + 45 * 3000) >>> 0);
  assert.ok(Math.abs(before - (1000 + 45 * FRAME_MS)) <= 1, `frame 45: ${before}`);
  assert.ok(Number.isNaN(new TimestampExtrapolator(0).localMs(0)), "nothing fed: no estimate");
});

test("jitter estimate: 11 ms on a steady stream (1 ms + 10 ms for the OS), more when arrivals jitter", () => {
  const steady = new JitterEstimator();
  const jittery = new JitterEstimator();
  for (let i = 0; i < 300; i++) {
    const now = i * FRAME_MS;
    steady.update(now, 0, 3000);
    // every other frame 20 ms late, the next one on time again: delays +20, −20
    jittery.update(now, i % 2 === 0 ? 20 : -20, 3000);
  }
  assert.equal(steady.estimateMs(), 11);
  assert.ok(jittery.estimateMs() > 20, `${jittery.estimateMs()}`);
});

/** Playout of a 30 fps stream (3 000 bytes a frame) whose frames become decodable at `readyMs(i)`. */
function play(frames: number, readyMs: (i: number) => number, retransmitted = (_i: number) => false) {
  const shown: number[] = [];
  const p: Playout = new Playout(() => shown.push(p.shownNs / MS));
  for (let i = 0; i < frames; i++) {
    const at = readyMs(i) * MS;
    p.completed(at, i * 3000, retransmitted(i));
    p.ready(at, i * 3000, at, 3000, retransmitted(i), i === 0);
    p.release(at);
  }
  p.advance(readyMs(frames - 1) * MS + 1e9);
  return { shown, skipped: p.skipped };
}

test("playout: a steady stream is shown 11 ms after each frame is ready, every frame", () => {
  const { shown, skipped } = play(90, (i) => 1000 + i * FRAME_MS);
  assert.equal(skipped, 0);
  assert.equal(shown.length, 90);
  for (const [k, ms] of shown.entries()) {
    if (k === 0) assert.equal(ms, 1000, "the first keyframe at once");
    else assert.ok(Math.abs(ms - (1000 + k * FRAME_MS + 11)) <= 1, `frame ${k} at ${ms}`);
  }
});

// frames 60..66 arrive during a stall of 220 ms from 60 frames in; all are released when it ends
const STALL_END_MS = 1000 + 60 * FRAME_MS + 220;
const stalled = (i: number): number => {
  const t = 1000 + i * FRAME_MS;
  return i >= 60 && t < STALL_END_MS ? STALL_END_MS : t;
};
const inStall = (i: number): boolean => i >= 60 && 1000 + i * FRAME_MS < STALL_END_MS;

test("playout: frames held 220 ms then released at once: the late ones are skipped, one gap", () => {
  const { shown, skipped } = play(120, stalled);
  // 60 is shown at once (the only decodable frame); of 61..66, decodable together once the decoder
  // is free again, every one ≥ 5 ms past its time is skipped but the last
  assert.ok(skipped >= 4 && skipped <= 5, `${skipped}`);
  const gaps = shown.slice(1).map((ms, k) => ms - shown[k]!);
  const long = gaps.filter((g) => g > 100);
  assert.equal(long.length, 1);
  // the gap runs from frame 59's show (its arrival + 11 ms) to the stall's end
  assert.ok(Math.abs(long[0]! - (STALL_END_MS - (1000 + 59 * FRAME_MS + 11))) <= 2, `${long[0]}`);
});

test("playout: a burst whose frames are decodable further apart than a decode is shown frame by frame", () => {
  // the stall's frames released DECODER_BUSY_MS + 0.2 ms apart: the decoder is free again before
  // the next one is decodable, so each is the last decodable frame and none is skipped (libwebrtc
  // decoded every frame of the calibration's stall bursts: framesDropped 0)
  const apart = DECODER_BUSY_MS + 0.2;
  const spread = (i: number): number => (inStall(i) ? STALL_END_MS + (i - 60) * apart : stalled(i));
  const spaced = play(120, spread);
  assert.equal(spaced.skipped, 0);
  assert.equal(spaced.shown.length, 120);
  // four to a decode: the late ones waiting when the decoder is free again are skipped
  const close = play(120, (i) => (inStall(i) ? STALL_END_MS + (i - 60) * (DECODER_BUSY_MS / 4) : stalled(i)));
  assert.ok(close.skipped >= 3, `${close.skipped}`);
  assert.equal(close.shown.length, 120 - close.skipped);
});

test("playout: a late frame raises the playout delay, unless a retransmission delayed it", () => {
  const counted = play(120, stalled);
  const excluded = play(120, stalled, inStall);
  // frame 119's show instant after its arrival: the current delay the stall left behind
  const offset = (shown: number[]) => shown[shown.length - 1]! - (1000 + 119 * FRAME_MS);
  assert.ok(Math.abs(offset(excluded.shown) - 11) <= 1, `left out: ${offset(excluded.shown)}`);
  assert.ok(offset(counted.shown) > offset(excluded.shown) + 5, `counted: ${offset(counted.shown)}`);
});
test("playout: a timestamp jump 2 s forward holds the frames after it (a freeze of seconds)", () => {
  const shown: number[] = [];
  const p: Playout = new Playout(() => shown.push(p.shownNs / MS));
  for (let i = 0; i < 150; i++) {
    const at = (1000 + i * FRAME_MS) * MS;
    const ts = i * 3000 + (i >= 60 ? 180_000 : 0); // +2 s of RTP time from frame 60
    p.completed(at, ts, false);
    p.ready(at, ts, at, 3000, false, i === 0);
    p.release(at);
  }
  p.advance(10e9);
  const gaps = shown.slice(1).map((ms, k) => ms - shown[k]!);
  assert.ok(Math.max(...gaps) > 1000, `longest gap ${Math.max(...gaps)} ms`);
});
