// The embedded VP8 clip with temporal layers (docs/definitions.md#vp8-temporal-layer-clip): the
// layer ids derived from the frame index match what each frame header says it refreshes, and the
// publisher's packetiser writes TID, Y and TL0PICIDX as the render model's finder reads them.
import assert from "node:assert/strict";
import { test } from "node:test";
import { loadTemporalClip, patternTids, scenarioClip } from "../../src/core/clip/temporal.ts";
import { depacketizeVp8, vp8DescriptorBytes } from "../../src/core/codec/vp8.ts";
import { vp8Layers } from "../../src/core/render/vp8-ref-finder.ts";
import { parseScenario } from "../../src/core/scenario-file/scenario.ts";
import { newEncoding, packetize } from "../../src/main/publisher/rtp-out.ts";

/** RFC 6386 section 7.3's boolean decoder, probability 128 only (the header's literals). */
function literals(buf: Uint8Array): (bits: number) => number {
  let p = 2;
  let value = (buf[0]! << 8) | buf[1]!;
  let range = 255;
  let count = 0;
  const bool = (): number => {
    const split = 1 + (((range - 1) * 128) >> 8);
    const big = split << 8;
    const bit = value >= big ? 1 : 0;
    if (bit) [range, value] = [range - split, value - big];
    else range = split;
    while (range < 128) {
      value = (value << 1) & 0xffff;
      range <<= 1;
      if (++count === 8) [count, value] = [0, value | (buf[p++] ?? 0)];
    }
    return bit;
  };
  return (bits) => {
    let v = 0;
    for (let k = 0; k < bits; k++) v = (v << 1) | bool();
    return v;
  };
}

/** Whether an inter frame refreshes any reference buffer (RFC 6386 section 9.3–9.7, 19.2). */
function refreshesAny(frame: Uint8Array): boolean {
  const L = literals(frame.subarray(3));
  const flagged = (bits: number, signed: boolean): void => {
    if (L(1)) L(bits + (signed ? 1 : 0));
  };
  if (L(1)) {
    const map = L(1);
    if (L(1)) {
      L(1);
      for (let k = 0; k < 4; k++) flagged(7, true);
      for (let k = 0; k < 4; k++) flagged(6, true);
    }
    if (map) for (let k = 0; k < 3; k++) flagged(8, false);
  }
  L(10); // filter type, level, sharpness
  if (L(1) && L(1)) for (let k = 0; k < 8; k++) flagged(6, true);
  L(2 + 7); // partitions, y_ac_qi
  for (let k = 0; k < 5; k++) flagged(4, true);
  const golden = L(1);
  const alt = L(1);
  const copies = (golden ? 0 : L(2)) | (alt ? 0 : L(2));
  L(3); // sign biases, refresh_entropy_probs
  return (golden | alt | copies | L(1)) !== 0;
}

test("the clip's derived layer ids: layer 0 refreshes the last buffer, layer 1 refreshes none", () => {
  const clip = loadTemporalClip();
  assert.equal(clip.frames.length, 120);
  assert.equal(clip.keyframeInterval, 30);
  assert.ok(clip.tids !== undefined);
  for (let i = 0; i < clip.frames.length; i++) {
    assert.equal(clip.tids[i], i % 2, `frame ${i}`);
    if (clip.keyframes[i]) continue;
    assert.equal(refreshesAny(clip.frames[i]!), clip.tids[i] === 0, `frame ${i} refreshes`);
  }
  // the ordinary clip refreshes the last buffer on every frame: no frame can be dropped alone
  const plain = scenarioClip("vp8", undefined);
  assert.equal(plain.tids, undefined);
  assert.ok(plain.frames.every((f, i) => plain.keyframes[i] || refreshesAny(f)));
});

test("a keyframe off layer 0 refuses the pattern", () => {
  assert.throws(() => patternTids([true, true], [0, 1]), /keyframe 1 falls on layer 1/);
});

test("the packetiser writes TID, Y and TL0PICIDX; TL0PICIDX advances on layer 0 only", () => {
  const clip = loadTemporalClip();
  const enc = newEncoding();
  let tl0 = -1;
  for (let i = 0; i < 40; i++) {
    const frame = clip.frames[i]!;
    const payloads = packetize("vp8", frame, enc, clip.tids![i]);
    assert.ok(payloads.length >= 1);
    for (const p of payloads) {
      assert.equal(vp8DescriptorBytes(p), 6);
      const layers = vp8Layers(p);
      assert.equal(layers & 3, i % 2, `frame ${i} TID`);
      assert.equal((layers >> 2) & 1, i % 2, `frame ${i} Y`);
      if (i % 2 === 0 && p === payloads[0]) tl0 = tl0 < 0 ? layers >>> 3 : (tl0 + 1) & 0xff;
      assert.equal(layers >>> 3, tl0, `frame ${i} TL0PICIDX`);
    }
    assert.deepEqual(Buffer.concat(depacketizeVp8(payloads)!), Buffer.from(frame));
  }
  // without a layer id the descriptor stays 4 bytes, with no layer fields
  const plain = packetize("vp8", clip.frames[0]!, enc);
  assert.equal(vp8DescriptorBytes(plain[0]!), 4);
  assert.equal(vp8Layers(plain[0]!), -1);
});

test("scenario clip: vp8-tl with vp8 only; another value fails naming the key", () => {
  const base = { whep: "http://127.0.0.1:1/s/whep", viewers: 1, holdSeconds: 1 };
  assert.equal(parseScenario(JSON.stringify({ ...base, clip: "vp8-tl" })).clip, "vp8-tl");
  assert.throws(() => parseScenario(JSON.stringify({ ...base, clip: "x" })), /clip "x" \(want vp8-tl\)/);
  assert.throws(
    () => parseScenario(JSON.stringify({ ...base, clip: "vp8-tl", codec: "h264" })),
    /clip vp8-tl needs codec vp8/,
  );
});
