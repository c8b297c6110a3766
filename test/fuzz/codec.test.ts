// Property-based tests of the RTP payload formats (RFC 7741 VP8, RFC 6184 H.264): the
// depacketisers take any payloads and either reject the frame (null) or return pieces that
// lie within them; the keyframe tests take any payload; payloader → depacketiser round-trips.
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { splitAnnexB } from "../../src/core/clip/annexb.ts";
import { depacketizeH264, keyframeStartH264, packetizeH264 } from "../../src/core/codec/h264.ts";
import {
  depacketizeVp8,
  keyframeStartVp8,
  packetizeVp8,
  vp8DescriptorBytes,
} from "../../src/core/codec/vp8.ts";
import { bytes, check, concat, isViewInto, list, onlyThrows } from "./fuzz.ts";

const mtuArb = fc.oneof(
  fc.integer({ min: 1, max: 1500 }),
  fc.constantFrom(0, -1, 1.5, 4, 5, 6, Number.NaN, Number.POSITIVE_INFINITY, 1e9),
);

// ---- VP8 ---------------------------------------------------------------------------------

/** VP8 payloads: a descriptor-shaped first byte (X, S, PID bits) and arbitrary rest. */
const vp8Payload = fc.oneof(
  bytes(12),
  fc
    .tuple(
      fc.constantFrom(0x00, 0x10, 0x80, 0x90, 0x17, 0xff),
      fc.constantFrom(0x00, 0x80, 0xf0, 0x40, 0x30),
      bytes(8),
    )
    .map(([a, b, rest]) => concat([Uint8Array.of(a, b), rest])),
);

test("vp8: depacketize of any payloads is null or one view per payload past its descriptor", (t) => {
  check(t, 1000, [list(vp8Payload, 8)], (payloads) => {
    const r = onlyThrows(() => depacketizeVp8(payloads), []);
    if (!r.ok) return;
    const pieces = r.value;
    const skips = payloads.map(vp8DescriptorBytes);
    if (skips.some((s) => s < 0)) {
      assert.equal(pieces, null);
      return;
    }
    assert.ok(pieces !== null);
    assert.equal(pieces.length, payloads.length);
    pieces.forEach((piece, i) => {
      const p = payloads[i]!;
      assert.ok(isViewInto(piece, p));
      assert.equal(piece.byteOffset, p.byteOffset + skips[i]!);
      assert.equal(piece.byteOffset + piece.length, p.byteOffset + p.length);
      assert.ok(piece.length >= 1, "a descriptor is followed by at least one byte");
    });
  });
});

test("vp8: keyframeStart of any payload is a boolean, true only with S, partition 0 and P = 0", (t) => {
  check(t, 1000, [vp8Payload], (p) => {
    const key = keyframeStartVp8(p);
    assert.equal(typeof key, "boolean");
    if (key) {
      assert.equal(p[0]! & 0x17, 0x10);
      const skip = vp8DescriptorBytes(p);
      assert.ok(skip > 0 && (p[skip]! & 1) === 0);
    }
  });
});

test("vp8: depacketize(packetize(frame)) is the frame, every payload within the MTU", (t) => {
  check(t, 500, [bytes(3000), mtuArb, fc.integer({ min: 0, max: 0x7fff })], (frame, mtu, pictureId) => {
    const payloads = packetizeVp8(frame, mtu, pictureId);
    if (frame.length === 0 || !(Math.floor(mtu) > 4)) {
      assert.equal(payloads.length, 0);
      return;
    }
    for (const p of payloads) assert.ok(p.length <= mtu);
    const pieces = depacketizeVp8(payloads);
    assert.ok(pieces !== null);
    assert.deepEqual(Array.from(concat(pieces)), Array.from(frame));
    assert.equal(keyframeStartVp8(payloads[0]!), (frame[0]! & 1) === 0);
    for (const p of payloads.slice(1)) assert.equal(keyframeStartVp8(p), false, "S only on the first");
  });
});

// ---- H.264 -------------------------------------------------------------------------------

/** H.264 payloads biased to the aggregation (24 STAP-A) and fragmentation (28 FU-A) types. */
const h264Payload = fc.oneof(
  bytes(16),
  fc
    .tuple(
      fc.integer({ min: 0, max: 3 }),
      fc.constantFrom(24, 28, 25, 26, 27, 29, 0, 1, 5, 7, 30, 31),
      bytes(16),
    )
    .map(([nri, type, rest]) => concat([Uint8Array.of((nri << 5) | type), rest])),
  // FU-A fragments with explicit S/E bits
  fc
    .tuple(fc.constantFrom(0x00, 0x80, 0x40, 0xc0), fc.integer({ min: 0, max: 31 }), bytes(10))
    .map(([se, type, rest]) => concat([Uint8Array.of(0x7c, se | type), rest])),
  // STAP-A with length fields that may lie
  fc
    .array(fc.tuple(fc.integer({ min: 0, max: 20 }), bytes(6)), { maxLength: 3 })
    .map((units) =>
      concat([Uint8Array.of(0x78), ...units.flatMap(([len, b]) => [Uint8Array.of(len >> 8, len & 0xff), b])]),
    ),
);

test("h264: depacketize of any payloads is null or non-empty units no larger than the input", (t) => {
  check(t, 1000, [list(h264Payload, 8)], (payloads) => {
    const r = onlyThrows(() => depacketizeH264(payloads), []);
    if (!r.ok || r.value === null) return;
    let inBytes = 0;
    for (const p of payloads) inBytes += p.length;
    let outBytes = 0;
    for (const nal of r.value) {
      assert.ok(nal.length > 0);
      outBytes += nal.length;
    }
    assert.ok(outBytes <= inBytes, `${outBytes} bytes out of ${inBytes}`);
  });
});

test("h264: keyframeStart of any payload is a boolean", (t) => {
  check(t, 1000, [h264Payload], (p) => {
    assert.equal(typeof keyframeStartH264(p), "boolean");
  });
});

/** NAL unit bytes that survive Annex-B framing: no 00 00 01 inside, not ending in 00. */
function framable(b: Uint8Array): Uint8Array {
  const out = b.slice();
  for (let i = 2; i < out.length; i++) if (out[i] === 1 && out[i - 1] === 0 && out[i - 2] === 0) out[i] = 2;
  if (out.length > 0 && out[out.length - 1] === 0) out[out.length - 1] = 0x80;
  return out;
}

/** A valid NAL unit (F = 0, type 1..23) of up to ~2 kB, so that some are fragmented. */
const nalArb = fc
  .tuple(
    fc.oneof(fc.constantFrom(1, 5, 6, 7, 8, 9, 12), fc.integer({ min: 1, max: 23 })),
    fc.integer({ min: 0, max: 3 }),
    fc.oneof(bytes(30), bytes(2000)),
  )
  .map(([type, nri, body]) => framable(concat([Uint8Array.of((nri << 5) | type), body])));

test("h264: depacketize(packetize(access unit)) keeps every unit but AUD and filler, in order", (t) => {
  const mtu = fc.oneof(fc.integer({ min: 3, max: 1500 }), fc.constantFrom(3, 4, 1200));
  check(t, 500, [list(nalArb, 8, 1), mtu], (nals, mtu) => {
    const au = concat(nals.flatMap((n) => [Uint8Array.of(0, 0, 0, 1), n]));
    const payloads = packetizeH264(au, mtu);
    for (const p of payloads) assert.ok(p.length <= mtu, `payload of ${p.length} bytes, MTU ${mtu}`);
    const units = depacketizeH264(payloads);
    assert.ok(units !== null, "the payloader's output is accepted");
    const typeOf = (n: Uint8Array): number => n[0]! & 0x1f;
    const isParam = (n: Uint8Array): boolean => typeOf(n) === 7 || typeOf(n) === 8;
    const show = (list: readonly Uint8Array[]): string[] => list.map((n) => Buffer.from(n).toString("hex"));
    // slices and other units: all of them, in order; SPS/PPS: each one sent is one of the input's
    const sent = splitAnnexB(au).filter((n) => typeOf(n) !== 9 && typeOf(n) !== 12);
    assert.deepEqual(show(units.filter((n) => !isParam(n))), show(sent.filter((n) => !isParam(n))));
    const params = new Set(show(sent.filter(isParam)));
    for (const p of show(units.filter(isParam))) assert.ok(params.has(p));
  });
});

test("h264: packetize of any bytes and any MTU returns payloads within the MTU", (t) => {
  check(t, 500, [bytes(400), mtuArb], (au, mtu) => {
    const payloads = packetizeH264(au, mtu);
    for (const p of payloads) assert.ok(p.length > 0 && p.length <= mtu);
  });
});
