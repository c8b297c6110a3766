// The Ogg/Opus clip reader (docs/definitions.md#audio-clip): the embedded clip's packets (20 ms
// each, none byte-equal to another), packets spanning pages, and malformed files refused with
// the page or packet at fault named.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { loadAudioClip, OPUS_PACKET_TICKS, parseOggOpus } from "../../src/core/clip/clip.ts";
import { oggCrc, oggPackets, opusPacketSamples } from "../../src/core/clip/ogg-opus.ts";
import { createHasher } from "../../src/core/delay/fingerprint.ts";
import { throwsClip } from "./clip-helpers.ts";

const EMBEDDED = fileURLToPath(new URL("../../clips/clip-opus.ogg", import.meta.url));

/** One Ogg page of `packets` (each laced whole), with its CRC. */
function page(
  seq: number,
  packets: Uint8Array[],
  flags = 0,
  serial = 7,
  open: Uint8Array | null = null,
): Uint8Array {
  const lacing: number[] = [];
  const body: number[] = [];
  for (const p of packets) {
    let n = p.length;
    while (n >= 255) {
      lacing.push(255);
      n -= 255;
    }
    lacing.push(n);
    body.push(...p);
  }
  if (open !== null) {
    // a packet left open: its 255-byte segments only, continued on the next page
    for (let n = 0; n < open.length; n += 255) lacing.push(255);
    body.push(...open);
  }
  const h = new Uint8Array(27 + lacing.length + body.length);
  h.set([0x4f, 0x67, 0x67, 0x53, 0, flags]);
  const dv = new DataView(h.buffer);
  dv.setUint32(14, serial, true);
  dv.setUint32(18, seq, true);
  h[26] = lacing.length;
  h.set(lacing, 27);
  h.set(body, 27 + lacing.length);
  dv.setUint32(22, oggCrc(h), true);
  return h;
}

const cat = (...parts: Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
};

const ascii = (s: string): number[] => [...s].map((c) => c.charCodeAt(0));
const HEAD = Uint8Array.from([...ascii("OpusHead"), 1, 2, 0x38, 0x01, 0x80, 0xbb, 0, 0, 0, 0, 0]);
const TAGS = Uint8Array.from([...ascii("OpusTags"), 0, 0, 0, 0, 0, 0, 0, 0]);
/** A CELT 20 ms mono frame (config 31, code 0) with `n` filler bytes. */
const celt20 = (n: number, fill: number): Uint8Array => Uint8Array.from([0xf8, ...new Array(n).fill(fill)]);

describe("Ogg/Opus clip", () => {
  test("the embedded clip: 4.02 s of 20 ms mono packets, no two byte-equal", async () => {
    const clip = loadAudioClip();
    assert.equal(clip.codec, "opus");
    assert.equal(clip.channels, 1);
    assert.equal(clip.ticks, OPUS_PACKET_TICKS);
    assert.equal(clip.packets.length, 201);
    for (const p of clip.packets) assert.equal(opusPacketSamples(p), 960);
    const h = await createHasher();
    const fps = new Set(clip.packets.map((p) => h.packetFingerprint(p)));
    assert.equal(fps.size, clip.packets.length, "every packet has its own fingerprint");
    const bytes = new Set(clip.packets.map((p) => Buffer.from(p).toString("hex")));
    assert.equal(bytes.size, clip.packets.length, "no two packets are byte-equal");
  });

  test("a packet spanning pages is rebuilt whole", () => {
    const big = celt20(600, 0xaa);
    const file = cat(
      page(0, [HEAD]),
      page(1, [TAGS]),
      page(2, [celt20(10, 1)], 0, 7, big.subarray(0, 510)),
      page(3, [big.subarray(510), celt20(10, 2)], 1),
    );
    const clip = parseOggOpus(file);
    assert.equal(clip.packets.length, 3);
    assert.deepEqual(Array.from(clip.packets[1]!), Array.from(big));
    assert.equal(clip.channels, 2);
    assert.equal(clip.preSkip, 312);
  });

  test("malformed files are refused with what is wrong", () => {
    const good = cat(page(0, [HEAD]), page(1, [TAGS]), page(2, [celt20(10, 1), celt20(10, 2)]));
    assert.equal(parseOggOpus(good).packets.length, 2);
    throwsClip(() => parseOggOpus(Uint8Array.from(ascii("RIFF....WAVEfmt "))), "ogg: not an Ogg file");
    throwsClip(
      () => parseOggOpus(good.subarray(0, good.length - 3)),
      /ogg page 2 \(byte \d+\): truncated body/,
    );
    const flipped = good.slice();
    flipped[flipped.length - 1]! ^= 0xff;
    throwsClip(() => parseOggOpus(flipped), /ogg page 2 .*: bad CRC/);
    throwsClip(
      () => parseOggOpus(cat(page(0, [HEAD]), page(1, [TAGS], 0, 8))),
      /ogg page 1 .*: a second logical stream/,
    );
    throwsClip(() => parseOggOpus(cat(page(0, [HEAD]), page(2, [TAGS]))), /page sequence 2, want 1/);
    throwsClip(
      () => parseOggOpus(cat(page(0, [HEAD]), page(1, [TAGS], 0, 7, celt20(509, 0)))),
      "ogg: the last packet is cut off (the file is truncated)",
    );
    throwsClip(
      () => parseOggOpus(cat(page(0, [TAGS]))),
      "ogg: the stream is not Opus (no OpusHead packet first)",
    );
    throwsClip(() => parseOggOpus(cat(page(0, [HEAD]), page(1, [HEAD]))), "opus: no OpusTags packet second");
    throwsClip(
      () => parseOggOpus(cat(page(0, [HEAD]), page(1, [TAGS]))),
      "opus: the clip has no audio packets",
    );
    // CELT 10 ms (config 30): not the 20 ms the publisher paces
    const tenMs = Uint8Array.from([0xf0, 1, 2, 3]);
    throwsClip(
      () => parseOggOpus(cat(page(0, [HEAD]), page(1, [TAGS]), page(2, [celt20(4, 1), tenMs]))),
      "opus packet 1: 10 ms; every packet must be 20 ms (encode with -frame_duration 20)",
    );
    throwsClip(
      () => parseOggOpus(cat(page(0, [HEAD]), page(1, [TAGS]), page(2, [Uint8Array.of(0xfb)]))),
      "opus packet 0: malformed table of contents",
    );
  });

  test("the embedded file's pages carry valid CRCs and one packet per 20 ms", () => {
    const buf = new Uint8Array(readFileSync(EMBEDDED));
    assert.equal(oggPackets(buf).length, 203, "OpusHead, OpusTags and 201 audio packets");
  });
});
