// A frame's depacketised pieces as byte ranges of the payloads they lie in, not as a view per
// piece: the reassembler hands them to the fingerprint, which copies the ranges into its scratch
// buffer, so a frame costs no object per packet. Reused across frames: overwritten in place.

const copy = Buffer.prototype.copy;
/** What a dropped piece reference is overwritten with. */
const NO_BYTES = new Uint8Array(0);

/** Copies `src[at … at + len)` into `dst` at `to`, with no view made (Buffer's copy takes ranges). */
export function copyRange(src: Uint8Array, at: number, len: number, dst: Uint8Array, to: number): void {
  copy.call(src, dst, to, at, at + len);
}

/** Piece i is bytes[i][at[i] … at[i] + len[i]); concatenated, the pieces are the frame's data. */
export class FramePieces {
  readonly bytes: Uint8Array[] = [];
  readonly at: number[] = [];
  readonly len: number[] = [];
  n = 0;

  add(bytes: Uint8Array, at: number, len: number): void {
    const i = this.n++;
    this.bytes[i] = bytes;
    this.at[i] = at;
    this.len[i] = len;
  }

  /** Drops the references to the payloads (a reused FramePieces must not keep them alive). */
  clear(): void {
    for (let i = 0; i < this.n; i++) this.bytes[i] = NO_BYTES;
    this.n = 0;
  }

  /** Piece i's first byte. */
  first(i: number): number {
    return this.bytes[i]![this.at[i]!]!;
  }

  /** The pieces as views (tests and the array-returning depacketisers). */
  views(): Uint8Array[] {
    const out: Uint8Array[] = [];
    for (let i = 0; i < this.n; i++)
      out.push(this.bytes[i]!.subarray(this.at[i]!, this.at[i]! + this.len[i]!));
    return out;
  }

  /** Pieces of the given views, whole. */
  static of(views: readonly Uint8Array[]): FramePieces {
    const p = new FramePieces();
    for (const v of views) p.add(v, 0, v.length);
    return p;
  }
}

/** Writes one frame's pieces (payloads in sequence order) into `out`, emptied first; false rejects it. */
export type PieceDepacketize = (payloads: readonly Uint8Array[], out: FramePieces) => boolean;
