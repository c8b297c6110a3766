// H.264 Annex-B elementary streams (docs/definitions.md#h264-annex-b-clips): NAL splitting and
// access-unit delimiting.
import { ClipError } from "../errors.ts";
import { CLOCK_RATE, type Clip, makeClip } from "./model.ts";
import { spsTicks } from "./sps.ts";

/**
 * The NAL units of an Annex-B stream, start codes removed (views into `buf`, no copy). Each unit
 * runs from after a `00 00 01` to the next one with all trailing zero bytes trimmed (which drops
 * the leading zero of a 4-byte start code); the last runs to the end of the buffer. Bytes before
 * the first start code are not a unit, and a start code at the very end opens none (the empty unit
 * it would open is one the access-unit step skips anyway, docs/definitions.md#h264-annex-b-clips).
 */
export function splitAnnexB(buf: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  let start = -1;
  let i = 0;
  const last = buf.length - 2;
  while (i < last) {
    // b[i+2] is the cheapest test: most bytes are not 1 and it lets the scan skip ahead.
    const c = buf[i + 2]!;
    if (c > 1) {
      i += 3;
      continue;
    }
    if (c === 1 && buf[i + 1] === 0 && buf[i] === 0) {
      if (start >= 0) {
        let end = i;
        while (end > start && buf[end - 1] === 0) end--;
        out.push(buf.subarray(start, end));
      }
      i += 3;
      start = i;
      continue;
    }
    i++;
  }
  if (start >= 0 && start < buf.length) out.push(buf.subarray(start));
  return out;
}

/**
 * The longest frame in ticks, as for an SPS frame rate (docs/definitions.md#h264-annex-b-clips: a
 * whole number < 2^32).
 */
const MAX_TICKS = 2 ** 32 - 1;

function isVclSlice(type: number): boolean {
  return type === 1 || type === 5;
}

/** Frame duration in ticks from `fps` (> 0), or from the stream's first SPS (0). */
function ticksFor(nals: readonly Uint8Array[], fps: number): number {
  if (fps > 0 && Number.isFinite(fps)) {
    const ticks = CLOCK_RATE / fps;
    if (!Number.isInteger(ticks))
      throw new ClipError(`h264: frame rate ${fps} does not divide the 90 kHz clock`);
    // the bound the SPS path has (docs/definitions.md#h264-annex-b-clips): a 32-bit RTP timestamp step
    if (ticks > MAX_TICKS) throw new ClipError(`h264: frame rate ${fps} is too low for the 90 kHz clock`);
    return ticks;
  }
  if (fps !== 0) throw new ClipError(`h264: frame rate ${fps} is not a frame rate`);
  for (const nal of nals) {
    if (nal.length > 1 && (nal[0]! & 0x1f) === 7) return spsTicks(nal);
  }
  throw new ClipError("h264: no SPS in the stream to read the frame rate from; give it with --fps");
}

/** One access unit as Annex-B with 4-byte start codes, copied out of the stream. */
function joinUnits(nals: readonly Uint8Array[]): Uint8Array {
  let size = 0;
  for (const nal of nals) size += 4 + nal.length;
  const out = new Uint8Array(size);
  let off = 0;
  for (const nal of nals) {
    out[off + 3] = 1;
    out.set(nal, off + 4);
    off += 4 + nal.length;
  }
  return out;
}

/**
 * Parses an H.264 Annex-B stream into access units (H.264 clause 7.4.1.2.3): SEI, SPS, PPS or AUD
 * after a slice, or a slice with first_mb_in_slice 0 after a slice, starts a new picture.
 * A picture is kept only if it has a slice (type 1 or 5); type 5 makes it a keyframe.
 * `fps` 0 reads the frame rate from the first SPS; a positive `fps` overrides it.
 */
export function parseAnnexB(buf: Uint8Array, fps = 0): Clip {
  const nals = splitAnnexB(buf);
  const ticks = ticksFor(nals, fps);
  const frames: Uint8Array[] = [];
  const keyframes: boolean[] = [];
  let cur: Uint8Array[] = [];
  let curVcl = false;
  let curKey = false;
  const flush = (): void => {
    if (curVcl) {
      frames.push(joinUnits(cur));
      keyframes.push(curKey);
    }
    cur = [];
    curVcl = false;
    curKey = false;
  };
  for (const nal of nals) {
    if (nal.length === 0) continue;
    const type = nal[0]! & 0x1f;
    if (type >= 6 && type <= 9) {
      if (curVcl) flush();
    } else if (isVclSlice(type)) {
      // first_mb_in_slice is ue(v): it is 0 exactly when its first bit is 1.
      if (curVcl && nal.length > 1 && (nal[1]! & 0x80) !== 0) flush();
      curVcl = true;
      if (type === 5) curKey = true;
    }
    cur.push(nal);
  }
  flush();
  return makeClip("h264", frames, keyframes, ticks);
}
