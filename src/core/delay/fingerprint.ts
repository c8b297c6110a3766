// Frame fingerprint (docs/definitions.md#frame-fingerprint), with xxhash64 (seed 0) in place of the
// reference's SHA-256 prefix: the same bytes are hashed. VP8: the whole frame. H.264: the VCL NAL
// units only (types 1–5), header byte included, start codes removed, in order — so a relay that
// adds or repeats parameter sets and SEI does not change a frame's fingerprint.
import { createHash } from "node:crypto";
import xxhash from "xxhash-wasm";
import { splitAnnexB } from "../clip/annexb.ts";
import type { Clip } from "../clip/model.ts";
import { copyRange, FramePieces } from "../codec/pieces.ts";
import { ClipError } from "../errors.ts";
import type { Codec } from "../types.ts";

const SEED = 0n;
const INITIAL_SCRATCH_BYTES = 64 * 1024;

/** H.264 NAL unit types that carry the coded picture. */
export function isVcl(nalType: number): boolean {
  return nalType >= 1 && nalType <= 5;
}

export interface Hasher {
  /**
   * Fingerprint of a frame given as depacketised pieces: VP8 data pieces, or H.264 NAL units
   * without start codes. null when nothing is hashed (no byte, no VCL unit, unknown codec).
   */
  fingerprint(codec: Codec, pieces: readonly Uint8Array[]): bigint | null;
  /** The same fingerprint of pieces given as byte ranges (the reassembler's). */
  fingerprintPieces(codec: Codec, pieces: FramePieces): bigint | null;
  /** Fingerprint of clip frame `index`; equals `fingerprint` of the same frame after RTP. */
  clipFrameFingerprint(clip: Clip, index: number): bigint | null;
  /** Fingerprint of one audio packet's payload, the whole unit (docs/definitions.md#audio-track). */
  packetFingerprint(payload: Uint8Array): bigint;
}

type H64Raw = (input: Uint8Array, seed?: bigint) => bigint;

class XxHasher implements Hasher {
  private readonly h64: H64Raw;
  private scratch = new Uint8Array(INITIAL_SCRATCH_BYTES);

  constructor(h64: H64Raw) {
    this.h64 = h64;
  }

  private room(bytes: number): Uint8Array {
    if (this.scratch.length < bytes) {
      let size = this.scratch.length * 2;
      while (size < bytes) size *= 2;
      this.scratch = new Uint8Array(size);
    }
    return this.scratch;
  }

  fingerprint(codec: Codec, pieces: readonly Uint8Array[]): bigint | null {
    return this.fingerprintPieces(codec, FramePieces.of(pieces));
  }

  fingerprintPieces(codec: Codec, pieces: FramePieces): bigint | null {
    if (codec === "vp8") return this.hashRanges(pieces, false);
    if (codec === "h264") return this.hashRanges(pieces, true);
    return null;
  }

  /**
   * xxhash64 of the pieces concatenated (with `vclOnly`, of the H.264 VCL units only); null when
   * that is no byte or, for H.264, no VCL unit. One piece that is a whole buffer is hashed as it
   * is; otherwise the ranges are copied into the scratch buffer.
   */
  private hashRanges(p: FramePieces, vclOnly: boolean): bigint | null {
    let bytes = 0;
    let kept = 0;
    let last = -1;
    for (let i = 0; i < p.n; i++) {
      if (vclOnly && (p.len[i] === 0 || !isVcl(p.first(i) & 0x1f))) continue;
      bytes += p.len[i]!;
      kept++;
      last = i;
    }
    if (kept === 0 || (!vclOnly && bytes === 0)) return null;
    if (kept === 1 && p.at[last] === 0 && p.len[last] === p.bytes[last]!.length) {
      return this.h64(p.bytes[last]!, SEED);
    }
    const buf = this.room(bytes);
    let off = 0;
    for (let i = 0; i < p.n; i++) {
      if (vclOnly && (p.len[i] === 0 || !isVcl(p.first(i) & 0x1f))) continue;
      copyRange(p.bytes[i]!, p.at[i]!, p.len[i]!, buf, off);
      off += p.len[i]!;
    }
    return this.h64(buf.subarray(0, bytes), SEED);
  }

  packetFingerprint(payload: Uint8Array): bigint {
    return this.h64(payload, SEED);
  }

  clipFrameFingerprint(clip: Clip, index: number): bigint | null {
    const frame = clip.frames[index];
    if (frame === undefined) return null;
    if (clip.codec === "h264") return this.fingerprint("h264", splitAnnexB(frame));
    return this.fingerprint(clip.codec, [frame]);
  }
}

/** A hasher with its own scratch buffer; one per thread (it is not re-entrant). */
export async function createHasher(): Promise<Hasher> {
  const api = await xxhash();
  return new XxHasher(api.h64Raw);
}

export type Lookup = { status: "unique"; index: number } | { status: "duplicate" } | { status: "unknown" };

const UNKNOWN: Lookup = Object.freeze({ status: "unknown" });
const DUPLICATE: Lookup = Object.freeze({ status: "duplicate" });

/**
 * Fingerprint of every clip frame (docs/definitions.md#frame-fingerprint): a fingerprint held by
 * exactly one frame maps to its index (unique), one held by two or more is a duplicate (never
 * sampled), any other is unknown. Built once per run; read-only afterwards. Lookups return shared
 * frozen objects.
 */
/** What a viewer needs to know of a clip to match frames: shipped over a split run's send-log channel. */
export interface ClipIdentity {
  codec: Codec;
  ticks: number;
  fingerprints: bigint[];
  keyframes: boolean[];
  /**
   * simulcast layers whose frames the table holds, layer j's frame i at j·N + i
   * (docs/definitions.md#simulcast-layers); absent: 1
   */
  layers?: number;
}

export class ClipTable {
  readonly codec: Codec;
  /** N, the clip's frame count */
  readonly loopFrames: number;
  /** RTP ticks per frame */
  readonly ticks: number;
  /** clip frames whose fingerprint another clip frame shares */
  readonly duplicateFrames: number;
  /** simulcast layers in the table (1: one encoding); each layer's loop is loopFrames / layers */
  readonly layers: number;
  private readonly keyframes: readonly boolean[];
  /** fingerprint → frame index, or -1 for a duplicate */
  private readonly index = new Map<bigint, number>();
  private readonly unique: readonly Lookup[];

  /** From the clip itself (hashing every frame), or from its identity (a split run's viewer). */
  constructor(hasher: Hasher | null, clip: Clip | ClipIdentity) {
    const id = "frames" in clip ? clipIdentity(hasher as Hasher, clip) : clip;
    if (id.fingerprints.length === 0) throw new ClipError("fingerprint: the clip has no frames");
    if (!(id.ticks > 0)) throw new ClipError("fingerprint: the clip has no frame duration (Ticks is 0)");
    id.fingerprints.forEach((fp, i) => {
      this.index.set(fp, this.index.has(fp) ? -1 : i);
    });
    let duplicates = 0;
    for (const fp of id.fingerprints) if (this.index.get(fp) === -1) duplicates++;
    this.codec = id.codec;
    this.loopFrames = id.fingerprints.length;
    this.ticks = id.ticks;
    this.duplicateFrames = duplicates;
    this.layers = id.layers ?? 1;
    if (!(Number.isInteger(this.layers) && this.layers >= 1 && this.loopFrames % this.layers === 0))
      throw new ClipError(`fingerprint: ${this.loopFrames} frames are not ${this.layers} layers of one loop`);
    this.keyframes = id.keyframes.slice();
    this.unique = id.fingerprints.map((_, i) => Object.freeze({ status: "unique", index: i }) as Lookup);
  }

  lookup(fp: bigint): Lookup {
    const i = this.index.get(fp);
    if (i === undefined) return UNKNOWN;
    if (i < 0) return DUPLICATE;
    return this.unique[i]!;
  }

  /** Whether clip frame `index` is a keyframe; false outside the clip. */
  isKeyframe(index: number): boolean {
    return this.keyframes[index] === true;
  }
}

/**
 * The clip's identity in a report: SHA-256 over the codec, the frame duration in RTP
 * ticks and every frame's fingerprint in clip order, as `sha256:` and its first 16 hex digits.
 * Two clips with the same codec and loop length but other bytes (ours and the reference tool's
 * embedded clips differ from frame 0) get different identities.
 */
export function clipHashOf(id: ClipIdentity): string {
  const h = createHash("sha256").update(`${id.codec}\n${id.ticks}\n`);
  for (const fp of id.fingerprints) h.update(`${fp.toString(16).padStart(16, "0")}\n`);
  return `sha256:${h.digest("hex").slice(0, 16)}`;
}

/** Fingerprint every frame of a clip (docs/definitions.md#frame-fingerprint build errors). */
export function clipIdentity(hasher: Hasher, clip: Clip): ClipIdentity {
  if (clip.frames.length === 0) throw new ClipError("fingerprint: the clip has no frames");
  const fingerprints: bigint[] = [];
  for (let i = 0; i < clip.frames.length; i++) {
    const fp = hasher.clipFrameFingerprint(clip, i);
    if (fp === null) throw new ClipError(`fingerprint: clip frame ${i} has nothing to hash`);
    fingerprints.push(fp);
  }
  return { codec: clip.codec, ticks: clip.ticks, fingerprints, keyframes: clip.keyframes.slice() };
}
