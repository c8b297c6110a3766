// The reassembler's closed frames (docs/definitions.md#reassembly `closed`): the RTP timestamps of
// frames completed or given up, with the instant each closed, oldest first, so that a late packet
// of a closed frame does not open it again. A ring in typed arrays with an open-addressing index
// (linear probing), in place of a Map: a Map's entries, the boxed instants and the rehashing of
// its table cost an allocation per frame. Frames close in time order and are forgotten oldest
// first; the ring doubles when a stream closes more frames than it holds within the time kept.

const INITIAL_FRAMES = 64;

export class ClosedFrames {
  // ring: frame i of n (oldest first) at (head + i) & (cap − 1)
  private keys: Int32Array;
  private ats: Float64Array;
  private head = 0;
  private n = 0;
  // index: 2 × cap slots, each the ring position + 1 of a frame (0: empty)
  private slots: Int32Array;
  private shift: number;

  constructor(capacity = INITIAL_FRAMES) {
    let cap = 1;
    while (cap < capacity) cap *= 2;
    this.keys = new Int32Array(cap);
    this.ats = new Float64Array(cap);
    this.slots = new Int32Array(2 * cap);
    this.shift = 32 - Math.log2(2 * cap);
  }

  get size(): number {
    return this.n;
  }

  /** Whether a frame of timestamp `ts` (as int32) is remembered. */
  has(ts: number): boolean {
    return this.slotOf(ts | 0) >= 0;
  }

  /** Remembers a frame closed at `atNs` (not remembered yet; instants non-decreasing). */
  add(ts: number, atNs: number): void {
    if (this.n === this.keys.length) this.grow();
    const cap = this.keys.length;
    const pos = (this.head + this.n++) & (cap - 1);
    const key = ts | 0;
    this.keys[pos] = key;
    this.ats[pos] = atNs;
    this.index(key, pos);
  }

  /** Forgets the oldest frames while `nowNs` is more than `forgetNs` past the instant they closed. */
  forgetOlder(nowNs: number, forgetNs: number): void {
    const mask = this.keys.length - 1;
    while (this.n > 0 && nowNs - this.ats[this.head]! > forgetNs) {
      this.unindex(this.slotOf(this.keys[this.head]!));
      this.head = (this.head + 1) & mask;
      this.n--;
    }
  }

  private home(key: number): number {
    return Math.imul(key, 0x9e3779b1) >>> this.shift;
  }

  /** The index slot of `key`, or −1. */
  private slotOf(key: number): number {
    const mask = this.slots.length - 1;
    for (let s = this.home(key); ; s = (s + 1) & mask) {
      const e = this.slots[s]!;
      if (e === 0) return -1;
      if (this.keys[e - 1] === key) return s;
    }
  }

  private index(key: number, pos: number): void {
    const mask = this.slots.length - 1;
    let s = this.home(key);
    while (this.slots[s] !== 0) s = (s + 1) & mask;
    this.slots[s] = pos + 1;
  }

  /** Empties slot `s`, moving later entries of its probe run back (no tombstones). */
  private unindex(s: number): void {
    const slots = this.slots;
    const mask = slots.length - 1;
    let hole = s;
    for (let j = (s + 1) & mask; slots[j] !== 0; j = (j + 1) & mask) {
      const h = this.home(this.keys[slots[j]! - 1]!);
      // the entry at j may fill the hole when its home is not cyclically within (hole, j]
      if (((j - h) & mask) >= ((j - hole) & mask)) {
        slots[hole] = slots[j]!;
        hole = j;
      }
    }
    slots[hole] = 0;
  }

  private grow(): void {
    const cap = this.keys.length;
    const keys = new Int32Array(2 * cap);
    const ats = new Float64Array(2 * cap);
    for (let i = 0; i < this.n; i++) {
      const from = (this.head + i) & (cap - 1);
      keys[i] = this.keys[from]!;
      ats[i] = this.ats[from]!;
    }
    this.keys = keys;
    this.ats = ats;
    this.head = 0;
    this.slots = new Int32Array(4 * cap);
    this.shift = 32 - Math.log2(4 * cap);
    for (let i = 0; i < this.n; i++) this.index(keys[i]!, i);
  }
}
