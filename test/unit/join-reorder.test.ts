// The join rule under reordering (docs/definitions.md#first-complete-keyframe): hand-built VP8
// packets whose keyframe arrives out of order — its marker before its middle, its first packet
// last — through ViewerPipeline. The viewer joins when the reassembler completes the keyframe,
// the same frames the render model shows; the in-order rule alone (RtpStats) never saw it whole.
import assert from "node:assert/strict";
import { test } from "node:test";
import { plainPipeline } from "../../bench/plain-pipeline.ts";
import { keyframeStartVp8, packetizeVp8 } from "../../src/core/codec/vp8.ts";
import type { ViewerPipeline } from "../../src/core/delay/viewer-pipeline.ts";
import { RtpStats } from "../../src/core/rtp/stats.ts";

const MS = 1e6;
const FRAME_NS = 1e9 / 30;

interface Pkt {
  seq: number;
  ts: number;
  marker: boolean;
  payload: Uint8Array;
}

/** A 30 fps VP8 stream, a keyframe every `gop` frames from frame `firstKey`; 1 200-byte frames. */
function packets(frames: number, gop: number, firstKey: number): Pkt[][] {
  const out: Pkt[][] = [];
  let seq = 65530; // wraps inside the stream
  for (let i = 0; i < frames; i++) {
    const frame = new Uint8Array(1200).fill(9);
    frame[0] = i >= firstKey && (i - firstKey) % gop === 0 ? 0x00 : 0x01; // P bit
    const ps = packetizeVp8(frame, 300, i & 0x7fff);
    out.push(
      ps.map((payload, j) => ({
        seq: seq++ & 0xffff,
        ts: (i * 3000) >>> 0,
        marker: j === ps.length - 1,
        payload,
      })),
    );
  }
  return out;
}

function pipeline(): ViewerPipeline {
  return plainPipeline("vp8", { keyframeRequests: "join" });
}

/** Every frame's packets in the order `perm` gives (indices into the frame's packets). */
function feed(p: ViewerPipeline, stats: RtpStats, frames: Pkt[][], perm: (n: number, i: number) => number[]) {
  let at = 1e9;
  frames.forEach((ps, i) => {
    at = 1e9 + i * FRAME_NS;
    for (const k of perm(ps.length, i)) {
      const x = ps[k]!;
      at += 100_000;
      p.onPacket(x.seq, x.ts, x.marker, x.payload, at, -1);
      stats.push(x.seq, x.ts, x.marker, x.payload, at);
    }
  });
  return at;
}

test("a keyframe whose packets arrive out of order: joined when it is whole, as the render model shows it", () => {
  const frames = packets(60, 30, 5);
  assert.ok(frames[5]!.length >= 4, "the keyframe spans several packets");
  const p = pipeline();
  const inOrder = new RtpStats({ clockRate: 90000, stallNs: 0, keyframeStart: keyframeStartVp8 });
  // every keyframe arrives marker first, then its middle, its first packet last
  const keyOrder = (n: number) => [n - 1, ...Array.from({ length: n - 2 }, (_, j) => j + 1).reverse(), 0];
  const end = feed(p, inOrder, frames, (n, i) =>
    i >= 5 && (i - 5) % 30 === 0 ? keyOrder(n) : Array.from({ length: n }, (_, j) => j),
  );
  assert.equal(inOrder.firstKeyframeArrivalNs, -1, "the in-order rule never sees a complete keyframe");
  assert.equal(p.joined, true);
  // finished a frame interval after the last arrival, so the playout's last frame is due
  // (docs/definitions.md#playout: a frame is shown at its render time, not at its last packet)
  const r = p.finish(end + FRAME_NS).render;
  // frames 5..59 shown: the frames before the first keyframe have no reference
  assert.equal(r.framesShown, 55);
  // joined at the arrival of the keyframe's last packet to arrive (its first), 1 s + 5 frames in
  const keyDone = 1e9 + 5 * FRAME_NS + frames[5]!.length * 100_000;
  assert.equal(p.firstKeyframeNs, keyDone);
});

test("reordering across frames (a 20 ms ± 5 ms shuffle of every packet): whoever shows frames has joined", () => {
  const frames = packets(90, 45, 0);
  // a deterministic shuffle: each packet's arrival is its send instant plus a drawn delay, sorted
  let x = 12345;
  const draw = () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x / 2 ** 31;
  };
  const arrivals: { at: number; pkt: Pkt }[] = [];
  frames.forEach((ps, i) => {
    ps.forEach((pkt, j) => {
      const sent = 1e9 + i * FRAME_NS + j * 200_000;
      // normal by Box–Muller: 20 ms ± 5 ms
      const z = Math.sqrt(-2 * Math.log(1 - draw())) * Math.cos(2 * Math.PI * draw());
      arrivals.push({ at: sent + 20 * MS + Math.max(z * 5 * MS, -20 * MS), pkt });
    });
  });
  arrivals.sort((a, b) => a.at - b.at);
  const p = pipeline();
  const inOrder = new RtpStats({ clockRate: 90000, stallNs: 0, keyframeStart: keyframeStartVp8 });
  let reordered = 0;
  let last = -1;
  for (const { at, pkt } of arrivals) {
    const idx = frames.flat().indexOf(pkt);
    if (idx < last) reordered++;
    last = Math.max(last, idx);
    p.onPacket(pkt.seq, pkt.ts, pkt.marker, pkt.payload, at, -1);
    inOrder.push(pkt.seq, pkt.ts, pkt.marker, pkt.payload, at);
  }
  assert.ok(reordered > 20, `${reordered} packets overtaken`);
  const r = p.finish(arrivals.at(-1)!.at).render;
  assert.ok(r.framesShown > 80, `${r.framesShown} shown`);
  assert.equal(p.joined, true);
  assert.equal(inOrder.firstKeyframeArrivalNs, -1, "the in-order rule missed both keyframes");
});

test("in order, the join instant is the keyframe's marker packet, as before", () => {
  const frames = packets(40, 30, 3);
  const p = pipeline();
  const inOrder = new RtpStats({ clockRate: 90000, stallNs: 0, keyframeStart: keyframeStartVp8 });
  feed(p, inOrder, frames, (n) => Array.from({ length: n }, (_, j) => j));
  assert.ok(inOrder.firstKeyframeArrivalNs > 0);
  assert.equal(p.firstKeyframeNs, inOrder.firstKeyframeArrivalNs);
});
