// The codec head proof (issue 11): a frame whose first packet the codec marks as a frame start
// is complete without the packet before it, so losing frame N's last packet no longer costs the
// complete frame N + 1; a frame whose real first packet was lost stays incomplete.
import assert from "node:assert/strict";
import { test } from "node:test";
import { depacketizeH264, frameStartH264, idrPartH264 } from "../../src/core/codec/h264.ts";
import { depacketizeVp8, frameStartVp8 } from "../../src/core/codec/vp8.ts";
import { H264_FRAME_START, VP8_FRAME_START } from "../../src/core/delay/viewer-pipeline.ts";
import { type CompletedFrame, Reassembler } from "../../src/core/rtp/reassembler.ts";

const MS = 1e6;

interface Pkt {
  seq: number;
  ts: number;
  marker: boolean;
  payload: Uint8Array;
}

/** Pushes the packets 10 ms apart from `startMs` (those whose seq is in `lost` never arrive); returns the completed timestamps. */
function feed(r: Reassembler, pkts: Pkt[], lost: number[], startMs = 0): number[] {
  const done: number[] = [];
  const out: CompletedFrame[] = [];
  let ms = startMs;
  for (const p of pkts) {
    ms += 10;
    if (lost.includes(p.seq)) continue;
    out.length = 0;
    r.push(p.seq, p.ts, p.marker, p.payload, ms * MS, out);
    for (const f of out) done.push(f.timestamp);
  }
  return done;
}

/** One more packet 1.5 s later: every frame still pending expires (and is counted unless it is the first). */
function expireAll(r: Reassembler, after: Pkt[]): void {
  const last = after[after.length - 1]!;
  r.push((last.seq + 1) & 0xffff, (last.ts + 90000) >>> 0, true, Uint8Array.of(0x10, 0), 1e6 * MS, []);
}

// VP8: S = 1 with partition 0 starts a frame; 0x00 continues it; 0x11 (S, partition 1) starts a later partition
const vs = Uint8Array.of(0x10, 0xaa);
const vc = Uint8Array.of(0x00, 0xbb);
const vPart1 = Uint8Array.of(0x11, 0xcc);

/** VP8 frames of `sizes` packets from seq 10, ts 3000 apart from 3000 (a first frame at seq 9, ts 0, before them). */
function vp8Stream(sizes: number[]): Pkt[] {
  const pkts: Pkt[] = [{ seq: 9, ts: 0, marker: true, payload: vs }];
  let seq = 10;
  sizes.forEach((n, i) => {
    for (let j = 0; j < n; j++) {
      pkts.push({ seq: seq++, ts: 3000 * (i + 1), marker: j === n - 1, payload: j === 0 ? vs : vc });
    }
  });
  return pkts;
}

test("frame-start classes: VP8 S with partition 0 only; H.264 units that can begin an access unit", () => {
  assert.equal(frameStartVp8(vs), 0);
  assert.equal(frameStartVp8(vc), -1);
  assert.equal(frameStartVp8(vPart1), -1, "S on a later partition is not a frame start");
  assert.equal(frameStartVp8(new Uint8Array(0)), -1);
  assert.equal(frameStartH264(Uint8Array.of(0x41, 0x9a)), 1, "slice, first_mb_in_slice 0");
  assert.equal(frameStartH264(Uint8Array.of(0x41, 0x1a)), -1, "slice, first_mb_in_slice > 0");
  assert.equal(frameStartH264(Uint8Array.of(0x65, 0x88)), 5);
  assert.equal(frameStartH264(Uint8Array.of(0x09, 0xf0)), 9, "AUD");
  assert.equal(frameStartH264(Uint8Array.of(0x06, 0x05)), 6, "SEI");
  assert.equal(frameStartH264(Uint8Array.of(0x78, 0, 2, 0x67, 0x42, 0, 2, 0x68, 0xce)), 7, "STAP-A of SPS");
  assert.equal(frameStartH264(Uint8Array.of(0x7c, 0x85, 0x88)), 5, "FU-A start of an IDR slice");
  assert.equal(frameStartH264(Uint8Array.of(0x7c, 0x05, 0x88)), -1, "FU-A continuation");
  assert.equal(frameStartH264(Uint8Array.of(0x7c, 0x45, 0x88)), -1, "FU-A end");
  assert.equal(frameStartH264(Uint8Array.of(0x43, 0x9a)), -1, "partition B never starts");
  assert.equal(frameStartH264(Uint8Array.of(0x78, 0, 9, 0x67)), -1, "truncated STAP-A");
  assert.equal(frameStartH264(Uint8Array.of(0x7a, 0x85, 0x88)), -1, "STAP-B is not parsed");
  // the kind of frame a packet belongs to: part of an IDR picture or not
  assert.equal(idrPartH264(Uint8Array.of(0x65, 0x88)), true);
  assert.equal(idrPartH264(Uint8Array.of(0x7c, 0x05, 0x88)), true, "an FU-A continuation of an IDR slice");
  assert.equal(
    idrPartH264(Uint8Array.of(0x78, 0, 2, 0x67, 0x42, 0, 2, 0x65, 0x88)),
    true,
    "STAP-A with an IDR slice",
  );
  assert.equal(
    idrPartH264(Uint8Array.of(0x78, 0, 2, 0x67, 0x42, 0, 2, 0x68, 0xce)),
    false,
    "parameter sets only",
  );
  assert.equal(idrPartH264(Uint8Array.of(0x41, 0x9a)), false);
});

test("VP8: the last packet of frame N lost — frame N + 1 is complete; only N is incomplete", () => {
  const pkts = vp8Stream([2, 3, 2, 2]); // frames at ts 3000 (seq 10-11), 6000 (12-14), 9000 (15-16), 12000 (17-18)
  const codec = new Reassembler(depacketizeVp8, VP8_FRAME_START);
  // the first frame (ts 0) starts with its S packet: complete at once, before 3000
  assert.deepEqual(feed(codec, pkts, [14]), [0, 3000, 9000, 12000]);
  expireAll(codec, pkts);
  assert.equal(codec.incompleteFrames, 1);

  // without the codec rule (the reference tool's), frame N + 1 loses its head proof too
  const seqOnly = new Reassembler(depacketizeVp8);
  assert.deepEqual(feed(seqOnly, pkts, [14]), [3000, 12000]);
  expireAll(seqOnly, pkts);
  assert.equal(seqOnly.incompleteFrames, 2);
});

test("VP8: a frame whose real first packet was lost stays incomplete, whatever follows", () => {
  const pkts = vp8Stream([2, 3, 2, 2]);
  const r = new Reassembler(depacketizeVp8, VP8_FRAME_START);
  // frame 6000 loses its S packet (12); 13, 14 arrive, the previous frame is whole
  assert.deepEqual(feed(r, pkts, [12]), [0, 3000, 9000, 12000]);
  expireAll(r, pkts);
  assert.equal(r.incompleteFrames, 1);

  // a later partition's S bit does not prove the head either
  const parts: Pkt[] = vp8Stream([2, 3]);
  parts[4] = { ...parts[4]!, payload: vPart1 }; // seq 13: S with partition 1
  const r2 = new Reassembler(depacketizeVp8, VP8_FRAME_START);
  assert.deepEqual(feed(r2, parts, [12]), [0, 3000]);
  expireAll(r2, parts);
  assert.equal(r2.incompleteFrames, 1);
});

test("VP8: S with partition 0 proves the head at once, nothing learnt (libwebrtc's VP8 packet buffer)", () => {
  // 3000's last packet (11) lost: no frame's head was proven by its packet before, yet 6000 (12-13)
  // completes at 13 (its S packet is certain), not once 9000 has shown that S starts frames
  const pkts = vp8Stream([2, 2, 2, 1]);
  const r = new Reassembler(depacketizeVp8, VP8_FRAME_START);
  assert.deepEqual(feed(r, pkts, [11]), [0, 6000, 9000, 12000]);
  expireAll(r, pkts);
  assert.equal(r.incompleteFrames, 1);
});

// H.264 payloads
const stapSpsPps = Uint8Array.of(0x78, 0, 2, 0x67, 0x42, 0, 2, 0x68, 0xce);
const idrStart = Uint8Array.of(0x7c, 0x85, 0x88, 1, 2);
const idrEnd = Uint8Array.of(0x7c, 0x45, 3, 4);
const pSlice = Uint8Array.of(0x41, 0x9a, 5); // first_mb_in_slice 0
const pSlice2 = Uint8Array.of(0x41, 0x1a, 6); // a second slice of the same picture
const sei = Uint8Array.of(0x06, 0x05, 1, 0x80);

/** H.264 access units (arrays of payloads) from seq 10, ts 3000 apart from 3000, after a first unit at seq 9. */
function h264Stream(units: Uint8Array[][]): Pkt[] {
  const pkts: Pkt[] = [{ seq: 9, ts: 0, marker: true, payload: pSlice }];
  let seq = 10;
  units.forEach((u, i) => {
    u.forEach((payload, j) => {
      pkts.push({ seq: seq++, ts: 3000 * (i + 1), marker: j === u.length - 1, payload });
    });
  });
  return pkts;
}

test("H.264: the last packet of access unit N lost — N + 1 is complete; a keyframe that lost its parameter sets is not", () => {
  const key = [stapSpsPps, idrStart, idrEnd];
  const p2 = [pSlice, pSlice2];
  // ts 3000 key (10-12), 6000 P (13), 9000 P two slices (14-15), 12000 P (16), 15000 key (17-19), 18000 P (20)
  const pkts = h264Stream([key, [pSlice], p2, [pSlice], key, [pSlice]]);
  const r = new Reassembler(depacketizeH264, H264_FRAME_START);
  // 15 (the last slice of 9000) and 17 (the keyframe's SPS/PPS) are lost
  assert.deepEqual(feed(r, pkts, [15, 17]), [3000, 6000, 0, 12000, 18000]);
  expireAll(r, pkts);
  assert.equal(
    r.incompleteFrames,
    2,
    "9000 lost its end, 15000 its first packet (an IDR slice follows its parameter sets)",
  );

  const seqOnly = new Reassembler(depacketizeH264);
  assert.deepEqual(feed(seqOnly, pkts, [15, 17]), [3000, 6000, 18000]);
  expireAll(seqOnly, pkts);
  assert.equal(seqOnly.incompleteFrames, 3, "12000 too");
});

test("H.264: a keyframe whose parameter-set packet is whole is complete after a lost end", () => {
  const key = [stapSpsPps, idrStart, idrEnd];
  const pkts = h264Stream([key, [pSlice, pSlice2], key, [pSlice]]); // 10-12, 13-14, 15-17, 18
  const r = new Reassembler(depacketizeH264, H264_FRAME_START);
  assert.deepEqual(feed(r, pkts, [14]), [3000, 9000, 12000]);
  expireAll(r, pkts);
  assert.equal(r.incompleteFrames, 1);
});

test("H.264: a sender that puts an SEI before every slice — losing the SEI leaves the frame incomplete", () => {
  const pkts = h264Stream([
    [sei, pSlice],
    [sei, pSlice],
    [sei, pSlice, pSlice2],
    [sei, pSlice],
    [sei, pSlice],
  ]); // 10-11, 12-13, 14-16, 17-18, 19-20
  const r = new Reassembler(depacketizeH264, H264_FRAME_START);
  // 16: the end of 9000 lost, so 12000's SEI (17) proves its head; 19: 15000's SEI lost, its slice follows one
  assert.deepEqual(feed(r, pkts, [16, 19]), [3000, 6000, 12000]);
  expireAll(r, pkts);
  assert.equal(r.incompleteFrames, 2);
});

test("H.264: classes are learnt apart for keyframes — an SEI first in delta frames proves nothing in a keyframe", () => {
  const key = [stapSpsPps, sei, idrStart, idrEnd];
  // ts 3000 (10-11), 6000 (12-13), 9000 key (14-17), 12000 (18-19): delta frames begin with an SEI
  const pkts = h264Stream([[sei, pSlice], [sei, pSlice], key, [sei, pSlice]]);
  const r = new Reassembler(depacketizeH264, H264_FRAME_START);
  // 13 (6000's slice) and 14 (the keyframe's parameter sets) lost: the keyframe's lowest packet is
  // an SEI, which this stream has shown first only in delta frames
  assert.deepEqual(feed(r, pkts, [13, 14]), [3000, 12000]);
  expireAll(r, pkts);
  assert.equal(r.incompleteFrames, 2);
});
