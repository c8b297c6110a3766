// The render model's generic finder (src/core/render/generic-ref-finder.ts, frame-descriptors.ts,
// docs/definitions.md#decodable-frames) on an L1T2 stream whose packets carry hand-built dependency
// descriptors (bench/dd-writer.ts): even frames the base layer (each references the one two
// before), odd frames the top layer (each references the frame before), a keyframe every 30.
import assert from "node:assert/strict";
import { test } from "node:test";
import { customDescriptor, deltaDescriptor, keyframeDescriptor } from "../../bench/dd-writer.ts";
import { GenericRefFinder } from "../../src/core/render/generic-ref-finder.ts";
import { RenderModel } from "../../src/core/render/render-model.ts";
import type { RenderCounters } from "../../src/core/types.ts";

const MS = 1e6;
const FRAME_MS = 1000 / 30;
const N = 90;
const FIRST = 65500; // frame numbers wrap at 65536 within the stream

interface Options {
  /** frames that never arrive */
  lose?: number[];
  /** frames whose packets carry no descriptor (false: every frame's do) */
  descriptors?: boolean;
  /** the descriptor of frame i's first packet, instead of the L1T2 one */
  custom?: (i: number) => Uint8Array | null;
}

/** Frames 0..N−1, 2 packets each, through a VP8 model; the VP8 payloads carry 15-bit PictureIDs. */
function run(o: Options): RenderCounters {
  const m = new RenderModel("vp8");
  for (let i = 0; i < N; i++) {
    if (o.lose?.includes(i)) continue;
    const key = i % 30 === 0;
    const n = (FIRST + i) & 0xffff;
    const lo = 4000 + 2 * i;
    if (o.descriptors !== false) {
      const template = key ? 0 : i % 2 === 0 ? 1 : 2;
      const first =
        o.custom?.(i) ?? (key ? keyframeDescriptor(n, false) : deltaDescriptor(n, template, true, false));
      m.descriptor(lo, first, 0, first.length);
      const last = deltaDescriptor(n, template, false, true);
      m.descriptor(lo + 1, last, 0, last.length);
    }
    const pid = 300 + i;
    const head = Uint8Array.of(0x90, 0x80, 0x80 | (pid >> 8), pid & 0xff, key ? 0 : 1, 1);
    m.frame({ lo, hi: lo + 1, head, keyframe: key, completedNs: i * FRAME_MS * MS, timestamp: i * 3000 });
  }
  return m.finish(N * FRAME_MS * MS);
}

test("every frame arrives: the generic finder shows them all", () => {
  const r = run({});
  assert.equal(r.finder, "generic");
  assert.deepEqual([r.framesShown, r.framesNotDecodable, r.framesLate, r.freezes], [N, 0, 0, 0]);
});

test("a lost frame nothing references costs that frame alone", () => {
  const r = run({ lose: [41] });
  assert.deepEqual([r.framesShown, r.framesNotDecodable], [N - 1, 0]);
  // the same stream read by PictureID alone (no descriptors): the frame-id finder waits for 41
  const byPid = run({ lose: [41], descriptors: false });
  assert.equal(byPid.finder, "frame-id");
  assert.equal(byPid.framesShown, N - 1 - (59 - 41));
});

test("a lost frame others reference stops them until the next keyframe", () => {
  const r = run({ lose: [40] });
  // 41 (→ 40), 42 (→ 40) and every frame after them reference it, up to the keyframe at 60
  assert.equal(r.framesShown, N - 20);
  assert.equal(r.framesNotDecodable, 19);
  assert.ok(r.freezes >= 1);
  assert.ok(r.recoveries >= 1);
});

test("a frame whose descriptor cannot be read is dropped, as its packet is", () => {
  // frame 0's keyframe descriptor lost its structure: nothing is readable until the keyframe at 30
  const r = run({ custom: (i) => (i === 0 ? deltaDescriptor(FIRST, 0, true, false) : null) });
  assert.equal(r.framesShown, N - 30);
  assert.equal(r.framesNotDecodable, 30);
});

test("a frame with more than 5 references is dropped (kMaxFrameReferences)", () => {
  const r = run({
    custom: (i) => (i === 51 ? customDescriptor((FIRST + i) & 0xffff, 2, [1, 2, 3, 5, 7, 9]) : null),
  });
  // 51 dropped; 52 references 50 (shown); 53 references 52 (shown): only 51 is lost
  assert.deepEqual([r.framesShown, r.framesNotDecodable], [N - 1, 1]);
});

test("frames wait for references that arrive late, then are handed on in id order", () => {
  const got: number[] = [];
  const f = new GenericRefFinder((id) => got.push(id));
  const d = (...x: number[]) => Int32Array.from(x);
  assert.equal(f.frame(10, d(), 0, true, 0, 0, 0), false);
  assert.equal(f.frame(13, d(1), 1, false, 0, 0, 0), true); // → 12, not yet here
  assert.equal(f.frame(12, d(1, 2), 2, false, 0, 0, 0), true); // → 11 and 10
  assert.equal(f.frame(11, d(1), 1, false, 0, 0, 0), false);
  assert.deepEqual(got, [10, 11, 12, 13]);
  assert.equal(f.waiting, 0);
  // 15 waits for 14, lost; 16 references 10 alone: handed on, and 15 is overtaken (given up)
  assert.equal(f.frame(15, d(1), 1, false, 0, 0, 0), true);
  assert.equal(f.frame(16, d(6), 1, false, 0, 0, 0), false);
  assert.deepEqual([f.waiting, f.dropped], [0, 1]);
  // 14 arriving now is handed on for the caller to count late (at or before the last)
  f.frame(14, d(1), 1, false, 0, 0, 0);
  assert.deepEqual(got, [10, 11, 12, 13, 16, 14]);
});
