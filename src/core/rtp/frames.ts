// The reassembler's two kinds of frame: a complete one as it leaves (with its instants), and a
// pending one still missing a packet, its head proof or its end (pooled, overwritten in place).
import { FramePieces, type PieceDepacketize } from "../codec/pieces.ts";
import type { PayloadChunk, PayloadStore, ReleaseQueue } from "./payload-store.ts";

/** Depacketiser of one frame's payloads in sequence order, as views; null rejects the frame. */
export type Depacketize = (payloads: readonly Uint8Array[]) => Uint8Array[] | null;
/** A depacketiser: one that writes ranges (the pipeline's, no view per piece) or one that returns views. */
export type Depacketizer = { pieces: PieceDepacketize } | Depacketize;

export interface CompletedFrame {
  timestamp: number;
  /** depacketised pieces (concatenated they are the frame); null when the depacketiser rejected it */
  pieces: FramePieces | null;
  /** t1: arrival of the packet at the frame's highest sequence number */
  arrivalNs: number;
  /** arrival of the packet that made the frame complete */
  completedNs: number;
  /** arrival of the first of its packets to arrive */
  firstNs: number;
  /** a packet of the frame arrived strictly after the packet at its highest sequence number */
  late: boolean;
  /** extended sequence numbers of its lowest and highest packets */
  lo: number;
  hi: number;
  /** the payload at `lo` (a reference, valid as the pieces are) */
  head: Uint8Array;
  /** a keyframe, by the codec's FrameStart.frameKey; false without one */
  keyframe: boolean;
}

/**
 * The CompletedFrame objects of a reassembler's pushes: a new object per frame, or with `reuse`
 * one pooled object per position within a push, overwritten by the next push. A caller that
 * reuses them must take what it keeps (fingerprint, instants) before pushing again.
 */
export class FrameResults {
  reuse = false;
  // the last push's frames by position (pooled objects with reuse), and with reuse their pieces
  private readonly list: CompletedFrame[] = [];
  private readonly pieces: FramePieces[] = [];
  private used = 0;

  /**
   * At the start of a push: with reuse, the last push's frames drop their pieces, so that pooled
   * objects do not keep payloads (datagram buffers, payload chunks) alive.
   */
  release(): void {
    if (!this.reuse) return;
    for (let i = 0; i < this.used; i++) {
      this.list[i]!.pieces = null;
      this.list[i]!.head = NO_PAYLOAD;
      this.pieces[i]?.clear();
    }
    this.used = 0;
  }

  /** The object for the i-th frame completed by this push. */
  at(i: number): CompletedFrame {
    if (i >= this.used) this.used = i + 1;
    let r = this.list[i];
    if (r === undefined || !this.reuse) {
      r = newFrame();
      this.list[i] = r;
    }
    return r;
  }

  /** Where the i-th frame's pieces go: pooled with reuse, else new. */
  piecesAt(i: number): FramePieces {
    if (!this.reuse) return new FramePieces();
    let p = this.pieces[i];
    if (p === undefined) {
      p = new FramePieces();
      this.pieces[i] = p;
    }
    return p;
  }

  /** The i-th frame completed by the last push (i below what it returned). */
  frame(i: number): CompletedFrame {
    return this.list[i]!;
  }
}

function newFrame(): CompletedFrame {
  return {
    timestamp: 0,
    pieces: null,
    arrivalNs: 0,
    completedNs: 0,
    firstNs: 0,
    late: false,
    lo: 0,
    hi: 0,
    head: NO_PAYLOAD,
    keyframe: false,
  };
}

/**
 * A frame still missing a packet, its head proof or its end. Pooled: arrays are overwritten by
 * index, never shrunk.
 */
export class PendingFrame {
  ts = 0;
  lo = 0;
  hi = 0;
  count = 0;
  firstNs = 0;
  lastNs = 0; // arrival of the last packet added (arrivals are non-decreasing)
  hiMarker = false;
  hiNs = 0;
  hasMarker = false;
  /** frame-start class of the packet at lo (−1: none, or no codec rule) */
  loClass = -1;
  /** the head was proven by the packet before lo (set by the completion test) */
  headBySeq = false;
  readonly exts: number[] = [];
  readonly payloads: Uint8Array[] = [];
  /** the chunk holding payload i where own(i) copied it (payload-store.ts) */
  private readonly kept: (PayloadChunk | null | undefined)[] = [];
  private readonly into: { chunk: PayloadChunk | null } = { chunk: null };

  /** The payload at extended sequence number `ext` (one of the frame's), else NO_PAYLOAD. */
  payloadAt(ext: number): Uint8Array {
    for (let j = 0; j < this.count; j++) if (this.exts[j] === ext) return this.payloads[j]!;
    return NO_PAYLOAD;
  }

  /** Replaces payload i by a copy of its bytes in `store`: its caller reuses the original after the push. */
  own(i: number, store: PayloadStore): void {
    this.payloads[i] = store.keep(this.payloads[i]!, this.into);
    this.kept[i] = this.into.chunk;
  }

  /** Drops the payload references (for the pool); the chunks of copied ones go to `released`. */
  clear(released: ReleaseQueue): void {
    for (let j = 0; j < this.count; j++) {
      this.payloads[j] = NO_PAYLOAD;
      const c = this.kept[j];
      if (c != null) {
        released.add(c);
        this.kept[j] = null;
      }
    }
    this.count = 0;
  }
}

/** The empty payload that overwrites a dropped reference. */
export const NO_PAYLOAD = new Uint8Array(0);
/** Frames of up to this many packets are depacketised from a cached array of their exact length. */
const CACHED_SIZES = 32;

/**
 * Runs the depacketiser over a pending frame's payloads lo…hi in sequence order, a fresh call per
 * frame (no state crosses frames); false rejects the frame. The array it gets is reused
 * afterwards: a depacketiser must not keep it (it may keep the payloads).
 */
export class FrameDepacketiser {
  private readonly depacketize: Depacketizer;
  private readonly bySize: (Uint8Array[] | undefined)[] = []; // depacketiser input arrays by length

  constructor(depacketize: Depacketizer) {
    this.depacketize = depacketize;
  }

  /** The frame's pieces into `out`; false when rejected. */
  depacketise(f: PendingFrame, out: FramePieces): boolean {
    const n = f.count;
    let input = n <= CACHED_SIZES ? this.bySize[n] : undefined;
    if (input === undefined) {
      input = new Array<Uint8Array>(n).fill(NO_PAYLOAD);
      if (n <= CACHED_SIZES) this.bySize[n] = input;
    }
    for (let j = 0; j < n; j++) input[f.exts[j]! - f.lo] = f.payloads[j]!;
    let ok: boolean;
    try {
      ok = this.run(input, out);
    } catch {
      ok = false;
    }
    for (let j = 0; j < n; j++) input[j] = NO_PAYLOAD;
    return ok;
  }

  private run(input: readonly Uint8Array[], out: FramePieces): boolean {
    const d = this.depacketize;
    if (typeof d !== "function") return d.pieces(input, out);
    const views = d(input);
    out.n = 0;
    if (views === null) return false;
    for (const v of views) out.add(v, 0, v.length);
    return true;
  }
}

/**
 * At most this many frames pending at once. A stream has a handful (one per frame still
 * within WINDOW_NS of its first packet: 30 at 30 fps when every frame loses a packet); a
 * sender inventing a new timestamp per packet would otherwise make every push scan thousands
 * of them (quadratic time). Past it the frame whose first packet arrived earliest is given
 * up as incomplete, as expiry would do a little later.
 */
export const MAX_PENDING = 256;
