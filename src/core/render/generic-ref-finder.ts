// libwebrtc's generic reference finder (docs/definitions.md#decodable-frames;
// modules/video_coding/rtp_generic_ref_finder.cc) with FrameBuffer3's rule for what it hands on
// (api/video/frame_buffer.cc): a frame carries its id and its references explicitly (from a dependency
// descriptor: id − each frame diff). A keyframe is decodable; another frame when each of its references
// was decoded. A frame with more than 5 references is dropped (kMaxFrameReferences). A frame that is
// decodable makes every waiting frame before it undecodable (FrameBuffer3 erases the frames before
// the one it takes); a frame at or before the last decodable one is handed on for the caller to count
// late. So a lost frame that nothing references costs one frame; one that others reference stops
// them, and those that reference them, until a frame whose references are all decoded — the next
// keyframe, or a frame of a lower layer. Fixed arrays; no allocation per frame.

/** kMaxFrameReferences */
export const MAX_REFERENCES = 5;
/** decoded ids remembered (a power of two) */
const HISTORY = 1024;
/** frames waiting at most; a frame beyond pushes the oldest out */
const STASH = 128;
/** per waiting frame: id, reference count, 5 references, key, the caller's three numbers */
const W = 11;

/** Where handed-on frames go: their id, whether key, and the caller's three numbers. */
export type GenericHandOff = (id: number, key: boolean, a: number, b: number, c: number) => void;

export class GenericRefFinder {
  /** frames given up: too many references, pushed out of the stash, or overtaken */
  dropped = 0;
  private readonly handOff: GenericHandOff;
  private lastId = -1;
  private readonly decoded = new Float64Array(HISTORY).fill(-1);
  private readonly st = new Float64Array(STASH * W);
  private stashed = 0;

  constructor(handOff: GenericHandOff) {
    this.handOff = handOff;
  }

  /** Frames waiting. */
  get waiting(): number {
    return this.stashed;
  }

  /**
   * One frame: `id` its (unwrapped) frame id, its references `id − fdiffs[i]` for i < `n`. Returns
   * whether it was not handed on (it waits or was dropped: the chain is broken there).
   */
  frame(id: number, fdiffs: Int32Array, n: number, key: boolean, a: number, b: number, c: number): boolean {
    if (n > MAX_REFERENCES) {
      this.dropped++;
      return true;
    }
    const o = this.put(id, fdiffs, n, key, a, b, c);
    if (key || id <= this.lastId || this.ready(o)) {
      this.stashed--;
      this.pass(o);
      this.retry();
      return false;
    }
    return true;
  }

  /** Stashes a frame at the end; returns its offset. */
  private put(
    id: number,
    fdiffs: Int32Array,
    n: number,
    key: boolean,
    a: number,
    b: number,
    c: number,
  ): number {
    if (this.stashed === STASH) {
      this.st.copyWithin(0, W);
      this.stashed--;
      this.dropped++;
    }
    const o = this.stashed++ * W;
    const st = this.st;
    st[o] = id;
    st[o + 1] = n;
    for (let i = 0; i < n; i++) st[o + 2 + i] = id - fdiffs[i]!;
    st[o + 7] = key ? 1 : 0;
    st[o + 8] = a;
    st[o + 9] = b;
    st[o + 10] = c;
    return o;
  }

  /** Whether every reference of the frame at `o` was decoded. */
  private ready(o: number): boolean {
    const st = this.st;
    const n = st[o + 1]!;
    for (let i = 0; i < n; i++) {
      const r = st[o + 2 + i]!;
      if (r >= st[o]! || this.decoded[r % HISTORY] !== r) return false;
    }
    return true;
  }

  /**
   * Hands on the frame at `o` (already counted out of the stash, its slot still readable): a frame
   * after the last one is decoded, and the waiting frames before it are given up.
   */
  private pass(o: number): void {
    const st = this.st;
    const id = st[o]!;
    const key = st[o + 7] === 1;
    const a = st[o + 8]!;
    const b = st[o + 9]!;
    const c = st[o + 10]!;
    st.copyWithin(o, o + W, (this.stashed + 1) * W);
    if (id > this.lastId || key) {
      this.lastId = id;
      this.decoded[id % HISTORY] = id;
      // FrameBuffer3 erases the frames before the one it takes
      for (let i = 0; i < this.stashed; ) {
        if (st[i * W]! < id) {
          st.copyWithin(i * W, (i + 1) * W, this.stashed * W);
          this.stashed--;
          this.dropped++;
        } else i++;
      }
    }
    this.handOff(id, key, a, b, c);
  }

  /** Hands on waiting frames whose references are now decoded, lowest id first. */
  private retry(): void {
    for (;;) {
      let best = -1;
      for (let i = 0; i < this.stashed; i++) {
        const o = i * W;
        if (this.ready(o) && (best < 0 || this.st[o]! < this.st[best]!)) best = o;
      }
      if (best < 0) return;
      this.stashed--;
      this.pass(best);
    }
  }
}
