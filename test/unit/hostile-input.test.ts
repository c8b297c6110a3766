// Pins the fixes for what the property-based tests (test/fuzz) found in the pure logic: a
// sender's sequence numbers that jump by powers of two grew the reassembler's seen ring
// without bound; a sender inventing a timestamp per packet made every push scan all pending
// frames (quadratic time); an H.264 --fps far below 1 gave frame durations past the 32-bit RTP
// step; a VP8 MTU of Infinity sent nothing.

import assert from "node:assert/strict";
import { test } from "node:test";
import { parseAnnexB } from "../../src/core/clip/clip.ts";
import { depacketizeVp8, packetizeVp8 } from "../../src/core/codec/vp8.ts";
import { ClipError } from "../../src/core/errors.ts";
import { type CompletedFrame, MAX_PENDING, Reassembler } from "../../src/core/rtp/reassembler.ts";
import { MAX_CAPACITY, SeenRing } from "../../src/core/rtp/seen-ring.ts";

const KEY = Uint8Array.of(0x10, 0x00); // VP8 payload: S set, a keyframe byte

test("seen ring: sequence numbers jumping by 16384 keep it at most MAX_CAPACITY slots", () => {
  // before the fix: 1000 such packets in 100 ms grew the ring to 2^24 slots (~330 MB), and it
  // kept doubling until the allocation failed
  const r = new Reassembler(depacketizeVp8);
  const out: CompletedFrame[] = [];
  for (let i = 0; i < 3000; i++) r.push((i * 16384) & 0xffff, i * 3000, true, KEY, i * 100_000, out);
  assert.ok(r.stateSizes().seenCapacity <= MAX_CAPACITY, `capacity ${r.stateSizes().seenCapacity}`);
  assert.equal(MAX_CAPACITY, 65536);
});

test("seen ring: at MAX_CAPACITY a collision forgets the older entry; below it, it still grows", () => {
  const ring = new SeenRing(4);
  const base = 2 ** 32;
  ring.add(base, 3000, 10);
  ring.add(base + 4, 6000, 11); // collides at 4 slots: grows
  assert.ok(ring.capacity >= 8);
  ring.add(base + MAX_CAPACITY, 9000, 12); // collides with base at every size up to the cap
  assert.equal(ring.capacity, MAX_CAPACITY);
  assert.equal(ring.tsOf(base), -1, "the older entry is forgotten");
  assert.equal(ring.tsOf(base + MAX_CAPACITY), 9000);
  assert.equal(ring.tsOf(base + 4), 6000, "entries that did not collide are kept");
  assert.equal(ring.size, 2);
  assert.equal(new SeenRing(1 << 20).capacity, MAX_CAPACITY, "the initial capacity is capped too");
});

test("seen ring: growing into the cap keeps the later of two colliding entries", () => {
  const ring = new SeenRing(MAX_CAPACITY / 2);
  const base = 2 ** 32;
  ring.add(base + 1, 1, 10);
  ring.add(base + 1 + MAX_CAPACITY / 2, 2, 20); // grows to the cap: no collision there
  assert.equal(ring.capacity, MAX_CAPACITY);
  ring.add(base + 1 + MAX_CAPACITY, 3, 30); // same slot as base + 1 at the cap: replaces it
  assert.equal(ring.tsOf(base + 1), -1);
  assert.equal(ring.tsOf(base + 1 + MAX_CAPACITY), 3);
  assert.equal(ring.tsOf(base + 1 + MAX_CAPACITY / 2), 2);
});

test("reassembler: a new timestamp per packet keeps at most MAX_PENDING frames pending", () => {
  // before the fix: 50 000 such packets in one second of arrivals took ~14 s of CPU
  const r = new Reassembler(depacketizeVp8);
  const out: CompletedFrame[] = [];
  const n = 1000;
  for (let i = 0; i < n; i++) {
    // every other sequence number: no frame ever has its head proven
    r.push((2 * i) & 0xffff, i * 7919, false, KEY, i * 100_000, out);
    assert.ok(r.stateSizes().pending <= MAX_PENDING);
  }
  assert.equal(out.length, 0);
  assert.equal(r.stateSizes().pending, MAX_PENDING);
  // the oldest frames were given up as incomplete, the viewer's first frame (earliest) uncounted
  assert.equal(r.incompleteFrames, n - MAX_PENDING - 1);

  // a clean stream after the flood still completes its frames
  let seq = 2 * n + 100;
  let done = 0;
  for (let k = 0; k < 10; k++) {
    for (let j = 0; j < 3; j++) {
      out.length = 0;
      done += r.push(
        seq++ & 0xffff,
        2 ** 31 + k * 3000,
        j === 2,
        j === 0 ? KEY : Uint8Array.of(0, 1),
        1e9 + k * 1e6,
        out,
      );
    }
  }
  assert.equal(done, 9, "every frame after the first of the new stream");
});

test("reassembler: an ordinary lossy stream never reaches MAX_PENDING", () => {
  // 120 fps, every frame missing a packet: a frame pending per frame for the 1 s window
  const r = new Reassembler(depacketizeVp8);
  const out: CompletedFrame[] = [];
  let max = 0;
  for (let k = 0; k < 600; k++) {
    for (let j = 0; j < 3; j++) {
      if (j === 1) continue;
      r.push((3 * k + j) & 0xffff, k * 750, j === 2, KEY, (k * 1e9) / 120, out);
      max = Math.max(max, r.stateSizes().pending);
    }
  }
  assert.ok(max <= 121 && max < MAX_PENDING, `pending ${max}`);
  assert.equal(r.incompleteFrames, 600 - 120 - 1);
});

test("annexb: an --fps so low that a frame lasts ≥ 2^32 ticks is a ClipError", () => {
  const au = Uint8Array.of(0, 0, 0, 1, 0x65, 0x88, 0x80);
  assert.equal(parseAnnexB(au, 0.5).ticks, 180000);
  for (const fps of [1e-5, 1e-300, 90000 / 2 ** 33]) {
    assert.throws(
      () => parseAnnexB(au, fps),
      (err: unknown) =>
        err instanceof ClipError && err.message === `h264: frame rate ${fps} is too low for the 90 kHz clock`,
    );
  }
});

test("vp8: an MTU of Infinity sends the frame as one packet", () => {
  const frame = Uint8Array.of(0x10, 1, 2, 3);
  const payloads = packetizeVp8(frame, Number.POSITIVE_INFINITY, 7);
  assert.equal(payloads.length, 1);
  assert.deepEqual(Array.from(depacketizeVp8(payloads)![0]!), Array.from(frame));
  assert.deepEqual(packetizeVp8(frame, Number.NaN, 7), []);
  assert.equal(packetizeVp8(frame, 5, 7).length, 4);
});
