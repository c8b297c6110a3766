// The render model's finder, chosen per frame as libwebrtc's rtp_frame_reference_finder.cc chooses
// it (src/core/render/finder-choice.ts, docs/definitions.md#decodable-frames): a stream that
// switches from PictureID-only to temporal-layer frames, one that drops its PictureIDs, one that
// drops its layer fields. Each later part is decided by the finder its frames carry, as a model
// that saw only that part decides it, less what the switch costs (the new finder needs a keyframe).
import assert from "node:assert/strict";
import { test } from "node:test";
import { RenderModel } from "../../src/core/render/render-model.ts";
import type { RenderCounters } from "../../src/core/types.ts";

const MS = 1e6;
const FRAME_MS = 1000 / 30;
const N = 90;
const SWITCH = 45;

type Head = "pid" | "layers" | "none";

/** A first packet: X set with I (15-bit PictureID), plus L and T for "layers"; "none": no X. */
function head(kind: Head, i: number, key: boolean): Uint8Array {
  const p = key ? 0x00 : 0x01;
  const pid = (700 + i) & 0x7fff;
  if (kind === "none") return Uint8Array.of(0x10, p, 1, 2);
  if (kind === "pid") return Uint8Array.of(0x90, 0x80, 0x80 | (pid >> 8), pid & 0xff, p, 1);
  // two layers, TL1 frames layer-sync: a lost TL1 frame costs itself alone (the VP8 finder's rule)
  const tid = i % 2;
  const t = (tid << 6) | (tid === 1 ? 0x20 : 0);
  return Uint8Array.of(0x90, 0xe0, 0x80 | (pid >> 8), pid & 0xff, (40 + (i >> 1)) & 0xff, t, p, 7);
}

/**
 * Frames `from`..N−1 (a keyframe every 30, 2 packets each) through `m`, the first part's heads
 * `a`, from SWITCH on `b`; `lose`: frames that never complete; `gapAfter`: a sequence number lost
 * after that frame (no frame's packet: a lost padding packet).
 */
function feed(m: RenderModel, from: number, a: Head, b: Head, lose: number[], gapAfter = -1): RenderCounters {
  for (let i = from; i < N; i++) {
    if (lose.includes(i)) continue;
    const key = i % 30 === 0;
    const lo = 5000 + 2 * i + (gapAfter >= 0 && i > gapAfter ? 1 : 0);
    m.frame({
      lo,
      hi: lo + 1,
      head: head(i < SWITCH ? a : b, i, key),
      keyframe: key,
      completedNs: i * FRAME_MS * MS,
      timestamp: i * 3000,
    });
  }
  return m.finish(N * FRAME_MS * MS);
}

/** The switched stream, and the model that saw its part after the switch alone. */
function both(a: Head, b: Head, lose: number[], gapAfter = -1): [RenderCounters, RenderCounters] {
  return [
    feed(new RenderModel("vp8"), 0, a, b, lose, gapAfter),
    feed(new RenderModel("vp8"), SWITCH, b, b, lose, gapAfter),
  ];
}

test("PictureID-only → temporal layers: the VP8 finder decides the later frames", () => {
  // frame 71 (TL1, its successors layer-sync) lost: the VP8 finder misses it alone
  const [r, after] = both("pid", "layers", [71]);
  assert.equal(r.finder, "frame-id", "the report names the first frame's finder");
  // a new VP8 finder knows no base-layer group: 45..59 wait for keyframe 60, as alone
  assert.equal(after.framesShown, N - SWITCH - 15 - 1, JSON.stringify(after));
  assert.equal(r.framesShown, SWITCH + after.framesShown, JSON.stringify(r));
  assert.equal(r.framesNotDecodable, after.framesNotDecodable);
  assert.equal(r.framesNotDecodable, 15);
  // one freeze (44 → 60); losing 71 alone is no freeze, where frame-id would freeze to the end
  assert.equal(r.freezes, 1);
  const [pidOnly] = both("pid", "pid", [71]);
  assert.equal(pidOnly.framesShown, N - 1 - (N - 72), "frame-id: 72..89 wait for 71");
});

test("PictureIDs dropped: the seq-num finder decides the later frames", () => {
  // a sequence number lost after frame 75: the seq-num chain breaks there, PictureIDs would not
  const [r, after] = both("pid", "none", [], 75);
  assert.equal(r.finder, "frame-id");
  // a new seq-num finder waits for a keyframe (45..59), then 76..89 wait behind the lost number
  assert.equal(after.framesShown, N - SWITCH - 15 - 14, JSON.stringify(after));
  assert.equal(r.framesShown, SWITCH + after.framesShown, JSON.stringify(r));
  assert.equal(r.framesNotDecodable, 15 + 14);
  const [kept] = both("pid", "pid", [], 75);
  assert.equal(kept.framesShown, N, "frame-id: the lost number is nothing to it");
});

test("layer fields dropped: frame-id continues the VP8 finder's PictureIDs, no frame lost", () => {
  const [r] = both("layers", "pid", []);
  assert.equal(r.finder, "vp8");
  assert.equal(r.framesShown, N, JSON.stringify(r));
  assert.equal(r.framesNotDecodable, 0);
  assert.equal(r.freezes, 0);
});

test("seq-num: padding before the first frame is dropped (libwebrtc has no finder for it yet)", () => {
  // H.264 keyframe 0 at 10..11; padding 12 overtakes packet 11 and arrives before frame 0 is
  // complete; delta frames from 13 on, 2 packets each, keyframe 30 at 71..72
  const run = (padAfterFrame: boolean): RenderCounters => {
    const m = new RenderModel("h264");
    for (let i = 0; i < 31; i++) {
      if (i === 0 && !padAfterFrame) m.padding(12, 0);
      const lo = i === 0 ? 10 : 11 + 2 * i;
      const key = i % 30 === 0;
      const head = Uint8Array.of(key ? 0x65 : 0x41);
      const at = i * FRAME_MS * MS + 1;
      m.frame({ lo, hi: lo + 1, head, keyframe: key, completedNs: at, timestamp: i * 3000 });
      if (i === 0 && padAfterFrame) m.padding(12, at);
    }
    return m.finish(32 * FRAME_MS * MS);
  };
  // after the first frame the seq-num finder keeps it, and the chain continues across it
  assert.deepEqual([run(true).framesShown, run(true).framesNotDecodable], [31, 0]);
  // before it, it is gone: frames 1..29 wait for sequence number 12 until keyframe 30
  assert.deepEqual([run(false).framesShown, run(false).framesNotDecodable], [2, 29]);
});
