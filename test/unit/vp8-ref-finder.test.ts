// libwebrtc's VP8 finder for temporal layers in the render model (src/core/render/vp8-ref-finder.ts,
// docs/definitions.md#decodable-frames): two layers, TL0 and TL1 alternating, a keyframe every 30.
// A lost TL1 frame that the later TL1 frames do not reference (each a layer-sync frame) costs that
// frame alone; lost where they reference the last TL1 frame, it costs the TL1 frames until the next
// keyframe (15 fps, no freeze); a lost TL0 frame costs the GOP. Without T and L: the frame-id finder.
import assert from "node:assert/strict";
import { test } from "node:test";
import { RenderModel } from "../../src/core/render/render-model.ts";
import { vp8Layers } from "../../src/core/render/vp8-ref-finder.ts";

const MS = 1e6;
const FRAME_MS = 1000 / 30;

/** A first packet: X, S; I, L, T; a 15-bit PictureID, TL0PICIDX, TID and Y; the P bit. */
function head(pid: number, tl0: number, tid: number, sync: boolean, key: boolean): Uint8Array {
  const t = (tid << 6) | (sync ? 0x20 : 0);
  return Uint8Array.of(0x90, 0xe0, 0x80 | (pid >> 8), pid & 0xff, tl0 & 0xff, t, key ? 0x00 : 0x01, 7);
}

/** 90 frames; `lose` frames never complete; `sync`: every TL1 frame references only its TL0 frame. */
function run(lose: ReadonlySet<number>, sync: boolean) {
  const m = new RenderModel("vp8");
  for (let i = 0; i < 90; i++) {
    if (lose.has(i)) continue;
    const tid = i % 2;
    // the first TL1 frame after a keyframe has no TL1 frame before it: a layer sync in any pattern
    const y = tid === 1 && (sync || i % 30 === 1);
    const key = i % 30 === 0;
    m.frame({
      lo: 1000 + 2 * i,
      hi: 1001 + 2 * i,
      head: head((500 + i) & 0x7fff, 200 + Math.floor(i / 2), tid, y, key),
      keyframe: key,
      completedNs: i * FRAME_MS * MS,
      timestamp: i * 3000,
    });
  }
  return m.finish(90 * FRAME_MS * MS);
}

test("the descriptor's TID, Y and TL0PICIDX; none without T or L", () => {
  assert.equal(vp8Layers(head(300, 77, 2, true, false)), 2 | 4 | (77 << 3));
  assert.equal(vp8Layers(head(300, 255, 1, false, false)), 1 | (255 << 3));
  assert.equal(vp8Layers(Uint8Array.of(0x90, 0x80, 0x81, 0x2c, 0x01)), -1, "PictureID only");
  assert.equal(vp8Layers(Uint8Array.of(0x90, 0x60, 9, 0x40, 0x01)), 1 | (9 << 3), "no PictureID");
});

test("clean: every frame shown by the VP8 finder", () => {
  const r = run(new Set(), false);
  assert.equal(r.finder, "vp8");
  assert.equal(r.framesShown, 90);
  assert.equal(r.freezes, 0);
});

test("a lost TL1 frame with layer-sync TL1 frames costs that frame alone", () => {
  const r = run(new Set([11]), true);
  assert.equal(r.framesShown, 89, JSON.stringify(r));
  assert.equal(r.framesNotDecodable, 0);
  assert.equal(r.freezes, 0);
});

test("a lost TL1 frame the later TL1 frames reference costs them until the keyframe, at 15 fps", () => {
  const r = run(new Set([11]), false);
  // 13, 15, … 29 wait (11 is between them and the last TL1 frame, 9) and never become decodable
  assert.equal(r.framesShown, 90 - 1 - 9, JSON.stringify(r));
  assert.equal(r.framesNotDecodable, 9);
  assert.equal(r.freezes, 0, "the base layer goes on: 66 ms between frames is no freeze");
});

test("a lost TL0 frame costs the GOP: one freeze until the next keyframe", () => {
  const r = run(new Set([10]), true);
  // 11 (its group's base is missing) and every frame after it up to 29 wait
  assert.equal(r.framesShown, 90 - 1 - 19, JSON.stringify(r));
  assert.equal(r.freezes, 1);
  // the frame-id finder (no T, no L) loses the GOP for a lost top-layer frame too
  const m = new RenderModel("vp8");
  m.frame({
    lo: 0,
    hi: 0,
    head: Uint8Array.of(0x90, 0x80, 0x81, 0x2c, 0x00),
    keyframe: true,
    completedNs: 0,
    timestamp: 0,
  });
  assert.equal(m.finish(FRAME_MS * MS).finder, "frame-id");
});
