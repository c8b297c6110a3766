// A frame's depacketised pieces as byte ranges of the payloads they lie in, not as a view per
// piece: the reassembler hands them to the fingerprint, which copies the ranges into its scratch
// buffer, so a frame costs no object per packet. Reused across frames: overwritten in place.

const copy = Buffer.prototype.copy;

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
