// The viewer's first frame (docs/definitions.md#decodable-frames): libwebrtc's packet buffer hands a
// VP8 frame out once every packet from its first one (S set, partition 0) to its marker packet is
// in, with no packet before it; our reassembler proves that head by the S bit at once
// (docs/definitions.md#reassembly), so the model gets it at its last packet. A stream of one packet
// per frame, nothing lost, shows every frame.
import assert from "node:assert/strict";
import { test } from "node:test";
import { plainPipeline } from "../../bench/plain-pipeline.ts";
import { packetizeVp8 } from "../../src/core/codec/vp8.ts";

const FRAME_NS = 1e9 / 30;
const N = 60;

/** N frames at 30 fps (a keyframe every 30) of `packets` packets each; `lose`: packet indexes lost. */
function run(packets: number, lose: number[] = []) {
  const p = plainPipeline("vp8");
  let index = 0;
  for (let i = 0; i < N; i++) {
    const frame = new Uint8Array(100 * packets - 20).fill(7);
    frame[0] = i % 30 === 0 ? 0x00 : 0x01; // P bit
    const parts = packetizeVp8(frame, 110, i);
    assert.equal(parts.length, packets);
    const t = 1e9 + i * FRAME_NS;
    for (let j = 0; j < parts.length; j++) {
      if (lose.includes(index++)) continue;
      p.onPacket((500 + i * packets + j) & 0xffff, i * 3000, j === packets - 1, parts[j]!, t + j * 1e4, -1);
    }
  }
  const model = p.render.model!;
  const r = p.finish(1e9 + (N + 1) * FRAME_NS).render;
  return { r, firstShownNs: model.clock.firstNs };
}

test("one packet a frame, nothing lost: every frame shown, none late, the first at its arrival", () => {
  const { r, firstShownNs } = run(1);
  assert.deepEqual([r.finder, r.framesShown, r.framesLate, r.framesNotDecodable], ["frame-id", N, 0, 0]);
  assert.equal(firstShownNs, 1e9);
});

test("three packets a frame: the first keyframe is shown at its last packet", () => {
  const { r, firstShownNs } = run(3);
  assert.deepEqual([r.framesShown, r.framesLate], [N, 0]);
  assert.equal(firstShownNs, 1e9 + 2e4);
});

test("the first frame's first packet lost: the reassembler does not complete it; its delta frames wait", () => {
  // libwebrtc finds no first packet for frame 0 (its middle one is not), so frames 1..29 have no
  // decodable reference until keyframe 30
  const { r, firstShownNs } = run(3, [0]);
  assert.equal(r.framesShown, N - 30);
  assert.equal(firstShownNs, 1e9 + 30 * FRAME_NS + 2e4);
});
