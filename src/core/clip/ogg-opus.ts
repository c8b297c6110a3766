import { ClipError } from "../errors.ts";
// The Opus audio clip (docs/definitions.md#audio-clip): an Ogg stream (RFC 3533) of one logical
// Opus stream (RFC 7845) read into its packets — pages checked (capture pattern, version, CRC,
// one serial, page sequence), packets rebuilt from the lacing values, OpusHead and OpusTags
// checked and set aside, and every audio packet held to 20 ms (960 ticks of the 48 kHz RTP clock,
// RFC 7587), the publisher's pace. Pure: bytes in, packets out; every problem is a ClipError.

/** The RTP clock of Opus (RFC 7587 section 4.1: always 48 kHz, whatever the input rate). */
export const OPUS_CLOCK_RATE = 48000;
/** The one packet duration the publisher paces: 20 ms, in RTP ticks. */
export const OPUS_PACKET_TICKS = 960;

export interface AudioClip {
  codec: "opus";
  /** the audio packets in order (OpusHead and OpusTags excluded) */
  packets: Uint8Array[];
  /** RTP ticks per packet (960: 20 ms) */
  ticks: number;
  /** OpusHead's channel count (1 or 2) */
  channels: number;
  /** OpusHead's pre-skip, samples at 48 kHz */
  preSkip: number;
}

const PAGE_HEADER_BYTES = 27;
const CONTINUED = 0x01;

/** CRC-32 of Ogg pages: polynomial 0x04c11db7, MSB first, initial 0, no final xor (RFC 3533 section 6). */
const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let r = i << 24;
    for (let j = 0; j < 8; j++) r = r & 0x80000000 ? (r << 1) ^ 0x04c11db7 : r << 1;
    t[i] = r >>> 0;
  }
  return t;
})();

/** CRC of a page with its checksum field (bytes 22..25) read as zero. */
export function oggCrc(page: Uint8Array): number {
  let crc = 0;
  for (let i = 0; i < page.length; i++) {
    const b = i >= 22 && i < 26 ? 0 : page[i]!;
    crc = ((crc << 8) ^ CRC_TABLE[((crc >>> 24) ^ b) & 0xff]!) >>> 0;
  }
  return crc;
}

function u32le(b: Uint8Array, at: number): number {
  return (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0;
}

/** The packets of a one-stream Ogg file, in order; throws ClipError naming the page at fault. */
export function oggPackets(buf: Uint8Array): Uint8Array[] {
  const packets: Uint8Array[] = [];
  let partial: Uint8Array[] = [];
  let serial = -1;
  let off = 0;
  for (let page = 0; off < buf.length; page++) {
    const where = `ogg page ${page} (byte ${off})`;
    if (buf[off] !== 0x4f || buf[off + 1] !== 0x67 || buf[off + 2] !== 0x67 || buf[off + 3] !== 0x53) {
      throw new ClipError(page === 0 ? "ogg: not an Ogg file" : `${where}: no capture pattern "OggS"`);
    }
    if (off + PAGE_HEADER_BYTES > buf.length) throw new ClipError(`${where}: truncated header`);
    if (buf[off + 4] !== 0) throw new ClipError(`${where}: stream structure version ${buf[off + 4]}, want 0`);
    const flags = buf[off + 5]!;
    const pageSerial = u32le(buf, off + 14);
    if (serial === -1) serial = pageSerial;
    else if (pageSerial !== serial) {
      throw new ClipError(`${where}: a second logical stream (multiplexed or chained Ogg is not supported)`);
    }
    if (u32le(buf, off + 18) !== page)
      throw new ClipError(`${where}: page sequence ${u32le(buf, off + 18)}, want ${page}`);
    const segments = buf[off + 26]!;
    const bodyAt = off + PAGE_HEADER_BYTES + segments;
    if (bodyAt > buf.length) throw new ClipError(`${where}: truncated segment table`);
    let bodyBytes = 0;
    for (let s = 0; s < segments; s++) bodyBytes += buf[off + PAGE_HEADER_BYTES + s]!;
    const end = bodyAt + bodyBytes;
    if (end > buf.length) throw new ClipError(`${where}: truncated body`);
    if (oggCrc(buf.subarray(off, end)) !== u32le(buf, off + 22)) throw new ClipError(`${where}: bad CRC`);
    if ((flags & CONTINUED) !== 0 && partial.length === 0) {
      throw new ClipError(`${where}: continues a packet that never began`);
    }
    if ((flags & CONTINUED) === 0 && partial.length > 0) {
      throw new ClipError(`${where}: the previous page's last packet is not continued`);
    }
    let at = bodyAt;
    for (let s = 0; s < segments; s++) {
      const len = buf[off + PAGE_HEADER_BYTES + s]!;
      partial.push(buf.subarray(at, at + len));
      at += len;
      if (len < 255) {
        packets.push(join(partial));
        partial = [];
      }
    }
    off = end;
  }
  if (partial.length > 0) throw new ClipError("ogg: the last packet is cut off (the file is truncated)");
  return packets;
}

function join(parts: Uint8Array[]): Uint8Array {
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
}

/** Samples at 48 kHz of one Opus frame of TOC configuration `config` (RFC 6716 section 3.1). */
function frameSamples(config: number): number {
  if (config < 12) return [480, 960, 1920, 2880][config & 3]!;
  if (config < 16) return [480, 960][config & 1]!;
  return [120, 240, 480, 960][config & 3]!;
}

/** Duration of an Opus packet in 48 kHz samples, −1 when its TOC or frame count is malformed. */
export function opusPacketSamples(p: Uint8Array): number {
  if (p.length < 1) return -1;
  const toc = p[0]!;
  const per = frameSamples(toc >> 3);
  const code = toc & 3;
  if (code === 0) return per;
  if (code === 1 || code === 2) return 2 * per;
  if (p.length < 2) return -1;
  const count = p[1]! & 0x3f;
  return count === 0 ? -1 : count * per;
}

function ascii(b: Uint8Array, at: number, n: number): string {
  return String.fromCharCode(...b.subarray(at, at + n));
}

/** Parses an Ogg/Opus file into an AudioClip (docs/definitions.md#audio-clip). */
export function parseOggOpus(buf: Uint8Array): AudioClip {
  const packets = oggPackets(buf);
  const head = packets[0];
  if (head === undefined || head.length < 19 || ascii(head, 0, 8) !== "OpusHead") {
    throw new ClipError("ogg: the stream is not Opus (no OpusHead packet first)");
  }
  if (head[8]! >> 4 !== 0) throw new ClipError(`opus: OpusHead version ${head[8]}, want 0.x`);
  const channels = head[9]!;
  const preSkip = head[10]! | (head[11]! << 8);
  if (head[18]! !== 0 || (channels !== 1 && channels !== 2)) {
    throw new ClipError(
      `opus: ${channels} channels with mapping family ${head[18]}; want mono or stereo (family 0)`,
    );
  }
  const tags = packets[1];
  if (tags === undefined || tags.length < 8 || ascii(tags, 0, 8) !== "OpusTags") {
    throw new ClipError("opus: no OpusTags packet second");
  }
  const audio = packets.slice(2);
  if (audio.length === 0) throw new ClipError("opus: the clip has no audio packets");
  audio.forEach((p, i) => {
    const samples = opusPacketSamples(p);
    if (samples !== OPUS_PACKET_TICKS) {
      throw new ClipError(
        samples < 0
          ? `opus packet ${i}: malformed table of contents`
          : `opus packet ${i}: ${samples / 48} ms; every packet must be 20 ms (encode with -frame_duration 20)`,
      );
    }
  });
  return { codec: "opus", packets: audio, ticks: OPUS_PACKET_TICKS, channels, preSkip };
}
