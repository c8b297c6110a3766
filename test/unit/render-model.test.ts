// The render model (docs/definitions.md#decodable-frames): libwebrtc's frame-id finder for VP8
// with a PictureID, the seq-num finder for H.264 and VP8 without one, late frames, the stash,
// recoveries, PLIs answered, the end gap; and the frame keyframe tests, STAP-A included.
import assert from "node:assert/strict";
import { test } from "node:test";
import { packetizeVp8 } from "../../src/core/codec/vp8.ts";
import type { RenderFrame } from "../../src/core/render/render-frame.ts";
import { RenderModel } from "../../src/core/render/render-model.ts";
import { H264_FRAME_START, VP8_FRAME_START } from "../../src/core/rtp/codec-frames.ts";

const MS = 1e6;
const FRAME_MS = 1000 / 30;

/** A VP8 first packet with this PictureID (15 bits), a keyframe or not. */
function vp8Head(pid: number, key: boolean): Uint8Array {
  return packetizeVp8(Uint8Array.of(key ? 0x00 : 0x01, 1, 2, 3), 1200, pid)[0]!;
}

/** A VP8 first packet without X (no PictureID). */
function vp8HeadNoPid(key: boolean): Uint8Array {
  return Uint8Array.of(0x10, key ? 0x00 : 0x01, 1, 2);
}

/** VP8 frame i of a stream with a 30-frame GOP, 3 packets each, PictureID i, completed at i frames. */
function vp8Frame(i: number, atMs = i * FRAME_MS, gop = 30): RenderFrame {
  const key = i % gop === 0;
  return {
    lo: 1000 + 3 * i,
    hi: 1002 + 3 * i,
    head: vp8Head(i & 0x7fff, key),
    keyframe: key,
    completedNs: atMs * MS,
    timestamp: i * 3000,
  };
}

test("frame-id: a lost delta frame hides every frame up to the next keyframe (one freeze)", () => {
  const m = new RenderModel("vp8");
  for (let i = 0; i < 90; i++) if (i !== 40) m.frame(vp8Frame(i));
  // the playout shows each frame 11 ms after it completed: the viewer ends a frame after the last
  const r = m.finish(90 * FRAME_MS * MS);
  assert.equal(r.finder, "frame-id");
  // 41..59 wait for 40 and are dropped when keyframe 60 shows
  assert.equal(r.framesShown, 90 - 1 - 19);
  assert.equal(r.framesNotDecodable, 19);
  assert.equal(r.freezes, 1);
  // frame 39 → keyframe 60: 21 frame intervals (both shown 11 ms after they completed)
  assert.ok(Math.abs(r.frozenMs - (Math.floor(60 * FRAME_MS) - Math.floor(39 * FRAME_MS))) <= 1);
  assert.equal(r.recoveries, 1);
  assert.ok(r.endGapMs >= 21 && r.endGapMs <= 23, `${r.endGapMs}`);
  assert.equal(m.recoveryHist.count, 1);
  // broken at frame 41's completion, recovered when 60 shows (11 ms after it completed): 644 ms
  // (the histogram keeps 2 digits)
  const ms = m.recoveryHist.quantileNs(1) / MS;
  assert.ok(Math.abs(ms - ((60 - 41) * FRAME_MS + 11)) < 5, `${ms}`);
});

test("frame-id: a frame completed out of order waits; once decodable, past its time, it is skipped", () => {
  const m = new RenderModel("vp8");
  for (let i = 0; i < 10; i++) m.frame(vp8Frame(i));
  m.frame(vp8Frame(11, 11 * FRAME_MS));
  m.frame(vp8Frame(10, 11 * FRAME_MS + 20)); // repaired by a retransmission, 20 ms after 11
  for (let i = 12; i < 20; i++) m.frame(vp8Frame(i));
  const r = m.finish(20 * FRAME_MS * MS);
  // 10 becomes decodable 42 ms after its decode time with 11 waiting behind it: skipped (late), as
  // FrameBuffer3 fast-forwards; 11 is shown, the chain goes on
  assert.equal(r.framesShown, 19);
  assert.equal(r.framesNotDecodable, 0);
  assert.equal(r.framesLate, 1);
  assert.equal(r.recoveries, 1);
});

test("frame-id: a frame repaired within the playout delay is shown, not skipped", () => {
  const m = new RenderModel("vp8");
  for (let i = 0; i < 10; i++) m.frame(vp8Frame(i));
  m.frame(vp8Frame(11, 10 * FRAME_MS + 2));
  m.frame(vp8Frame(10, 10 * FRAME_MS + 4)); // 4 ms late: within its 11 ms of playout delay
  for (let i = 12; i < 20; i++) m.frame(vp8Frame(i));
  const r = m.finish(20 * FRAME_MS * MS);
  assert.equal(r.framesShown, 20);
  assert.equal(r.framesLate, 0);
  assert.equal(r.freezes, 0);
});

test("frame-id: a frame completing after a later keyframe was shown is late", () => {
  const m = new RenderModel("vp8");
  for (let i = 0; i < 30; i++) if (i !== 20) m.frame(vp8Frame(i));
  m.frame(vp8Frame(30));
  m.frame(vp8Frame(20, 30 * FRAME_MS + 5)); // its retransmission arrived after keyframe 30
  const r = m.finish(31 * FRAME_MS * MS);
  assert.equal(r.framesLate, 1);
  assert.equal(r.framesNotDecodable, 9); // 21..29
  assert.equal(r.framesShown, 20 + 1);
});

test("frame-id: deltas before the first keyframe are not decodable, no recovery counted", () => {
  const m = new RenderModel("vp8");
  for (let i = 20; i < 40; i++) m.frame(vp8Frame(i));
  const r = m.finish(40 * FRAME_MS * MS);
  assert.equal(r.framesNotDecodable, 10); // 20..29 waited for a reference that never came
  assert.equal(r.framesShown, 10);
  assert.equal(r.recoveries, 0);
  // first shown (keyframe 30, at once) → last shown (39, 11 ms after it completed)
  assert.ok(Math.abs(r.measuredMs - (39 * FRAME_MS + 11 - 30 * FRAME_MS)) <= 1, `${r.measuredMs}`);
});

test("frame-id: the 15-bit PictureID wraps", () => {
  const m = new RenderModel("vp8");
  for (let i = 0; i < 40; i++) {
    const pid = (32760 + i) & 0x7fff;
    m.frame({
      lo: i,
      hi: i,
      head: vp8Head(pid, i === 0),
      keyframe: i === 0,
      completedNs: i * FRAME_MS * MS,
      timestamp: i * 3000,
    });
  }
  const r = m.finish(40 * FRAME_MS * MS);
  assert.equal(r.framesShown, 40);
  assert.equal(r.framesNotDecodable, 0);
});

test("seq-num (VP8 without PictureID, H.264): a delta passes only when its first packet follows the last shown", () => {
  const m = new RenderModel("vp8");
  // frames of 2 packets: frame i at 10 + 2i .. 11 + 2i; frame 5 lost
  const f = (i: number, at = i * FRAME_MS): RenderFrame => ({
    lo: 10 + 2 * i,
    hi: 11 + 2 * i,
    head: vp8HeadNoPid(i % 30 === 0),
    keyframe: i % 30 === 0,
    completedNs: at * MS,
    timestamp: i * 3000,
  });
  for (let i = 0; i < 45; i++) if (i !== 5) m.frame(f(i));
  const r = m.finish(45 * FRAME_MS * MS);
  assert.equal(r.finder, "seq-num");
  assert.equal(r.framesShown, 45 - 1 - 24);
  assert.equal(r.framesNotDecodable, 24);
  assert.equal(r.freezes, 1);
  const h = new RenderModel("h264");
  for (let i = 0; i < 10; i++) h.frame({ ...f(i), head: Uint8Array.of(0x41) });
  assert.equal(h.finish(10 * FRAME_MS * MS).finder, "seq-num");
});

test("end gap: last shown frame → the viewer's end; −1 when nothing was shown", () => {
  const m = new RenderModel("vp8");
  for (let i = 0; i < 30; i++) m.frame(vp8Frame(i));
  const r = m.finish(29 * FRAME_MS * MS + 7000 * MS);
  // the last frame shown 11 ms after it completed
  assert.ok(Math.abs(r.endGapMs - (7000 - 11)) <= 1, `${r.endGapMs}`);
  assert.equal(r.freezes, 0); // a gap at the end is never a freeze
  assert.ok(r.measuredMs < 1000, "nor judged: the span is first → last shown frame");
  assert.equal(new RenderModel("vp8").finish(1e9).endGapMs, -1);
});

test("PLIs are answered by the next keyframe shown, each with its own interval", () => {
  const m = new RenderModel("vp8");
  for (let i = 0; i < 35; i++) m.frame(vp8Frame(i));
  m.pliSent(35 * FRAME_MS * MS);
  m.pliSent(36 * FRAME_MS * MS);
  for (let i = 35; i < 61; i++) m.frame(vp8Frame(i));
  const r = m.finish(61 * FRAME_MS * MS);
  assert.equal(r.plisSent, 2);
  assert.equal(r.plisAnswered, 2);
  assert.equal(m.pliKeyframeHist.count, 2);
});

test("frame keyframe tests: VP8 P bit; H.264 IDR single, inside STAP-A and FU-A", () => {
  const vp8 = VP8_FRAME_START.frameKey!;
  assert.equal(vp8(vp8Head(1, true), [], 0), true);
  assert.equal(vp8(vp8Head(1, false), [], 0), false);
  const h264 = H264_FRAME_START.frameKey!;
  const idr = Uint8Array.of(0x65, 0x88, 1, 2);
  const sps = Uint8Array.of(0x67, 0x42, 0, 0x1e);
  const stapA = (...units: Uint8Array[]): Uint8Array => {
    const out: number[] = [0x78];
    for (const u of units) out.push(u.length >> 8, u.length & 0xff, ...u);
    return Uint8Array.from(out);
  };
  // an IDR inside a STAP-A (after SPS), the whole frame one packet
  const one = stapA(sps, idr);
  assert.equal(h264(one, [one], 1), true);
  // a STAP-A of SPS/PPS then a non-IDR slice: not a keyframe
  const sp = stapA(sps, Uint8Array.of(0x68, 0xce));
  assert.equal(h264(sp, [sp, Uint8Array.of(0x41, 0x9a)], 2), false);
  // FU-A fragments of an IDR (the middle one has no start bit)
  const fu = (s: number): Uint8Array => Uint8Array.of(0x7c, s | 0x05, 9, 9);
  assert.equal(h264(fu(0x80), [fu(0x80), fu(0), fu(0x40)], 3), true);
  // a STAP-A whose second byte happens to look like an IDR header is judged by its units
  const tricky = stapA(Uint8Array.of(0x41, 1), Uint8Array.of(0x41, 2));
  tricky[2] = 0x02;
  assert.equal(h264(tricky, [tricky], 1), false);
});

test("seq-num: padding-only packets between frames continue the chain (bandwidth probing)", () => {
  // H.264 frames of 2 packets; after frame 10, a server sends 3 padding-only packets (seq 32..34),
  // so frame 11 starts at 35: with the padding seen it continues the chain, without it it waits
  const f = (i: number): RenderFrame => {
    const lo = 10 + 2 * i + (i > 10 ? 3 : 0);
    return {
      lo,
      hi: lo + 1,
      head: Uint8Array.of(i % 30 === 0 ? 0x65 : 0x41),
      keyframe: i % 30 === 0,
      completedNs: i * FRAME_MS * MS,
      timestamp: i * 3000,
    };
  };
  const run = (padding: boolean, paddingFirst: boolean) => {
    const m = new RenderModel("h264");
    for (let i = 0; i < 31; i++) {
      const pad = () => {
        for (const s of [32, 33, 34]) m.padding(s, (10 * FRAME_MS + 1) * MS);
      };
      if (padding && paddingFirst && i === 10) pad(); // the padding overtook frame 10's packets
      m.frame(f(i));
      if (padding && !paddingFirst && i === 10) pad();
    }
    return m.finish(32 * FRAME_MS * MS);
  };
  assert.equal(run(true, false).framesShown, 31);
  assert.equal(run(true, true).framesShown, 31);
  const without = run(false, false);
  assert.equal(without.framesShown, 12); // 0..10, then keyframe 30
  assert.equal(without.framesNotDecodable, 19);
  // a VP8 stream with PictureIDs (frame-id) does not look at sequence numbers at all
  const vp8 = new RenderModel("vp8");
  for (let i = 0; i < 20; i++) {
    const fr = vp8Frame(i);
    vp8.frame(i > 10 ? { ...fr, lo: fr.lo + 3, hi: fr.hi + 3 } : fr);
  }
  assert.equal(vp8.finish(21 * FRAME_MS * MS).framesShown, 20);
});

/** A VP8 first packet with a 7-bit PictureID. */
function vp8Head7(pid: number, key: boolean): Uint8Array {
  return Uint8Array.of(0x90, 0x80, pid & 0x7f, key ? 0x00 : 0x01, 1, 2);
}

test("frame-id: 7-bit PictureIDs wrap as libwebrtc reads them: refused after 127 → 0 until a keyframe", () => {
  const m = new RenderModel("vp8");
  for (let i = 0; i < 300; i++) {
    const key = i % 30 === 0;
    m.frame({
      lo: 3 * i,
      hi: 3 * i + 2,
      head: vp8Head7(i, key),
      keyframe: key,
      completedNs: i * FRAME_MS * MS,
      timestamp: i * 3000,
    });
  }
  const r = m.finish(301 * FRAME_MS * MS);
  // pid 0 at frames 128 and 256 steps back in libwebrtc's 15-bit space: 128..149 and 256..269 are
  // refused (late) until keyframes 150 and 270 clear the buffer
  assert.equal(r.framesLate, 22 + 14);
  assert.equal(r.framesShown, 300 - 36);
  assert.equal(r.freezes, 2);
});
