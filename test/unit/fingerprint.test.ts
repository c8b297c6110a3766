import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import xxhash from "xxhash-wasm";
import { type Clip, loadClip, splitAnnexB } from "../../src/core/clip/clip.ts";
import { ClipTable, createHasher, type Hasher, isVcl } from "../../src/core/delay/fingerprint.ts";
import type { Codec } from "../../src/core/types.ts";

const hex = (...bytes: number[]): Uint8Array => Uint8Array.from(bytes);
const annexB = (...nals: Uint8Array[]): Uint8Array =>
  Uint8Array.from(nals.flatMap((n) => [0, 0, 0, 1, ...n]));

// Golden fingerprints of the clips made by clips/make-clips.sh with Debian 12's ffmpeg 5.1.
// Regenerating the clips with another ffmpeg changes these (and nothing else).
const GOLDEN: Record<Codec, [bigint, bigint]> = {
  vp8: [0x6e85a7e322215683n, 0x39da7af62ebb6638n],
  h264: [0xe4b55e424c01e961n, 0xbf6431b19d4893c6n],
};

let hasher: Hasher;
let h64: (b: Uint8Array, seed?: bigint) => bigint;
const clips: Record<Codec, Clip> = { vp8: loadClip("vp8"), h264: loadClip("h264") };
before(async () => {
  hasher = await createHasher();
  h64 = (await xxhash()).h64Raw;
});

function vp8Clip(frames: Uint8Array[], ticks = 3000): Clip {
  return {
    codec: "vp8",
    frames,
    keyframes: frames.map((_, i) => i === 0),
    ticks,
    fps: 30,
    keyframeInterval: 0,
  };
}

describe("fingerprint", () => {
  test("xxhash64 seed 0 of the frame bytes (reference vectors)", () => {
    const abc = new TextEncoder().encode("abc");
    assert.equal(hasher.fingerprint("vp8", [abc]), 0x44bc2cf5ad770999n);
    assert.equal(hasher.fingerprint("vp8", [abc.subarray(0, 1), abc.subarray(1)]), 0x44bc2cf5ad770999n);
    assert.equal(hasher.fingerprint("vp8", []), null);
    assert.equal(hasher.fingerprint("vp8", [new Uint8Array(0)]), null);
    assert.equal(hasher.fingerprint("opus" as Codec, [abc]), null);
  });

  test("golden values of frames 0 and 1 of both clips", () => {
    for (const codec of ["vp8", "h264"] as const) {
      assert.equal(hasher.clipFrameFingerprint(clips[codec], 0), GOLDEN[codec][0], `${codec} frame 0`);
      assert.equal(hasher.clipFrameFingerprint(clips[codec], 1), GOLDEN[codec][1], `${codec} frame 1`);
    }
    assert.equal(hasher.clipFrameFingerprint(clips.vp8, 120), null);
  });

  test("all 120 frames of each clip are pairwise distinct", () => {
    for (const codec of ["vp8", "h264"] as const) {
      const fps = clips[codec].frames.map((_, i) => hasher.clipFrameFingerprint(clips[codec], i));
      assert.ok(fps.every((f) => f !== null));
      assert.equal(new Set(fps).size, 120, codec);
    }
  });

  test("h264 hashes only VCL units, header byte included, no start codes", () => {
    const slice = hex(0x65, 0x88, 1, 2, 3);
    const slice2 = hex(0x65, 0x08, 4, 5);
    const base = hasher.fingerprint("h264", [slice, slice2]);
    assert.equal(base, h64(hex(...slice, ...slice2), 0n));
    const sps = hex(0x67, 0x42, 0xc0, 0x1f);
    const pps = hex(0x68, 0xce);
    const sei = hex(0x06, 5, 1, 0xaa);
    const aud = hex(0x09, 0xf0);
    assert.equal(hasher.fingerprint("h264", [aud, sps, pps, sei, slice, sei, slice2, hex(0x0c, 0xff)]), base);
    assert.notEqual(
      hasher.fingerprint("h264", [hex(0x45, 0x88, 1, 2, 3), slice2]),
      base,
      "the header byte counts",
    );
    assert.notEqual(hasher.fingerprint("h264", [slice2, slice]), base, "order counts");
    assert.equal(hasher.fingerprint("h264", [sps, pps, sei]), null, "no VCL unit: no fingerprint");
    assert.equal(hasher.fingerprint("h264", [new Uint8Array(0)]), null);
    // a clip frame with its parameter sets stripped keeps its fingerprint
    const key = clips.h264.frames[0]!;
    const stripped = splitAnnexB(key).filter((n) => isVcl(n[0]! & 0x1f));
    assert.equal(hasher.fingerprint("h264", stripped), GOLDEN.h264[0]);
    assert.equal(hasher.fingerprint("h264", [sps, pps, ...stripped, sei]), GOLDEN.h264[0]);
  });

  test("isVcl is types 1–5 only", () => {
    const vcl = Array.from({ length: 32 }, (_, t) => t).filter(isVcl);
    assert.deepEqual(vcl, [1, 2, 3, 4, 5]);
  });

  test("the scratch buffer grows for large frames and is reused", () => {
    const big = Uint8Array.from({ length: 200_000 }, (_, i) => (i * 31) & 0xff);
    const pieces = [big.subarray(0, 70_000), big.subarray(70_000, 150_001), big.subarray(150_001)];
    assert.equal(hasher.fingerprint("vp8", pieces), h64(big, 0n));
    const small = [hex(1, 2), hex(3)];
    assert.equal(
      hasher.fingerprint("vp8", small),
      h64(hex(1, 2, 3), 0n),
      "no stale bytes from the larger frame",
    );
    const a = big.slice(0, 90_000);
    a[0] = 0x41;
    const b = big.slice(5, 80_000);
    b[0] = 0x41;
    const both = new Uint8Array(a.length + b.length);
    both.set(a);
    both.set(b, a.length);
    assert.equal(hasher.fingerprint("h264", [a, hex(0x06, 1), b]), h64(both, 0n));
  });
});

describe("ClipTable", () => {
  for (const codec of ["vp8", "h264"] as const) {
    test(`${codec}: 120 unique frames at their own index, 3000 ticks, keyframes`, () => {
      const table = new ClipTable(hasher, clips[codec]);
      assert.equal(table.codec, codec);
      assert.equal(table.loopFrames, 120);
      assert.equal(table.ticks, 3000);
      assert.equal(table.duplicateFrames, 0);
      for (let i = 0; i < 120; i++) {
        const r = table.lookup(hasher.clipFrameFingerprint(clips[codec], i)!);
        assert.deepEqual(r, { status: "unique", index: i });
      }
      const keys = Array.from({ length: 122 }, (_, i) => i - 1).filter((i) => table.isKeyframe(i));
      assert.deepEqual(keys, [0, 30, 60, 90]);
      assert.deepEqual(table.lookup(12345n), { status: "unknown" });
    });
  }

  test("duplicates: f0 f1 f2 f1 f4 → 2 duplicate frames", () => {
    const f = [hex(0x10, 0), hex(0x11, 1), hex(0x11, 2), hex(0x11, 4)];
    const clip = vp8Clip([f[0]!, f[1]!, f[2]!, f[1]!, f[3]!]);
    const table = new ClipTable(hasher, clip);
    assert.equal(table.duplicateFrames, 2);
    assert.deepEqual(table.lookup(hasher.fingerprint("vp8", [f[1]!])!), { status: "duplicate" });
    assert.deepEqual(table.lookup(hasher.fingerprint("vp8", [f[3]!])!), { status: "unique", index: 4 });
    assert.deepEqual(table.lookup(hasher.fingerprint("vp8", [f[2]!])!), { status: "unique", index: 2 });
  });

  test("lookups return shared objects (no allocation per frame)", () => {
    const table = new ClipTable(hasher, clips.vp8);
    const fp = hasher.clipFrameFingerprint(clips.vp8, 7)!;
    assert.equal(table.lookup(fp), table.lookup(fp));
    assert.equal(table.lookup(1n), table.lookup(2n));
  });

  test("build errors", () => {
    assert.throws(() => new ClipTable(hasher, vp8Clip([])), {
      message: "fingerprint: the clip has no frames",
    });
    assert.throws(() => new ClipTable(hasher, vp8Clip([hex(0x10)], 0)), {
      message: "fingerprint: the clip has no frame duration (Ticks is 0)",
    });
    const h264: Clip = {
      codec: "h264",
      frames: [annexB(hex(0x65, 0x88)), annexB(hex(0x67, 0x42), hex(0x68, 0xce))],
      keyframes: [true, false],
      ticks: 3000,
      fps: 30,
      keyframeInterval: 0,
    };
    assert.throws(() => new ClipTable(hasher, h264), {
      message: "fingerprint: clip frame 1 has nothing to hash",
    });
  });
});
