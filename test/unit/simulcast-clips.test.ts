// The simulcast layers (docs/definitions.md#simulcast-layers): the embedded clips made by
// clips/make-clips.sh, their shared frame count, timing and GOP, every frame of every layer its
// own fingerprint, and the checks a set of layers passes.

import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import type { Clip } from "../../src/core/clip/model.ts";
import {
  checkLayers,
  combineLayers,
  layerOfIndex,
  loadSimulcastClips,
  SIMULCAST_RIDS,
} from "../../src/core/clip/simulcast.ts";
import { ClipTable, createHasher, type Hasher } from "../../src/core/delay/fingerprint.ts";
import type { Codec } from "../../src/core/types.ts";
import { throwsClip } from "./clip-helpers.ts";

let hasher: Hasher;
before(async () => {
  hasher = await createHasher();
});

const CODECS: Codec[] = ["vp8", "h264"];

/** A VP8 keyframe's width and height (RFC 6386 section 9.1: bytes 6..9, 14 bits each). */
function vp8Size(frame: Uint8Array): [number, number] {
  const v = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
  return [v.getUint16(6, true) & 0x3fff, v.getUint16(8, true) & 0x3fff];
}

describe("simulcast clips", () => {
  for (const codec of CODECS) {
    test(`${codec}: three layers l m h, 120 frames each, 3000 ticks, keyframes on frames 0 30 60 90`, () => {
      const s = loadSimulcastClips(codec);
      assert.deepEqual(
        s.layers.map((l) => l.rid),
        ["l", "m", "h"],
      );
      assert.equal(s.layerFrames, 120);
      for (const { clip } of s.layers) {
        assert.equal(clip.frames.length, 120);
        assert.equal(clip.ticks, 3000);
        const keys = clip.keyframes.flatMap((k, i) => (k ? [i] : []));
        assert.deepEqual(keys, [0, 30, 60, 90]);
      }
      assert.equal(s.combined.frames.length, 360);
      assert.equal(s.combined.keyframeInterval, 30);
    });

    test(`${codec}: every frame of every layer has its own fingerprint; the table names its layer`, () => {
      const s = loadSimulcastClips(codec);
      const table = new ClipTable(hasher, s.combined);
      assert.equal(table.duplicateFrames, 0);
      const seen = new Set<bigint>();
      s.layers.forEach(({ clip }, layer) => {
        for (let i = 0; i < clip.frames.length; i++) {
          const fp = hasher.clipFrameFingerprint(clip, i);
          assert.ok(fp !== null);
          assert.ok(!seen.has(fp), `layer ${layer} frame ${i} repeats a fingerprint`);
          seen.add(fp);
          const hit = table.lookup(fp);
          assert.equal(hit.status, "unique");
          if (hit.status === "unique") assert.deepEqual(layerOfIndex(hit.index, s.layerFrames), { layer, i });
        }
      });
      assert.equal(seen.size, 360);
    });
  }

  test("vp8: the layers are 320×180, 640×360 and 1280×720, bytes growing with the layer", () => {
    const s = loadSimulcastClips("vp8");
    assert.deepEqual(
      s.layers.map(({ clip }) => vp8Size(clip.frames[0] as Uint8Array)),
      [
        [320, 180],
        [640, 360],
        [1280, 720],
      ],
    );
    const bytes = s.layers.map(({ clip }) => clip.frames.reduce((n, f) => n + f.length, 0));
    assert.ok(
      (bytes[0] as number) < (bytes[1] as number) && (bytes[1] as number) < (bytes[2] as number),
      `${bytes}`,
    );
  });

  test("a subset of rids loads those layers, lowest first", () => {
    const s = loadSimulcastClips("vp8", ["h", "l"]);
    assert.deepEqual(
      s.layers.map((l) => l.rid),
      ["l", "h"],
    );
    assert.equal(s.combined.frames.length, 240);
    assert.deepEqual(SIMULCAST_RIDS, ["l", "m", "h"]);
  });

  test("bad rids and mismatched layers are ClipErrors naming the problem", () => {
    throwsClip(() => loadSimulcastClips("vp8", []), "simulcast: no layer");
    throwsClip(() => loadSimulcastClips("vp8", ["x"]), 'simulcast: no embedded layer "x" (want l, m, h)');
    throwsClip(() => loadSimulcastClips("vp8", ["l", "l"]), "simulcast: a layer is named twice");
    const base = loadSimulcastClips("vp8", ["l"]).layers[0]!.clip;
    const short: Clip = { ...base, frames: base.frames.slice(1), keyframes: base.keyframes.slice(1) };
    throwsClip(
      () =>
        checkLayers("vp8", [
          { rid: "l", clip: base },
          { rid: "m", clip: short },
        ]),
      "simulcast layer m: 119 frames, layer l has 120",
    );
    const slow: Clip = { ...base, ticks: 6000 };
    throwsClip(
      () =>
        checkLayers("vp8", [
          { rid: "l", clip: base },
          { rid: "m", clip: slow },
        ]),
      "simulcast layer m: 6000 ticks a frame, layer l has 3000",
    );
    const moved: Clip = { ...base, keyframes: base.keyframes.map((k, i) => (i === 30 ? false : k)) };
    throwsClip(
      () =>
        combineLayers("vp8", [
          { rid: "l", clip: base },
          { rid: "m", clip: moved },
        ]),
      "simulcast layer m: frame 30 is not a keyframe on layer l",
    );
    throwsClip(() => checkLayers("h264", [{ rid: "l", clip: base }]), "simulcast layer l: vp8, not h264");
  });
});
