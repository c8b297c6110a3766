// The viewer's first frame (issue 40, docs/definitions.md#reassembly): a server starts a viewer on a
// keyframe, so its first packet is often the keyframe's first. The reassembler proves that head at
// once — VP8's S with partition 0 always, H.264's SPS at the viewer's first packet — and the keyframe
// completes at its last packet's arrival, not a frame later (VP8) or never (H.264, whose keyframe
// classes were learnt only from a later keyframe, after the first had expired). A first packet that
// is not a frame's first (the viewer started mid-frame) still proves nothing.
import assert from "node:assert/strict";
import { test } from "node:test";
import { depacketizeH264 } from "../../src/core/codec/h264.ts";
import { depacketizeVp8 } from "../../src/core/codec/vp8.ts";
import { H264_FRAME_START, VP8_FRAME_START } from "../../src/core/delay/viewer-pipeline.ts";
import { type CompletedFrame, Reassembler } from "../../src/core/rtp/reassembler.ts";

const MS = 1e6;

/** Frames of payloads from seq 100, ts 3000 apart, packet at seq s at s × 10 ms (`lost` never arrive). */
function feed(r: Reassembler, frames: Uint8Array[][], lost: number[] = []): CompletedFrame[] {
  const out: CompletedFrame[] = [];
  let seq = 100;
  frames.forEach((f, i) => {
    f.forEach((p, j) => {
      const s = seq++;
      if (!lost.includes(s)) r.push(s, 3000 * (i + 1), j === f.length - 1, p, (s - 99) * 10 * MS, out);
    });
  });
  return out;
}

const summary = (out: CompletedFrame[]) => out.map((f) => [f.timestamp, f.keyframe, f.completedNs / MS]);

// VP8: S with partition 0 and P 0 (a keyframe), S with P 1 (a delta frame), a continuation
const vKey = Uint8Array.of(0x10, 0x00, 0xaa);
const vDelta = Uint8Array.of(0x10, 0x01, 0xbb);
const vc = Uint8Array.of(0x00, 0xcc);
// H.264: STAP-A (SPS, PPS), an IDR slice in FU-A fragments, a P slice, an AUD
const stapSpsPps = Uint8Array.of(0x78, 0, 2, 0x67, 0x42, 0, 2, 0x68, 0xce);
const idrStart = Uint8Array.of(0x7c, 0x85, 0x88, 1, 2);
const idrMid = Uint8Array.of(0x7c, 0x05, 5, 6);
const idrEnd = Uint8Array.of(0x7c, 0x45, 3, 4);
const pSlice = Uint8Array.of(0x41, 0x9a, 5);
const aud = Uint8Array.of(0x09, 0xf0);

test("VP8: the viewer's first packet is a keyframe's first — the keyframe completes at its last packet", () => {
  const r = new Reassembler(depacketizeVp8, VP8_FRAME_START);
  const out = feed(r, [[vKey, vc, vc], [vDelta, vc], [vDelta]]);
  assert.deepEqual(summary(out), [
    [3000, true, 30],
    [6000, false, 50],
    [9000, false, 60],
  ]);
});

test("H.264: the viewer's first packet is a keyframe's STAP-A (SPS, PPS) — complete at its last packet", () => {
  const r = new Reassembler(depacketizeH264, H264_FRAME_START);
  const out = feed(r, [[stapSpsPps, idrStart, idrMid, idrEnd], [pSlice], [pSlice]]);
  assert.deepEqual(summary(out), [
    [3000, true, 40],
    [6000, false, 50],
    [9000, false, 60],
  ]);
});

test("a first packet that is not a frame's first (mid-frame) proves nothing; the next frame completes", () => {
  // VP8: the viewer starts on the keyframe's second packet; its later packets and frames complete
  const v = new Reassembler(depacketizeVp8, VP8_FRAME_START);
  assert.deepEqual(summary(feed(v, [[vc, vc], [vDelta, vc], [vDelta]])), [
    [6000, false, 40],
    [9000, false, 50],
  ]);
  // H.264: on an IDR's middle fragment; on the IDR's first fragment, its parameter sets (sent
  // before the viewer started) missing — an IDR slice follows them, so it is not a head here
  for (const first of [
    [idrMid, idrEnd],
    [idrStart, idrMid, idrEnd],
  ]) {
    const h = new Reassembler(depacketizeH264, H264_FRAME_START);
    const out = feed(h, [first, [pSlice], [pSlice]]);
    assert.deepEqual(
      out.map((f) => f.timestamp),
      [6000, 9000],
    );
  }
});

test("H.264: an SPS proves a head only at the viewer's first packet; an AUD always", () => {
  // keyframes at 3000 and 9000, the second's packet before (6000's only packet) lost: no keyframe
  // was proven by its packet before, so SPS is not learnt, and it is not the viewer's first packet
  const frames = [[stapSpsPps, idrStart, idrEnd], [pSlice], [stapSpsPps, idrStart, idrEnd], [pSlice]];
  const out = feed(new Reassembler(depacketizeH264, H264_FRAME_START), frames, [103]);
  assert.deepEqual(
    out.map((f) => f.timestamp),
    [3000, 12000],
  );
  // the same with an AUD first in every access unit: the keyframe after the loss is complete
  const withAud = frames.map((f) => [aud, ...f]);
  const out2 = feed(new Reassembler(depacketizeH264, H264_FRAME_START), withAud, [105]);
  assert.deepEqual(
    out2.map((f) => f.timestamp),
    [3000, 9000, 12000],
  );
});
