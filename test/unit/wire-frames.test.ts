// bench:wire's frame pairing (bench/wire-frames.ts) on a hand-made capture: a publisher stream to
// a server port and two viewer streams from server ports, each with its own SSRC, sequence
// numbers, timestamp offset and SRTP overhead; every viewer frame is paired with the publisher's
// by packet sizes and one offset, a retransmission ends its frame, the window leaves a viewer's
// first frames out, and the server's own forward (server port to server port) is not a viewer.
import assert from "node:assert/strict";
import { test } from "node:test";
import { type WirePacket, wireDelays } from "../../bench/wire-frames.ts";

function rtp(seq: number, ts: number, ssrc: number, size: number): Buffer {
  const b = Buffer.alloc(size);
  b[0] = 0x80;
  b[1] = 96;
  b.writeUInt16BE(seq & 0xffff, 2);
  b.writeUInt32BE(ts >>> 0, 4);
  b.writeUInt32BE(ssrc, 8);
  return b;
}

test("wire delays: frames paired by sizes and one timestamp offset per viewer, no key needed", () => {
  const SERVER = new Set([20_000, 20_001, 20_002, 15_004]);
  const packets: WirePacket[] = [];
  // 40 frames, 33 ms apart, of 2 or 3 packets whose sizes vary by frame
  const frames = Array.from({ length: 40 }, (_, k) =>
    k % 3 === 0 ? [900 + k, 700, 300 + k] : [1000 - k, 400 + k],
  );
  const viewers = [
    { from: 20_001, to: 40_001, ts0: 0x1234_5678, seq0: 100, shift: 6, lagMs: 2 },
    { from: 20_002, to: 40_002, ts0: 0xffff_ff00, seq0: 65_530, shift: 6, lagMs: 3 },
  ];
  let pubSeq = 7;
  frames.forEach((sizes, k) => {
    const t = 1e18 + k * 33e6;
    sizes.forEach((size, j) => {
      packets.push({
        tNs: t + j * 1e4,
        src: 50_000,
        dst: 20_000,
        payload: rtp(pubSeq++, 9000 + k * 3000, 1, size),
      });
      // the server's plain-RTP forward to itself: neither publisher nor viewer
      packets.push({
        tNs: t + j * 1e4 + 1,
        src: 20_000,
        dst: 15_004,
        payload: rtp(pubSeq, 9000 + k * 3000, 2, size - 10),
      });
    });
  });
  for (const v of viewers) {
    let seq = v.seq0;
    frames.forEach((sizes, k) => {
      const t = 1e18 + k * 33e6 + v.lagMs * 1e6;
      sizes.forEach((size, j) => {
        const p = {
          tNs: t + j * 1e4,
          src: v.from,
          dst: v.to,
          payload: rtp(seq++, v.ts0 + k * 3000, 9, size + v.shift),
        };
        packets.push(p);
        // frame 20's last packet retransmitted 5 ms later: the frame ends there
        if (k === 20 && j === sizes.length - 1) packets.push({ ...p, tNs: p.tNs + 5e6 });
      });
    });
  }
  packets.sort((a, b) => a.tNs - b.tNs);
  // the first 10 frames of each viewer (330 ms) left out, as excludeFirstSeconds does
  const w = wireDelays(packets, SERVER, 320e6);
  assert.equal(w.viewers, 2);
  assert.equal(w.unpaired, 0);
  assert.equal(w.publisherFrames, 40);
  assert.equal(w.delaysNs.length, 2 * 30);
  const ms = w.delaysNs.map((d) => Math.round(d / 1e4) / 100).sort((a, b) => a - b);
  // each frame: the viewer's last packet − the publisher's first: the lag plus the frame's spread
  assert.ok(
    ms.every((d) => d >= 2 && d <= 8.03),
    ms.join(","),
  );
  assert.equal(ms.filter((d) => d > 7).length, 2, "frame 20, retransmitted, on both viewers");
});
