// The frames the frame-id and seq-num finders hold back (docs/definitions.md#decodable-frames): a
// delta frame whose reference was not decodable waits here, by the id it continues (frame-id: its
// id; seq-num: its first packet), until the chain reaches it; a keyframe shown gives up those
// before it. Each keeps its end (the id it provides), RTP timestamp, completion instant (ns) and
// bytes (negative: delayed by a retransmission). Fixed arrays; no allocation per frame.

/** Slots (a power of two): a frame this many ids after a waiting one pushes it out. */
const SLOTS = 1024;
const MASK = SLOTS - 1;

export class FrameStash {
  /** frames waiting */
  count = 0;
  readonly end = new Float64Array(SLOTS);
  readonly ts = new Float64Array(SLOTS);
  readonly recv = new Float64Array(SLOTS);
  readonly bytes = new Float64Array(SLOTS);
  /** the id each slot's frame continues; −1 empty */
  private readonly start = new Float64Array(SLOTS).fill(-1);

  /**
   * Holds a frame that continues `start`. Returns 1 when it pushed out a frame SLOTS ids away (given
   * up), else 0; a frame already held is left as it is.
   */
  put(start: number, end: number, ts: number, recv: number, bytes: number): number {
    const slot = start & MASK;
    const held = this.start[slot]!;
    if (held === start) return 0;
    if (held < 0) this.count++;
    this.start[slot] = start;
    this.end[slot] = end;
    this.ts[slot] = ts;
    this.recv[slot] = recv;
    this.bytes[slot] = bytes;
    return held >= 0 ? 1 : 0;
  }

  /** The slot of the frame that continues `id`, taken out of the stash; −1 when none waits. */
  take(id: number): number {
    const slot = id & MASK;
    if (this.start[slot] !== id) return -1;
    this.start[slot] = -1;
    this.count--;
    return slot;
  }

  /** Gives up every frame that continues an id before `start`; returns how many. */
  dropBefore(start: number): number {
    const s = this.start;
    let dropped = 0;
    for (let i = 0; i < SLOTS && this.count > 0; i++) {
      if (s[i]! >= 0 && s[i]! < start) {
        s[i] = -1;
        this.count--;
        dropped++;
      }
    }
    return dropped;
  }

  /** Gives up every frame; returns how many. */
  clear(): number {
    const n = this.count;
    this.count = 0;
    this.start.fill(-1);
    return n;
  }
}
