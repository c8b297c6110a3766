// Loading a clip: the embedded one shipped in clips/, or a file the user names (docs/definitions.md#clips).

import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { ClipError } from "../errors.ts";
import type { Codec } from "../types.ts";
import { parseAnnexB } from "./annexb.ts";
import { parseIvf } from "./ivf.ts";
import type { Clip } from "./model.ts";
import { type AudioClip, parseOggOpus } from "./ogg-opus.ts";

export { parseAnnexB, splitAnnexB } from "./annexb.ts";
export { parseIvf } from "./ivf.ts";
export { CLOCK_RATE, type Clip, keyframeIntervalOf } from "./model.ts";
export { type AudioClip, OPUS_CLOCK_RATE, OPUS_PACKET_TICKS, parseOggOpus } from "./ogg-opus.ts";
export { spsTicks } from "./sps.ts";

/** A clip file larger than this is refused before it is read. */
export const MAX_CLIP_BYTES = 64 * 1024 * 1024;

const EMBEDDED: Record<Codec, string> = {
  vp8: "clip-vp8.ivf",
  h264: "clip-h264.h264",
};

const EMBEDDED_AUDIO = "clip-opus.ogg";

/** Path of the embedded clip of a codec (clips/ at the project root). */
export function embeddedClipPath(codec: Codec): string {
  return fileURLToPath(new URL(`../../../clips/${EMBEDDED[codec]}`, import.meta.url));
}

function describe(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return "no such file";
    if (code === "EISDIR") return "is a directory";
    if (code === "EACCES") return "permission denied";
    return err.message;
  }
  return String(err);
}

/** Reads a whole clip file, refusing one over MAX_CLIP_BYTES before reading it. */
function readClipFile(path: string): Uint8Array {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (err) {
    throw new ClipError(`clip ${path}: ${describe(err)}`, { cause: err });
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new ClipError(`clip ${path}: not a regular file`);
    if (st.size > MAX_CLIP_BYTES) {
      throw new ClipError(`clip ${path}: ${st.size} bytes is larger than the ${MAX_CLIP_BYTES}-byte limit`);
    }
    const buf = new Uint8Array(st.size);
    let off = 0;
    while (off < buf.length) {
      const n = readSync(fd, buf, off, buf.length - off, off);
      if (n === 0) break; // the file shrank while being read: parse what is there
      off += n;
    }
    return off === buf.length ? buf : buf.subarray(0, off);
  } catch (err) {
    if (err instanceof ClipError) throw err;
    throw new ClipError(`clip ${path}: ${describe(err)}`, { cause: err });
  } finally {
    closeSync(fd);
  }
}

/**
 * Loads a clip of `codec`: the embedded clip, or the file at `opts.path`. `opts.fps` (H.264
 * only) overrides the frame rate of the stream's SPS; a VP8 clip states its own rate.
 * Every problem is a ClipError with the text the user sees.
 */
export function loadClip(codec: Codec, opts: { path?: string; fps?: number } = {}): Clip {
  if (codec !== "vp8" && codec !== "h264") {
    throw new ClipError(`unknown codec "${String(codec)}" (want vp8 or h264)`);
  }
  const fps = opts.fps ?? 0;
  if (fps !== 0 && codec !== "h264") {
    throw new ClipError(`a frame rate applies to an h264 clip; a ${codec} clip states its own`);
  }
  const buf = readClipFile(opts.path ?? embeddedClipPath(codec));
  return codec === "vp8" ? parseIvf(buf) : parseAnnexB(buf, fps);
}

/** Path of the embedded Opus clip (clips/ at the project root). */
export function embeddedAudioClipPath(): string {
  return fileURLToPath(new URL(`../../../clips/${EMBEDDED_AUDIO}`, import.meta.url));
}

/** Whether a file starts with Ogg's capture pattern (`publish --clip` tells an audio clip by it). */
export function isOggFile(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return false;
  }
  try {
    const head = new Uint8Array(4);
    return readSync(fd, head, 0, 4, 0) === 4 && String.fromCharCode(...head) === "OggS";
  } catch {
    return false; // a directory, say: the clip reader says what is wrong with it
  } finally {
    closeSync(fd);
  }
}

/**
 * Loads the audio clip: the embedded Opus one, or the Ogg/Opus file at `path`
 * (docs/definitions.md#audio-clip).
 */
export function loadAudioClip(path?: string): AudioClip {
  return parseOggOpus(readClipFile(path ?? embeddedAudioClipPath()));
}
