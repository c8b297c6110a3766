// libwebrtc's H.264 packet buffer in the render model (src/core/render/packet-buffer.ts,
// docs/definitions.md#decodable-frames): a keyframe whose leading packets are lost is still handed
// out when a packet after the hole is first in its frame (an FU-A start, a single NAL) and carries
// the IDR, once SPS/PPS are known from an earlier keyframe; lost from its first FU-A fragment on
// (only middle fragments left), it is not; an IDR before any SPS/PPS asks for a keyframe.
import assert from "node:assert/strict";
import { test } from "node:test";
import { plainPipeline } from "../../bench/plain-pipeline.ts";
import { packetizeH264 } from "../../src/core/codec/h264.ts";
import { PacketBuffer } from "../../src/core/render/packet-buffer.ts";

const FRAME_NS = 1e9 / 30;
const start = [0, 0, 0, 1];

/** An access unit: keyframes SPS + PPS + a 3-fragment IDR slice, deltas one small slice. */
function accessUnit(key: boolean): Uint8Array {
  const slice = (type: number, n: number) => [...start, 0x60 | type, 0x88, ...new Array(n).fill(0x11)];
  if (!key) return Uint8Array.from(slice(1, 40));
  return Uint8Array.from([...start, 0x67, 0x42, 0, 0x1f, ...start, 0x68, 0xce, 0x3c, 0x80, ...slice(5, 500)]);
}

/** 90 frames at 30 fps, a keyframe every 30; `lose(frame, packet index)` packets never arrive. */
function run(lose: (frame: number, k: number) => boolean) {
  const p = plainPipeline("h264");
  let seq = 1000;
  const plis: number[] = [];
  for (let i = 0; i < 90; i++) {
    const packets = packetizeH264(accessUnit(i % 30 === 0), 200);
    const t = 1e9 + i * FRAME_NS;
    for (let k = 0; k < packets.length; k++) {
      const s = seq++ & 0xffff;
      if (lose(i, k)) continue;
      p.onPacket(s, i * 3000, k === packets.length - 1, packets[k]!, t + k * 10_000, -1);
      if (p.render.pliDue(t + k * 10_000)) {
        plis.push(i);
        p.render.pliSent(t + k * 10_000);
      }
    }
  }
  return { render: p.finish(1e9 + 91 * FRAME_NS).render, plis };
}

test("the packetizer's keyframe: a STAP-A (SPS, PPS), then the IDR in FU-A fragments", () => {
  const packets = packetizeH264(accessUnit(true), 200);
  assert.equal(packets.length, 4);
  assert.equal(packets[0]![0]! & 0x1f, 24);
  assert.deepEqual(
    packets.slice(1).map((q) => [q[0]! & 0x1f, q[1]! & 0xc0, q[1]! & 0x1f]),
    [
      [28, 0x80, 5],
      [28, 0, 5],
      [28, 0x40, 5],
    ],
  );
});

test("a keyframe whose STAP-A (SPS/PPS) is lost is shown, SPS/PPS known from the keyframe before", () => {
  const clean = run(() => false).render;
  const noHead = run((i, k) => i === 30 && k === 0).render;
  assert.equal(clean.framesShown, 90);
  assert.equal(noHead.framesShown, clean.framesShown, JSON.stringify(noHead));
  assert.equal(noHead.freezes, 0);
});

test("a keyframe lost from its first FU-A fragment on is not handed out: its GOP is lost", () => {
  const r = run((i, k) => i === 30 && (k === 0 || k === 1)).render;
  assert.equal(r.framesShown, 90 - 30, JSON.stringify(r));
  assert.equal(r.freezes, 1);
  // the first fragment alone lost (the STAP-A present): the frame has a hole inside, never complete
  const mid = run((i, k) => i === 30 && k === 1).render;
  assert.equal(mid.framesShown, 90 - 30, JSON.stringify(mid));
});

test("an IDR before any SPS/PPS: the tracker drops it and asks for a keyframe at once", () => {
  const b = new PacketBuffer();
  const [stap, fuStart, fuMid, fuEnd] = packetizeH264(accessUnit(true), 200) as Uint8Array[];
  assert.equal(b.packet(10, 0, false, fuStart!), "ask");
  assert.equal(b.packet(11, 0, false, fuMid!), "none");
  assert.equal(b.packet(12, 0, true, fuEnd!), "none", "the hole left by the dropped IDR start");
  // the next keyframe with its SPS/PPS: complete, our reassembler's to hand out
  assert.equal(b.packet(13, 3000, false, stap!), "none");
  assert.equal(b.packet(14, 3000, false, fuStart!), "none");
  assert.equal(b.packet(15, 3000, false, fuMid!), "none");
  assert.equal(b.packet(16, 3000, true, fuEnd!), "none");
  // then one without its STAP-A: released at its marker packet, from the packet after the hole
  assert.equal(b.packet(18, 6000, false, fuStart!), "none");
  assert.equal(b.packet(19, 6000, false, fuMid!), "none");
  assert.equal(b.packet(20, 6000, true, fuEnd!), "release");
  assert.equal(b.out.hi - b.out.lo, 2);
  assert.equal(b.out.timestamp, 6000);
  assert.ok(b.wasReleased(6000));
  // a delta frame after a hole is not released here
  const delta = packetizeH264(accessUnit(false), 200)[0]!;
  assert.equal(b.packet(22, 9000, true, delta), "none");
  const viaPipeline = run((i, k) => i === 0 && k === 0);
  assert.ok(viaPipeline.plis.includes(0), `PLIs at frames ${viaPipeline.plis}`);
});
