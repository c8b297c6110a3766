// VP8 in IVF (docs/definitions.md#vp8-ivf-clips): a 32-byte file header, then frames of a 12-byte header
// (uint32 LE size, uint64 LE pts in time-base units) and the frame payload.
import { ClipError } from "../errors.ts";
import { CLOCK_RATE, type Clip, makeClip } from "./model.ts";

const FILE_HEADER_BYTES = 32;
const FRAME_HEADER_BYTES = 12;
/** The largest frame duration accepted, in ticks (the RTP arithmetic keeps it in int32). */
const MAX_TICKS = 2n ** 31n;

function ascii(buf: Uint8Array, from: number, to: number): string {
  let s = "";
  for (let i = from; i < to; i++) {
    const c = buf[i]!;
    s += c >= 0x20 && c < 0x7f ? String.fromCharCode(c) : `\\x${c.toString(16).padStart(2, "0")}`;
  }
  return s;
}

/**
 * Parses a VP8 IVF file. Frames are views into `buf` (no copy). A keyframe is a frame whose
 * first byte has bit 0 clear (RFC 6386 section 9.1). The pts must be evenly spaced; one step is
 * `scale / rate` seconds, and must be a whole number of 90 kHz ticks.
 */
export function parseIvf(buf: Uint8Array): Clip {
  if (buf.length < FILE_HEADER_BYTES || ascii(buf, 0, 4) !== "DKIF") {
    throw new ClipError("ivf: not an IVF file");
  }
  const fourcc = ascii(buf, 8, 12);
  if (fourcc !== "VP80") throw new ClipError(`ivf: FourCC "${fourcc}", want VP80`);
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const headerBytes = view.getUint16(6, true);
  const rate = view.getUint32(16, true);
  const scale = view.getUint32(20, true);
  if (rate === 0 || scale === 0 || headerBytes < FILE_HEADER_BYTES || headerBytes > buf.length) {
    throw new ClipError("ivf: bad header");
  }

  const frames: Uint8Array[] = [];
  const keyframes: boolean[] = [];
  const pts: bigint[] = [];
  for (let off = headerBytes; off < buf.length; ) {
    const index = frames.length;
    if (off + FRAME_HEADER_BYTES > buf.length) throw new ClipError(`ivf frame ${index}: truncated header`);
    const size = view.getUint32(off, true);
    const p = view.getBigUint64(off + 4, true);
    off += FRAME_HEADER_BYTES;
    if (size === 0 || off + size > buf.length) throw new ClipError(`ivf frame ${index}: bad size ${size}`);
    const frame = buf.subarray(off, off + size);
    off += size;
    frames.push(frame);
    keyframes.push((frame[0]! & 0x01) === 0);
    pts.push(p);
  }
  if (pts.length < 2) throw new ClipError("ivf: need at least two frames to know the frame rate");

  const step = BigInt.asUintN(64, pts[1]! - pts[0]!);
  for (let i = 2; i < pts.length; i++) {
    if (BigInt.asUintN(64, pts[i]! - pts[i - 1]!) !== step) {
      throw new ClipError(`ivf: frame ${i} is not evenly spaced (constant frame rate required)`);
    }
  }
  // step units of scale/rate seconds = step·scale·90000/rate ticks, exactly.
  const num = step * BigInt(scale) * BigInt(CLOCK_RATE);
  const den = BigInt(rate);
  const ticks = num / den;
  if (ticks === 0n || ticks > MAX_TICKS || num % den !== 0n) {
    throw new ClipError("ivf: frame duration is not a whole number of 90 kHz ticks");
  }
  return makeClip("vp8", frames, keyframes, Number(ticks));
}
