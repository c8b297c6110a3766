// Property-based tests of the clip readers (docs/definitions.md#vp8-ivf-clips, docs/definitions.md#h264-annex-b-clips): the IVF reader, the Annex-B
// splitter and access-unit delimiter, and the SPS timing reader. A reader either returns a
// clip that passes docs/definitions.md#vp8-ivf-clips's validation or throws a one-line ClipError; honest input round-trips.

import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { CLOCK_RATE, type Clip, parseAnnexB, parseIvf, splitAnnexB } from "../../src/core/clip/clip.ts";
import { spsTicks, spsTiming, ticksOfTiming, unescapeRbsp } from "../../src/core/clip/sps.ts";
import { ClipError } from "../../src/core/errors.ts";
import { bytes, check, concat, isViewInto, list, onlyThrows } from "./fuzz.ts";
import { escapeRbsp, spsArb } from "./sps-gen.ts";

/** A ClipError's message is one line naming the reader ("ivf…", "vp8:…", "h264:…"). */
function assertClipMessage(err: Error, prefix: RegExp): void {
  assert.ok(err instanceof ClipError);
  assert.ok(!err.message.includes("\n"), `multi-line message: ${err.message}`);
  assert.match(err.message, prefix);
}

/** What docs/definitions.md#vp8-ivf-clips promises of every clip a reader returns. */
function assertValidClip(clip: Clip, buf: Uint8Array, ivf: boolean): void {
  assert.ok(clip.frames.length >= (ivf ? 2 : 1));
  assert.equal(clip.keyframes.length, clip.frames.length);
  assert.equal(clip.keyframes[0], true);
  assert.ok(Number.isInteger(clip.ticks) && clip.ticks > 0, `ticks ${clip.ticks}`);
  assert.ok(clip.ticks <= (ivf ? 2 ** 31 : 2 ** 32 - 1), `ticks ${clip.ticks}`);
  assert.equal(clip.fps, CLOCK_RATE / clip.ticks);
  assert.ok(Number.isInteger(clip.keyframeInterval) && clip.keyframeInterval >= 0);
  for (const f of clip.frames) {
    assert.ok(f.length > 0);
    if (ivf) assert.ok(isViewInto(f, buf), "an IVF frame is a view into the file");
  }
}

// ---- IVF ---------------------------------------------------------------------------------

interface IvfSpec {
  fourcc: Uint8Array;
  headerBytes: number;
  rate: number;
  scale: number;
  frameCount: number;
  pts0: bigint;
  step: bigint;
  frames: Uint8Array[];
}

function writeIvf(s: IvfSpec, sizeOf: (i: number, real: number) => number = (_i, n) => n): Uint8Array {
  const size = s.headerBytes + s.frames.reduce((n, f) => n + 12 + f.length, 0);
  const buf = new Uint8Array(Math.max(size, 32));
  const v = new DataView(buf.buffer);
  buf.set([0x44, 0x4b, 0x49, 0x46]); // DKIF
  v.setUint16(6, s.headerBytes, true);
  buf.set(s.fourcc.subarray(0, 4), 8);
  v.setUint32(16, s.rate, true);
  v.setUint32(20, s.scale, true);
  v.setUint32(24, s.frameCount, true);
  let off = s.headerBytes;
  s.frames.forEach((f, i) => {
    v.setUint32(off, sizeOf(i, f.length) >>> 0, true);
    v.setBigUint64(off + 4, BigInt.asUintN(64, s.pts0 + BigInt(i) * s.step), true);
    buf.set(f, off + 12);
    off += 12 + f.length;
  });
  return buf;
}

/** An honest IVF file: frames of ticks T each (rate = 90000·step, scale = T). */
const honestIvf = fc
  .record({
    ticks: fc.oneof(fc.constantFrom(3000, 3003, 1500, 1), fc.integer({ min: 1, max: 2 ** 31 })),
    step: fc.bigInt({ min: 1n, max: 1000n }),
    pts0: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
    extraHeader: fc.integer({ min: 0, max: 40 }),
    frameCount: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
    frames: fc.array(bytes(40, 1), { minLength: 2, maxLength: 8 }),
  })
  .filter((r) => r.step * 90000n <= 0xffffffffn)
  .map(({ ticks, step, pts0, extraHeader, frameCount, frames }) => {
    const first = frames[0]!.slice();
    first[0] = first[0]! & 0xfe; // a keyframe first
    const spec: IvfSpec = {
      fourcc: Uint8Array.of(0x56, 0x50, 0x38, 0x30), // VP80
      headerBytes: 32 + extraHeader,
      rate: Number(step * 90000n),
      scale: ticks,
      frameCount,
      pts0,
      step,
      frames: [first, ...frames.slice(1)],
    };
    return { spec, ticks };
  });

test("ivf: an honest file round-trips whatever its frame-count field says", (t) => {
  check(t, 300, [honestIvf], ({ spec, ticks }) => {
    const buf = writeIvf(spec);
    const clip = parseIvf(buf);
    assertValidClip(clip, buf, true);
    assert.equal(clip.ticks, ticks);
    assert.deepEqual(
      clip.frames.map((f) => Array.from(f)),
      spec.frames.map((f) => Array.from(f)),
    );
    assert.deepEqual(
      clip.keyframes,
      spec.frames.map((f) => (f[0]! & 1) === 0),
    );
  });
});

type Mutation =
  | { kind: "truncate"; at: number }
  | { kind: "sizeLie"; frame: number; size: number }
  | { kind: "headerBytes"; value: number }
  | { kind: "rate"; rate: number; scale: number }
  | { kind: "fourcc"; value: Uint8Array }
  | { kind: "flip"; at: number; value: number }
  | { kind: "append"; tail: Uint8Array }
  | { kind: "uneven"; frame: number; pts: bigint };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant("truncate" as const), at: fc.nat() }),
  fc.record({
    kind: fc.constant("sizeLie" as const),
    frame: fc.nat(),
    size: fc.oneof(fc.integer({ min: 0, max: 64 }), fc.integer({ min: 0, max: 2 ** 32 - 1 })),
  }),
  fc.record({ kind: fc.constant("headerBytes" as const), value: fc.integer({ min: 0, max: 0xffff }) }),
  fc.record({
    kind: fc.constant("rate" as const),
    rate: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 2 ** 32 - 1 })),
    scale: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 2 ** 32 - 1 })),
  }),
  fc.record({ kind: fc.constant("fourcc" as const), value: bytes(4, 4) }),
  fc.record({ kind: fc.constant("flip" as const), at: fc.nat(), value: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ kind: fc.constant("append" as const), tail: bytes(20, 1) }),
  fc.record({
    kind: fc.constant("uneven" as const),
    frame: fc.nat(),
    pts: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
  }),
);

/** Offset of frame i's 12-byte header in the honest file of `spec`. */
function frameHeaderAt(spec: IvfSpec, i: number): number {
  let off = spec.headerBytes;
  for (let j = 0; j < i; j++) off += 12 + spec.frames[j]!.length;
  return off;
}

/** Applies one mutation to the current bytes (fields past a truncation are left alone). */
function mutate(buf: Uint8Array, spec: IvfSpec, m: Mutation): Uint8Array {
  const out = m.kind === "truncate" || m.kind === "append" ? buf : buf.slice();
  const v = new DataView(out.buffer, out.byteOffset, out.byteLength);
  const fits = (at: number, n: number): boolean => at + n <= out.length;
  switch (m.kind) {
    case "truncate":
      return buf.subarray(0, m.at % (buf.length + 1));
    case "append":
      return concat([buf, m.tail]);
    case "sizeLie": {
      const at = frameHeaderAt(spec, m.frame % spec.frames.length);
      if (fits(at, 4)) v.setUint32(at, m.size, true);
      return out;
    }
    case "uneven": {
      const at = frameHeaderAt(spec, m.frame % spec.frames.length) + 4;
      if (fits(at, 8)) v.setBigUint64(at, m.pts, true);
      return out;
    }
    case "headerBytes":
      if (fits(6, 2)) v.setUint16(6, m.value, true);
      return out;
    case "rate":
      if (fits(16, 8)) {
        v.setUint32(16, m.rate, true);
        v.setUint32(20, m.scale, true);
      }
      return out;
    case "fourcc":
      if (fits(8, 4)) out.set(m.value, 8);
      return out;
    case "flip":
      if (out.length > 0) out[m.at % out.length] = m.value;
      return out;
  }
}

test("ivf: a lying or damaged file is a one-line ClipError or a valid clip", (t) => {
  check(t, 500, [honestIvf, fc.array(mutation, { minLength: 1, maxLength: 3 })], ({ spec }, ms) => {
    let buf = writeIvf(spec);
    for (const m of ms) buf = mutate(buf, spec, m);
    const r = onlyThrows(() => parseIvf(buf), [ClipError]);
    if (r.ok) assertValidClip(r.value, buf, true);
    else assertClipMessage(r.error, /^(ivf|vp8)/);
  });
});

test("ivf: arbitrary bytes, with or without the DKIF/VP80 magic", (t) => {
  const magic = Uint8Array.of(0x44, 0x4b, 0x49, 0x46, 0, 0, 32, 0, 0x56, 0x50, 0x38, 0x30);
  check(t, 500, [fc.boolean(), bytes(200)], (withMagic, body) => {
    const buf = withMagic ? concat([magic, body]) : body;
    const r = onlyThrows(() => parseIvf(buf), [ClipError]);
    if (r.ok) assertValidClip(r.value, buf, true);
    else assertClipMessage(r.error, /^(ivf|vp8)/);
  });
});

// ---- Annex-B -----------------------------------------------------------------------------

/** NAL unit bytes that survive Annex-B framing: no 00 00 01 inside, not ending in 00. */
function framable(b: Uint8Array): Uint8Array {
  const out = b.slice();
  for (let i = 2; i < out.length; i++) if (out[i] === 1 && out[i - 1] === 0 && out[i - 2] === 0) out[i] = 2;
  if (out.length > 0 && out[out.length - 1] === 0) out[out.length - 1] = 0x80;
  return out;
}

const framableUnit = bytes(30, 1).map(framable);

test("annexb: split(join(units)) = units, for 3- and 4-byte start codes", (t) => {
  check(t, 500, [list(fc.tuple(framableUnit, fc.boolean()), 10)], (units) => {
    const buf = concat(
      units.flatMap(([u, long]) => [long ? Uint8Array.of(0, 0, 0, 1) : Uint8Array.of(0, 0, 1), u]),
    );
    const got = splitAnnexB(buf);
    assert.deepEqual(
      got.map((u) => Array.from(u)),
      units.map(([u]) => Array.from(u)),
    );
  });
});

test("annexb: split of arbitrary bytes gives in-order views with no start code inside", (t) => {
  check(t, 500, [bytes(300)], (buf) => {
    const units = splitAnnexB(buf);
    let prevEnd = 0;
    units.forEach((u, i) => {
      assert.ok(isViewInto(u, buf));
      const at = u.byteOffset - buf.byteOffset;
      assert.ok(at >= prevEnd + 3, "a start code precedes every unit");
      assert.deepEqual(Array.from(buf.subarray(at - 3, at)), [0, 0, 1]);
      for (let j = 2; j < u.length; j++) assert.ok(!(u[j] === 1 && u[j - 1] === 0 && u[j - 2] === 0));
      if (i < units.length - 1) assert.ok(u.length === 0 || u[u.length - 1] !== 0, "trailing zeros trimmed");
      else {
        // the last unit runs to the end, unless the buffer ends in a start code, which opens
        // no unit: then only zeros and that start code follow it
        const rest = Array.from(buf.subarray(at + u.length));
        const endsInStartCode =
          rest.length >= 3 && rest.slice(0, -1).every((b) => b === 0) && rest.at(-1) === 1;
        assert.ok(rest.length === 0 || endsInStartCode, "the last unit runs to the end");
      }
      prevEnd = at + u.length;
    });
  });
});

/** A NAL unit: header (F = 0, NRI, type: mostly the ones the delimiter looks at) and body. */
const nalUnit = fc
  .tuple(
    fc.oneof(fc.constantFrom(1, 5, 6, 7, 8, 9), fc.integer({ min: 0, max: 31 })),
    fc.integer({ min: 0, max: 3 }),
    bytes(20),
  )
  .map(([type, nri, body]) => framable(concat([Uint8Array.of((nri << 5) | type), body])));

const fpsArb = fc.oneof(
  fc.constantFrom(
    0,
    30,
    25,
    60,
    7,
    0.5,
    1e-5,
    1e-300,
    -1,
    -0,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    90000,
    90001,
  ),
  fc.double(),
  fc.integer({ min: -10, max: 100000 }),
);

test("annexb: any stream and any --fps value is a one-line ClipError or a valid clip", (t) => {
  const stream = list(
    fc.oneof(
      { weight: 4, arbitrary: nalUnit },
      spsArb.map((s) => s.nal),
    ),
    12,
  );
  check(t, 500, [stream, bytes(8), fpsArb], (units, garbage, fps) => {
    const buf = concat([garbage, ...units.flatMap((u) => [Uint8Array.of(0, 0, 0, 1), u])]);
    const r = onlyThrows(() => parseAnnexB(buf, fps), [ClipError]);
    if (!r.ok) {
      assertClipMessage(r.error, /^h264/);
      return;
    }
    const clip = r.value;
    assertValidClip(clip, buf, false);
    if (fps > 0) assert.equal(clip.ticks, CLOCK_RATE / fps);
    clip.frames.forEach((f, i) => {
      assert.deepEqual(Array.from(f.subarray(0, 4)), [0, 0, 0, 1]);
      const types = splitAnnexB(f).map((u) => u[0]! & 0x1f);
      assert.ok(types.includes(1) || types.includes(5), "every picture has a slice");
      assert.equal(clip.keyframes[i], types.includes(5));
    });
  });
});

test("annexb: arbitrary bytes", (t) => {
  check(t, 500, [bytes(300), fc.constantFrom(0, 30)], (buf, fps) => {
    const r = onlyThrows(() => parseAnnexB(buf, fps), [ClipError]);
    if (r.ok) assertValidClip(r.value, buf, false);
    else assertClipMessage(r.error, /^h264/);
  });
});

// ---- SPS ---------------------------------------------------------------------------------

test("sps: a well-formed SPS yields the timing_info written, through emulation prevention", (t) => {
  check(t, 500, [spsArb], (sps) => {
    assert.deepEqual(spsTiming(sps.nal), { unitsInTick: sps.unitsInTick, timeScale: sps.timeScale });
    const r = onlyThrows(() => spsTicks(sps.nal), [ClipError]);
    if (r.ok) {
      assert.equal(r.value, ticksOfTiming(sps.unitsInTick, sps.timeScale));
      assert.equal((r.value * sps.timeScale) / 2, CLOCK_RATE * sps.unitsInTick);
    } else assertClipMessage(r.error, /^h264/);
  });
});

test("sps: unescape(escape(rbsp)) = rbsp", (t) => {
  check(t, 500, [bytes(100)], (rbsp) => {
    assert.deepEqual(Array.from(unescapeRbsp(escapeRbsp(rbsp))), Array.from(rbsp));
  });
});

test("sps: arbitrary bytes after an SPS header, and truncated SPSs", (t) => {
  const input = fc.oneof(
    bytes(80).map((b) => concat([Uint8Array.of(0x67), b])),
    fc.tuple(spsArb, fc.nat()).map(([s, cut]) => s.nal.subarray(0, 1 + (cut % s.nal.length))),
    bytes(10),
  );
  check(t, 1000, [input], (nal) => {
    const r = onlyThrows(() => spsTicks(nal), [ClipError]);
    if (r.ok) assert.ok(Number.isInteger(r.value) && r.value > 0 && r.value < 2 ** 32);
    else assertClipMessage(r.error, /^h264/);
  });
});

test("sps: ticksOfTiming of any two uint32 is an exact whole tick count or a ClipError", (t) => {
  const u32 = fc.oneof(
    fc.integer({ min: 0, max: 2 ** 32 - 1 }),
    fc.constantFrom(0, 1, 60, 1001, 60000, 180000),
  );
  check(t, 1000, [u32, u32], (units, scale) => {
    const r = onlyThrows(() => ticksOfTiming(units, scale), [ClipError]);
    if (r.ok) {
      assert.ok(Number.isInteger(r.value) && r.value > 0 && r.value < 2 ** 32);
      assert.equal(BigInt(r.value) * BigInt(scale), 180000n * BigInt(units));
    } else assertClipMessage(r.error, /^h264/);
  });
});
