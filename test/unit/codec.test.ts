import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { type Clip, loadClip, splitAnnexB } from "../../src/core/clip/clip.ts";
import { depacketizeH264, keyframeStartH264, packetizeH264 } from "../../src/core/codec/h264.ts";
import { depacketizeVp8, keyframeStartVp8, packetizeVp8 } from "../../src/core/codec/vp8.ts";
import { createHasher, type Hasher } from "../../src/core/delay/fingerprint.ts";
import type { Codec } from "../../src/core/types.ts";

const MTU = 1200;
const hex = (...bytes: number[]): Uint8Array => Uint8Array.from(bytes);
const concat = (parts: readonly Uint8Array[]): number[] => parts.flatMap((p) => [...p]);
const annexB = (...nals: Uint8Array[]): Uint8Array =>
  Uint8Array.from(nals.flatMap((n) => [0, 0, 0, 1, ...n]));

const packetize = (codec: Codec, frame: Uint8Array, i: number, mtu = MTU): Uint8Array[] =>
  codec === "vp8" ? packetizeVp8(frame, mtu, i & 0x7fff) : packetizeH264(frame, mtu);
const depacketize = (codec: Codec, payloads: readonly Uint8Array[]): Uint8Array[] | null =>
  codec === "vp8" ? depacketizeVp8(payloads) : depacketizeH264(payloads);
const keyStart = (codec: Codec, payload: Uint8Array): boolean =>
  codec === "vp8" ? keyframeStartVp8(payload) : keyframeStartH264(payload);

let hasher: Hasher;
const clips: Record<Codec, Clip> = { vp8: loadClip("vp8"), h264: loadClip("h264") };
before(async () => {
  hasher = await createHasher();
});

describe("round trip of the clips (MTU 1200)", () => {
  for (const codec of ["vp8", "h264"] as const) {
    test(`${codec}: packetize → depacketize → fingerprint equals the clip frame's`, () => {
      const clip = clips[codec];
      let packets = 0;
      for (let i = 0; i < clip.frames.length; i++) {
        const payloads = packetize(codec, clip.frames[i]!, i);
        packets += payloads.length;
        for (const p of payloads) assert.ok(p.length <= MTU && p.length > 0, `frame ${i}: ${p.length} bytes`);
        const pieces = depacketize(codec, payloads);
        assert.ok(pieces !== null, `frame ${i} rejected`);
        const fp = hasher.fingerprint(codec, pieces);
        assert.ok(fp !== null);
        assert.equal(fp, hasher.clipFrameFingerprint(clip, i), `frame ${i}`);
      }
      // docs/definitions.md#clips: ≈ 2.29 (VP8) and ≈ 2.99 (H.264) packets per frame
      assert.ok(packets / clip.frames.length > 2 && packets / clip.frames.length < 3.5);
    });
  }

  test("vp8: the pieces concatenate to the frame byte for byte", () => {
    const clip = clips.vp8;
    for (let i = 0; i < clip.frames.length; i += 7) {
      const pieces = depacketizeVp8(packetizeVp8(clip.frames[i]!, MTU, i))!;
      assert.deepEqual(concat(pieces), [...clip.frames[i]!]);
    }
  });

  test("h264: the NAL units come back as the access unit held them", () => {
    const clip = clips.h264;
    for (let i = 0; i < clip.frames.length; i += 5) {
      const nals = depacketizeH264(packetizeH264(clip.frames[i]!, MTU))!;
      assert.deepEqual(
        nals.map((n) => [...n]),
        splitAnnexB(clip.frames[i]!).map((n) => [...n]),
        `frame ${i}`,
      );
    }
  });

  test("small and odd MTUs still round-trip", () => {
    for (const codec of ["vp8", "h264"] as const) {
      const clip = clips[codec];
      for (const mtu of [100, 257, 999]) {
        for (const i of [0, 1, 30, 119]) {
          const payloads = packetize(codec, clip.frames[i]!, i, mtu);
          for (const p of payloads) assert.ok(p.length <= mtu);
          const fp = hasher.fingerprint(codec, depacketize(codec, payloads)!);
          assert.equal(fp, hasher.clipFrameFingerprint(clip, i), `${codec} mtu ${mtu} frame ${i}`);
        }
      }
    }
  });
});

describe("h264 payloader", () => {
  test("every keyframe yields exactly one STAP-A (SPS + PPS), delta frames none", () => {
    const clip = clips.h264;
    let staps = 0;
    for (let i = 0; i < clip.frames.length; i++) {
      const payloads = packetizeH264(clip.frames[i]!, MTU);
      const stapA = payloads.filter((p) => (p[0]! & 0x1f) === 24);
      staps += stapA.length;
      if (!clip.keyframes[i]) {
        assert.equal(stapA.length, 0, `frame ${i}`);
        continue;
      }
      assert.equal(stapA.length, 1, `keyframe ${i}`);
      assert.equal(payloads[0], stapA[0], "the STAP-A goes first");
      const units = depacketizeH264(stapA)!.map((n) => n[0]! & 0x1f);
      assert.deepEqual(units, [7, 8]);
    }
    assert.equal(staps, 4);
  });

  test("pion's rules: AUD and filler dropped, SPS+PPS aggregated before the next unit, large units in FU-A", () => {
    const sps = hex(0x67, 0x42, 0xc0, 0x1f);
    const pps = hex(0x68, 0xce, 0x3c, 0x80);
    const sei = hex(0x06, 5, 1, 2);
    const idr = Uint8Array.from({ length: 2500 }, (_, i) => (i === 0 ? 0x65 : (i * 7) & 0xff));
    const out = packetizeH264(annexB(hex(0x09, 0xf0), sps, pps, sei, hex(0x0c, 0xff, 0xff), idr), MTU);
    assert.deepEqual([...out[0]!], [0x78, 0, 4, ...sps, 0, 4, ...pps]);
    assert.deepEqual([...out[1]!], [...sei]);
    const fu = out.slice(2);
    assert.equal(fu.length, 3);
    assert.deepEqual(
      fu.map((p) => [p[0], p[1]]),
      [
        [0x7c, 0x85],
        [0x7c, 0x05],
        [0x7c, 0x45],
      ],
    );
    assert.deepEqual(concat(fu.map((p) => p.subarray(2))), [...idr.subarray(1)]);
    assert.equal(fu[0]!.length, MTU);
  });

  test("SPS/PPS still held at the end of the access unit are sent; no start code = one unit", () => {
    const sps = hex(0x67, 1, 2);
    const pps = hex(0x68, 3);
    assert.deepEqual(
      packetizeH264(annexB(sps, pps), MTU).map((p) => [...p]),
      [[0x78, 0, 3, ...sps, 0, 2, ...pps]],
    );
    assert.deepEqual(
      packetizeH264(annexB(sps), MTU).map((p) => [...p]),
      [[...sps]],
    );
    assert.deepEqual(
      packetizeH264(hex(0x41, 9, 9), MTU).map((p) => [...p]),
      [[0x41, 9, 9]],
    );
    assert.deepEqual(packetizeH264(new Uint8Array(0), MTU), []);
    assert.deepEqual(packetizeH264(annexB(hex(0x41, 1)), 0), []);
  });
});

describe("vp8 payloader", () => {
  test("descriptor: X, I, 15-bit picture ID with M, S on the first packet only", () => {
    const frame = Uint8Array.from({ length: 3000 }, (_, i) => i & 0xff);
    const out = packetizeVp8(frame, MTU, 0x1234);
    assert.equal(out.length, 3);
    assert.deepEqual(
      out.map((p) => [...p.subarray(0, 4)]),
      [
        [0x90, 0x80, 0x92, 0x34],
        [0x80, 0x80, 0x92, 0x34],
        [0x80, 0x80, 0x92, 0x34],
      ],
    );
    assert.deepEqual(
      out.map((p) => p.length),
      [1200, 1200, 3000 - 2 * 1196 + 4],
    );
    assert.deepEqual([...packetizeVp8(hex(0x10, 1), MTU, 5)[0]!], [0x90, 0x80, 0x80, 0x05, 0x10, 1]);
    assert.deepEqual([...packetizeVp8(hex(1), MTU, 0x7fff)[0]!], [0x90, 0x80, 0xff, 0xff, 1]);
    assert.deepEqual(packetizeVp8(new Uint8Array(0), MTU, 0), []);
    assert.deepEqual(packetizeVp8(hex(1, 2), 4, 0), []);
  });
});

describe("keyframe starts on the payloaded clips", () => {
  for (const codec of ["vp8", "h264"] as const) {
    test(`${codec}: the first packet of every keyframe, nothing in a delta frame`, () => {
      const clip = clips[codec];
      let starts = 0;
      for (let i = 0; i < clip.frames.length; i++) {
        const flags = packetize(codec, clip.frames[i]!, i).map((p) => keyStart(codec, p));
        assert.equal(flags[0], clip.keyframes[i], `frame ${i}, first packet`);
        if (!clip.keyframes[i]) assert.ok(!flags.includes(true), `delta frame ${i}`);
        starts += flags.filter(Boolean).length;
      }
      // VP8: only the S packet. H.264 (docs/definitions.md#keyframe-start): the STAP-A holding the SPS, and the IDR's
      // first FU-A fragment, which is also an IDR start by the rule.
      assert.equal(starts, codec === "vp8" ? 4 : 8);
    });
  }
});

describe("vp8 depacketiser", () => {
  test("descriptor variants are skipped", () => {
    const one = depacketizeVp8([hex(0x10, 0xaa, 0xbb), hex(0x00, 0xcc)])!;
    assert.deepEqual(concat(one), [0xaa, 0xbb, 0xcc]);
    // X with a 7-bit picture ID, L, T and K
    const two = depacketizeVp8([hex(0x90, 0xf0, 0x05, 0x11, 0x22, 0xaa), hex(0x80, 0x40, 0x33, 0xbb)])!;
    assert.deepEqual(concat(two), [0xaa, 0xbb]);
    assert.deepEqual(depacketizeVp8([]), []);
  });

  test("malformed descriptors reject the frame", () => {
    const good = hex(0x90, 0x80, 0x81, 0x02, 0xaa);
    for (const bad of [
      hex(), // empty
      hex(0x10), // no payload byte
      hex(0x90), // X without its byte
      hex(0x90, 0x80), // I without the picture ID
      hex(0x90, 0x80, 0x81), // 15-bit ID cut short
      hex(0x90, 0x80, 0x81, 0x02), // descriptor only
      hex(0x90, 0x40, 0x01), // L byte but nothing after
    ]) {
      assert.equal(depacketizeVp8([good, bad]), null, `[${[...bad]}]`);
    }
  });

  test("keyframeStartVp8 rules (docs/definitions.md#keyframe-start)", () => {
    assert.ok(keyframeStartVp8(hex(0x90, 0x80, 0x81, 0x02, 0x10)));
    assert.ok(keyframeStartVp8(hex(0x10, 0x50)));
    assert.ok(!keyframeStartVp8(hex(0x10, 0x51)), "P = 1: interframe");
    assert.ok(!keyframeStartVp8(hex(0x80, 0x80, 0x81, 0x02, 0x10)), "S = 0");
    assert.ok(!keyframeStartVp8(hex(0x11, 0x10)), "partition index 1");
    assert.ok(!keyframeStartVp8(hex(0x90, 0x80, 0x81, 0x02)), "no payload header");
    assert.ok(!keyframeStartVp8(hex()));
  });
});

describe("h264 depacketiser", () => {
  const fuA = (type: number, flags: number, ...data: number[]): Uint8Array =>
    hex(0x60 | 28, flags | type, ...data);

  test("single units, STAP-A and FU-A give whole NAL units", () => {
    const nals = depacketizeH264([
      hex(0x78, 0, 2, 0x67, 1, 0, 0, 0, 1, 0x68),
      hex(0x06, 9),
      fuA(5, 0x80, 1, 2),
      fuA(5, 0x00, 3),
      fuA(5, 0x40, 4, 5),
      hex(0x41, 7),
    ])!;
    assert.deepEqual(
      nals.map((n) => [...n]),
      [[0x67, 1], [0x68], [0x06, 9], [0x65, 1, 2, 3, 4, 5], [0x41, 7]],
    );
  });

  test("STAP-B, MTAP16, MTAP24, FU-B, type 0/30/31 and empty payloads reject the frame", () => {
    const ok = hex(0x41, 1);
    for (const type of [0, 25, 26, 27, 29, 30, 31]) {
      assert.equal(depacketizeH264([ok, hex(type, 0, 1, 0x41)]), null, `type ${type}`);
    }
    assert.equal(depacketizeH264([ok, hex()]), null);
  });

  test("truncated STAP-A rejects the frame", () => {
    assert.equal(depacketizeH264([hex(0x78, 0, 5, 0x67, 1)]), null, "size beyond the payload");
    assert.equal(depacketizeH264([hex(0x78, 0, 1, 0x67, 0)]), null, "dangling length byte");
  });

  test("FU-A without a start, a second start, an interruption or no end rejects the frame", () => {
    assert.equal(depacketizeH264([fuA(5, 0x00, 1), fuA(5, 0x40, 2)]), null, "no start");
    assert.equal(depacketizeH264([fuA(5, 0x40, 2)]), null, "end only");
    assert.equal(depacketizeH264([fuA(5, 0x80, 1), fuA(5, 0x80, 2), fuA(5, 0x40, 3)]), null, "two starts");
    assert.equal(depacketizeH264([fuA(5, 0x80, 1), hex(0x41, 9), fuA(5, 0x40, 3)]), null, "interrupted");
    assert.equal(depacketizeH264([fuA(5, 0x80, 1), fuA(5, 0x00, 2)]), null, "never ends");
    assert.equal(depacketizeH264([hex(0x7c)]), null, "FU-A without its header");
  });

  test("a fresh state per call: fragments of one frame never reach the next", () => {
    assert.equal(depacketizeH264([fuA(1, 0x80, 0xde, 0xad)]), null);
    assert.equal(depacketizeH264([fuA(1, 0x40, 0xbe, 0xef)]), null);
    const next = depacketizeH264([fuA(1, 0x80, 1), fuA(1, 0x40, 2)])!;
    assert.deepEqual(
      next.map((n) => [...n]),
      [[0x61, 1, 2]],
    );
  });

  test("keyframeStartH264 rules (docs/definitions.md#keyframe-start)", () => {
    assert.ok(keyframeStartH264(hex(0x65, 0x88)), "IDR");
    assert.ok(keyframeStartH264(hex(0x67, 0x42)), "SPS");
    assert.ok(!keyframeStartH264(hex(0x68, 0xce)), "PPS");
    assert.ok(!keyframeStartH264(hex(0x41, 0x9a)), "P slice");
    assert.ok(keyframeStartH264(hex(0x78, 0, 2, 0x68, 1, 0, 2, 0x65, 2)), "STAP-A with an IDR second");
    assert.ok(!keyframeStartH264(hex(0x78, 0, 2, 0x68, 1, 0, 2, 0x41, 2)), "STAP-A without");
    assert.ok(!keyframeStartH264(hex(0x78, 0, 0, 0, 2, 0x65, 1)), "zero length ends the walk");
    assert.ok(!keyframeStartH264(hex(0x78, 0, 9, 0x65, 1)), "overrun ends the walk");
    assert.ok(keyframeStartH264(fuA(5, 0x80, 1)), "FU-A start of an IDR");
    assert.ok(keyframeStartH264(fuA(7, 0x80, 1)), "FU-A start of an SPS");
    assert.ok(!keyframeStartH264(fuA(5, 0x00, 1)), "FU-A middle");
    assert.ok(!keyframeStartH264(fuA(1, 0x80, 1)), "FU-A start of a P slice");
    assert.ok(!keyframeStartH264(hex(0x5d, 0x85, 1)), "FU-B");
    assert.ok(!keyframeStartH264(hex(0x7c)), "FU-A cut short");
    assert.ok(!keyframeStartH264(hex()));
  });
});
