// Clip parsing (docs/definitions.md#clips): the embedded clips, loadClip, IVF, Annex-B splitting and
// access-unit delimiting, keyframe spacing. SPS timing lives in sps.test.ts.

import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import {
  embeddedClipPath,
  keyframeIntervalOf,
  loadClip,
  MAX_CLIP_BYTES,
  parseAnnexB,
  parseIvf,
  splitAnnexB,
  spsTicks,
} from "../../src/core/clip/clip.ts";
import { ClipError } from "../../src/core/errors.ts";
import type { Codec } from "../../src/core/types.ts";
import { annexB, hex, sps, spsNal, throwsClip } from "./clip-helpers.ts";

// ---- IVF builder -------------------------------------------------------------------------

interface IvfOpts {
  magic?: string;
  fourcc?: string;
  headerBytes?: number;
  rate?: number;
  scale?: number;
}

function ivf(frames: { data: Uint8Array; pts: number }[], o: IvfOpts = {}): Uint8Array {
  const headerBytes = o.headerBytes ?? 32;
  const size = Math.max(32, headerBytes) + frames.reduce((n, f) => n + 12 + f.data.length, 0);
  const buf = new Uint8Array(size);
  const v = new DataView(buf.buffer);
  buf.set(new TextEncoder().encode(o.magic ?? "DKIF"), 0);
  v.setUint16(6, headerBytes, true);
  buf.set(new TextEncoder().encode(o.fourcc ?? "VP80"), 8);
  v.setUint32(16, o.rate ?? 30, true);
  v.setUint32(20, o.scale ?? 1, true);
  let off = Math.max(32, headerBytes);
  for (const f of frames) {
    v.setUint32(off, f.data.length, true);
    v.setBigUint64(off + 4, BigInt(f.pts), true);
    buf.set(f.data, off + 12);
    off += 12 + f.data.length;
  }
  return buf;
}

const KEY = hex(0x10, 0x02, 0x00, 0x9d, 0x01, 0x2a); // frame tag bit 0 = 0: keyframe
const DELTA = hex(0x31, 0x02, 0x00, 0xaa); // bit 0 = 1: interframe
const evenFrames = (n: number, step = 1): { data: Uint8Array; pts: number }[] =>
  Array.from({ length: n }, (_, i) => ({ data: i % 3 === 0 ? KEY : DELTA, pts: i * step }));

// ---- the embedded clips ------------------------------------------------------------------

describe("embedded clips", () => {
  for (const codec of ["vp8", "h264"] as const) {
    test(`${codec}: 120 frames, 3000 ticks, GOP 30, keyframes at 0/30/60/90`, () => {
      const clip = loadClip(codec);
      assert.equal(clip.codec, codec);
      assert.equal(clip.frames.length, 120);
      assert.equal(clip.keyframes.length, 120);
      assert.equal(clip.ticks, 3000);
      assert.equal(clip.fps, 30);
      assert.equal(clip.keyframeInterval, 30);
      const keys = clip.keyframes.flatMap((k, i) => (k ? [i] : []));
      assert.deepEqual(keys, [0, 30, 60, 90]);
      assert.equal(clip.frames.length % clip.keyframeInterval, 0, "the loop closes on a keyframe boundary");
    });
  }

  test("h264 access units carry 4-byte start codes and exactly one picture each", () => {
    const clip = loadClip("h264");
    for (const [i, au] of clip.frames.entries()) {
      assert.deepEqual([...au.subarray(0, 4)], [0, 0, 0, 1], `frame ${i}`);
      const types = splitAnnexB(au).map((n) => n[0]! & 0x1f);
      const slices = types.filter((t) => t === 1 || t === 5);
      assert.equal(slices.length, 1, `frame ${i}: one slice`);
      if (clip.keyframes[i]) {
        assert.ok(types.includes(7) && types.includes(8) && slices[0] === 5, `keyframe ${i}: SPS, PPS, IDR`);
      } else {
        assert.deepEqual(types, [1], `frame ${i}`);
      }
    }
  });

  test("the SPS of the h264 clip declares 3000 ticks (VUI timing 1/60)", () => {
    const clip = loadClip("h264");
    const sp = splitAnnexB(clip.frames[0]!).find((n) => (n[0]! & 0x1f) === 7)!;
    assert.equal(spsTicks(sp), 3000);
  });

  test("embeddedClipPath points into clips/", () => {
    assert.match(embeddedClipPath("vp8"), /clips\/clip-vp8\.ivf$/);
    assert.match(embeddedClipPath("h264"), /clips\/clip-h264\.h264$/);
  });
});

// ---- loadClip ----------------------------------------------------------------------------

describe("loadClip", () => {
  const dir = mkdtempSync(join(tmpdir(), "whipbench-clip-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test("a frame rate applies to h264 only", () => {
    throwsClip(
      () => loadClip("vp8", { fps: 30 }),
      "a frame rate applies to an h264 clip; a vp8 clip states its own",
    );
  });

  test("h264 at --fps 25 → 3600 ticks; 7 fps → error", () => {
    assert.equal(loadClip("h264", { fps: 25 }).ticks, 3600);
    throwsClip(() => loadClip("h264", { fps: 7 }), "h264: frame rate 7 does not divide the 90 kHz clock");
    throwsClip(() => loadClip("h264", { fps: -1 }), "h264: frame rate -1 is not a frame rate");
    throwsClip(() => loadClip("h264", { fps: Number.NaN }), /is not a frame rate/);
  });

  test("reads a file at a path", () => {
    const p = join(dir, "small.ivf");
    writeFileSync(p, ivf(evenFrames(4)));
    const clip = loadClip("vp8", { path: p });
    assert.equal(clip.frames.length, 4);
    assert.equal(clip.ticks, 3000);
    assert.equal(clip.keyframeInterval, 3);
  });

  test("missing file, directory, too large, wrong container → ClipError", () => {
    throwsClip(() => loadClip("vp8", { path: join(dir, "nope.ivf") }), /nope\.ivf: no such file/);
    throwsClip(() => loadClip("h264", { path: dir }), /is a directory|not a regular file/);
    const big = join(dir, "big.h264");
    writeFileSync(big, "");
    truncateSync(big, MAX_CLIP_BYTES + 1); // sparse: nothing is written
    throwsClip(() => loadClip("h264", { path: big }), /larger than the 67108864-byte limit/);
    throwsClip(() => loadClip("vp8", { path: embeddedClipPath("h264") }), "ivf: not an IVF file");
    throwsClip(
      () => loadClip("h264", { path: embeddedClipPath("vp8") }),
      "h264: no SPS in the stream to read the frame rate from; give it with --fps",
    );
  });

  test("unknown codec → ClipError", () => {
    throwsClip(() => loadClip("opus" as Codec), 'unknown codec "opus" (want vp8 or h264)');
  });
});

// ---- IVF ---------------------------------------------------------------------------------

describe("parseIvf", () => {
  test("frame duration from the time base: 1/30 → 3000, 1000/33 with step 1 ≠ whole, 1/90000 step 3003", () => {
    assert.equal(parseIvf(ivf(evenFrames(3))).ticks, 3000);
    assert.equal(parseIvf(ivf(evenFrames(3, 3003), { rate: 90000, scale: 1 })).ticks, 3003);
    assert.equal(parseIvf(ivf(evenFrames(3, 1), { rate: 25, scale: 1 })).ticks, 3600);
    throwsClip(
      () => parseIvf(ivf(evenFrames(3), { rate: 7, scale: 1 })),
      "ivf: frame duration is not a whole number of 90 kHz ticks",
    );
    throwsClip(
      () => parseIvf(ivf(evenFrames(3, 0))),
      "ivf: frame duration is not a whole number of 90 kHz ticks",
    );
  });

  test("frames are views of the file, keyframe from bit 0 of the frame tag", () => {
    const clip = parseIvf(ivf(evenFrames(4)));
    assert.deepEqual(clip.keyframes, [true, false, false, true]);
    assert.deepEqual([...clip.frames[1]!], [...DELTA]);
  });

  test("header errors", () => {
    throwsClip(() => parseIvf(new Uint8Array(0)), "ivf: not an IVF file");
    throwsClip(() => parseIvf(ivf(evenFrames(2)).subarray(0, 31)), "ivf: not an IVF file");
    throwsClip(() => parseIvf(ivf(evenFrames(2), { magic: "RIFF" })), "ivf: not an IVF file");
    throwsClip(() => parseIvf(ivf(evenFrames(2), { fourcc: "VP90" })), 'ivf: FourCC "VP90", want VP80');
    throwsClip(() => parseIvf(ivf(evenFrames(2), { rate: 0 })), "ivf: bad header");
    throwsClip(() => parseIvf(ivf(evenFrames(2), { scale: 0 })), "ivf: bad header");
    throwsClip(() => parseIvf(ivf(evenFrames(2), { headerBytes: 16 })), "ivf: bad header");
    throwsClip(() => parseIvf(ivf([], { headerBytes: 40 }).subarray(0, 36)), "ivf: bad header");
  });

  test("frame errors: truncated header, lying size, zero size", () => {
    const good = ivf(evenFrames(3));
    throwsClip(() => parseIvf(good.subarray(0, 32 + 5)), "ivf frame 0: truncated header");
    const lying = good.slice();
    new DataView(lying.buffer).setUint32(32 + 12 + KEY.length, 9999, true);
    throwsClip(() => parseIvf(lying), "ivf frame 1: bad size 9999");
    const zero = good.slice();
    new DataView(zero.buffer).setUint32(32, 0, true);
    throwsClip(() => parseIvf(zero), "ivf frame 0: bad size 0");
    throwsClip(() => parseIvf(good.subarray(0, good.length - 1)), "ivf frame 2: bad size 4");
  });

  test("clip errors: one frame, uneven pts, first frame not a keyframe, header only", () => {
    throwsClip(() => parseIvf(ivf(evenFrames(1))), "ivf: need at least two frames to know the frame rate");
    throwsClip(() => parseIvf(ivf([])), "ivf: need at least two frames to know the frame rate");
    const uneven = evenFrames(4);
    uneven[3]!.pts = 4;
    throwsClip(
      () => parseIvf(ivf(uneven)),
      "ivf: frame 3 is not evenly spaced (constant frame rate required)",
    );
    const pFirst = evenFrames(4).map((f, i) => ({ ...f, data: i === 0 ? DELTA : KEY }));
    throwsClip(() => parseIvf(ivf(pFirst)), /must start with a keyframe/);
  });

  test("the real clip cut anywhere, or with a mangled header byte, gives a ClipError or a clip", () => {
    const buf = readFileSync(embeddedClipPath("vp8"));
    const bytes = new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
    let errors = 0;
    for (const cut of [0, 1, 4, 12, 31, 32, 33, 43, 44, 100, 5000, bytes.length >> 1, bytes.length - 1]) {
      assert.throws(() => parseIvf(bytes.subarray(0, cut)), ClipError, `cut at ${cut}`);
      errors++;
    }
    for (let i = 0; i < 32; i++) {
      const m = bytes.slice(0, 4096);
      m[i] = m[i]! ^ 0xff;
      try {
        parseIvf(m);
      } catch (err) {
        assert.ok(err instanceof ClipError, `byte ${i}: ${String(err)}`);
      }
    }
    assert.equal(errors, 13);
  });
});

// ---- Annex-B -----------------------------------------------------------------------------

describe("splitAnnexB", () => {
  test("3- and 4-byte start codes, trailing zeros trimmed, leading garbage ignored", () => {
    const buf = hex(0xaa, 0, 0, 1, 0x67, 1, 2, 0, 0, 0, 1, 0x68, 3, 0, 0, 1, 0x65, 0, 9, 0, 0);
    const nals = splitAnnexB(buf).map((n) => [...n]);
    assert.deepEqual(nals, [
      [0x67, 1, 2],
      [0x68, 3],
      [0x65, 0, 9, 0, 0],
    ]);
  });

  test("empty units between start codes, no start code, tiny buffers", () => {
    assert.deepEqual(
      splitAnnexB(hex(0, 0, 1, 0, 0, 1, 0x09, 0xf0)).map((n) => [...n]),
      [[], [0x09, 0xf0]],
    );
    assert.deepEqual(splitAnnexB(hex(1, 2, 3, 4, 5)), []);
    assert.deepEqual(splitAnnexB(new Uint8Array(0)), []);
    assert.deepEqual(splitAnnexB(hex(0, 0, 1)), []);
    // a start code at the very end opens no unit (found by the fuzzer: 00 00 01 00 00 01)
    assert.deepEqual(
      splitAnnexB(hex(0, 0, 1, 0, 0, 1)).map((n) => [...n]),
      [[]],
    );
    assert.deepEqual(
      splitAnnexB(hex(0, 0, 1, 0x09, 0, 0, 0, 1)).map((n) => [...n]),
      [[0x09]],
    );
    assert.deepEqual(
      splitAnnexB(hex(0, 0, 1, 2, 0, 0, 2, 0, 0, 1, 5)).map((n) => [...n]),
      [[2, 0, 0, 2], [5]],
    );
  });
});

describe("parseAnnexB", () => {
  const SPS30 = spsNal(sps().rbsp());
  const PPS = hex(0x68, 0xce, 0x38, 0x80);
  const SEI = hex(0x06, 0x05, 0x01, 0xaa, 0x80);
  const AUD = hex(0x09, 0xf0);
  const IDR = hex(0x65, 0x88, 0x84, 0x01); // first_mb_in_slice 0
  const P0 = hex(0x41, 0x9a, 0x22); // first_mb_in_slice 0
  const P0b = hex(0x41, 0x9a, 0x33);
  const P_MB5 = hex(0x41, 0x0c, 0x11); // first bit 0: first_mb_in_slice ≠ 0 (second slice)

  test("access-unit delimiting (H.264 clause 7.4.1.2.3)", () => {
    const stream = annexB(AUD, SPS30, PPS, SEI, IDR, P_MB5, AUD, P0, P0b, SEI, P0, hex(0x0c, 0xff));
    const clip = parseAnnexB(stream);
    assert.equal(clip.ticks, 3000);
    assert.equal(clip.frames.length, 4);
    assert.deepEqual(clip.keyframes, [true, false, false, false]);
    const types = clip.frames.map((f) => splitAnnexB(f).map((n) => n[0]! & 0x1f));
    assert.deepEqual(types, [[9, 7, 8, 6, 5, 1], [9, 1], [1], [6, 1, 12]]);
    assert.deepEqual([...clip.frames[2]!], [0, 0, 0, 1, ...P0b]);
  });

  test("non-VCL units after the last slice are dropped; a picture needs a slice", () => {
    const clip = parseAnnexB(annexB(SPS30, PPS, IDR, SEI, AUD), 0);
    assert.equal(clip.frames.length, 1);
    throwsClip(() => parseAnnexB(annexB(SPS30, PPS, SEI), 0), /the clip has no frames/);
  });

  test("frame rate: --fps overrides the SPS; no SPS needs --fps", () => {
    assert.equal(parseAnnexB(annexB(SPS30, PPS, IDR), 25).ticks, 3600);
    assert.equal(parseAnnexB(annexB(IDR, P0), 30).ticks, 3000);
    assert.equal(parseAnnexB(annexB(IDR, P0), 60).fps, 60);
    throwsClip(
      () => parseAnnexB(annexB(IDR, P0)),
      "h264: no SPS in the stream to read the frame rate from; give it with --fps",
    );
    throwsClip(() => parseAnnexB(annexB(IDR), 7), "h264: frame rate 7 does not divide the 90 kHz clock");
    throwsClip(
      () => parseAnnexB(annexB(IDR), 29.97),
      "h264: frame rate 29.97 does not divide the 90 kHz clock",
    );
    throwsClip(() => parseAnnexB(annexB(IDR), -30), "h264: frame rate -30 is not a frame rate");
  });

  test("the SPS without timing gives the --fps hint", () => {
    const noTiming = spsNal(sps({ timing: null }).rbsp());
    throwsClip(
      () => parseAnnexB(annexB(noTiming, PPS, IDR)),
      "h264: the SPS carries no frame rate (VUI timing_info); give it with --fps",
    );
    assert.equal(parseAnnexB(annexB(noTiming, PPS, IDR), 30).ticks, 3000);
  });

  test("empty, garbage, first frame not a keyframe", () => {
    throwsClip(() => parseAnnexB(new Uint8Array(0)), /no SPS in the stream/);
    throwsClip(() => parseAnnexB(new Uint8Array(0), 30), /the clip has no frames/);
    throwsClip(() => parseAnnexB(annexB(P0, IDR), 30), /must start with a keyframe/);
    const real = readFileSync(embeddedClipPath("h264"));
    const clip = loadClip("h264");
    const skip = clip.frames[0]!.length; // the stream from frame 1 on: a P frame first
    throwsClip(
      () => parseAnnexB(new Uint8Array(real.buffer, real.byteOffset + skip, real.length - skip)),
      /keyframe/,
    );
  });

  test("random bytes never throw anything but a ClipError", () => {
    let seed = 12345;
    const rnd = (): number => {
      seed = (seed * 1103515245 + 12345) >>> 0;
      return seed >>> 24;
    };
    for (let round = 0; round < 200; round++) {
      const buf = new Uint8Array(64 + (round % 50));
      for (let i = 0; i < buf.length; i++) buf[i] = round % 2 === 0 ? rnd() : rnd() & 0x03; // many start codes
      if (round % 5 === 0) buf.set([0, 0, 1, 0x67], 0); // force an SPS walk over garbage
      for (const fps of [0, 30]) {
        try {
          parseAnnexB(buf, fps);
        } catch (err) {
          assert.ok(err instanceof ClipError, `round ${round}: ${String(err)}`);
        }
      }
      try {
        parseIvf(buf);
      } catch (err) {
        assert.ok(err instanceof ClipError, `round ${round}: ${String(err)}`);
      }
    }
  });
});

test("keyframeIntervalOf: constant spacing or 0", () => {
  const k = (s: string): boolean[] => [...s].map((c) => c === "K");
  assert.equal(keyframeIntervalOf(k("K..K..K..")), 3);
  assert.equal(keyframeIntervalOf(k("K..K.K")), 0);
  assert.equal(keyframeIntervalOf(k("K....")), 0);
  assert.equal(keyframeIntervalOf(k("")), 0);
});
