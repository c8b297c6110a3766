// The reassembler's memory of recent packets (docs/definitions.md#reassembly `seen`): extended
// sequence number → (RTP timestamp, arrival). A power-of-two ring indexed by ext & mask that
// behaves as a map: it grows (doubling) only when a live entry would be overwritten, and
// "forgetting entries older than the cutoff" is a single comparison on read, so steady state
// allocates nothing. Arrivals must be non-decreasing across add() calls (they are: one read loop,
// one clock).
//
// Growth stops at MAX_CAPACITY slots: a sender whose sequence numbers jump by large powers of
// two (say +16384 per packet) makes live entries collide at every smaller size, and unbounded
// doubling would reach hundreds of MB within a second of such packets. At the cap a collision
// overwrites the older entry (that packet is forgotten early, as pruning would forget it).
// 2^16 slots hold every packet of a stream whose live entries span fewer than 2^16
// sequence numbers — the most the 16-bit RTP sequence number can tell apart anyway.

/**
 * A stream's first sequence number is extended to EXT_BASE + seq: room for 2^14 wraps back and 2^14
 * forward (10^9 packets) within V8's small integers, so that an extended number passed between
 * functions is never a boxed heap number (2^32, as before, made every one a double). A multiple of
 * 2^16: the low 16 bits of an extended number are its sequence number.
 */
export const EXT_BASE = 2 ** 30;
const EMPTY = -1;
/** The ring never grows past this many slots (1.25 MiB of arrays). */
export const MAX_CAPACITY = 1 << 16;

export class SeenRing {
  private mask: number;
  private exts: Float64Array;
  private tss: Uint32Array;
  private ats: Float64Array;
  /** entries that arrived before this instant are forgotten */
  private cutoffNs = Number.NEGATIVE_INFINITY;

  constructor(initialCapacity = 256) {
    let size = 1;
    while (size < initialCapacity && size < MAX_CAPACITY) size *= 2;
    this.mask = size - 1;
    this.exts = new Float64Array(size).fill(EMPTY);
    this.tss = new Uint32Array(size);
    this.ats = new Float64Array(size);
  }

  get capacity(): number {
    return this.mask + 1;
  }

  /** RTP timestamp of a remembered ext, or −1 when it is not (or no longer) remembered. */
  tsOf(ext: number): number {
    const s = ext & this.mask; // ToInt32 keeps the low 32 bits of any ext < 2^53
    return this.exts[s] === ext && this.ats[s]! >= this.cutoffNs ? this.tss[s]! : -1;
  }

  /** Remembers ext; at MAX_CAPACITY a live entry in its slot is overwritten (forgotten). */
  add(ext: number, ts: number, arrivalNs: number): void {
    let s = ext & this.mask;
    while (this.exts[s] !== EMPTY && this.exts[s] !== ext && this.ats[s]! >= this.cutoffNs) {
      if (!this.grow()) break;
      s = ext & this.mask;
    }
    this.exts[s] = ext;
    this.tss[s] = ts;
    this.ats[s] = arrivalNs;
  }

  /** Forgets every entry that arrived before cutoffNs. */
  forgetBefore(cutoffNs: number): void {
    this.cutoffNs = cutoffNs;
  }

  /** Remembered entries (scans the ring; tests and diagnostics). */
  get size(): number {
    let n = 0;
    for (let i = 0; i <= this.mask; i++) if (this.exts[i] !== EMPTY && this.ats[i]! >= this.cutoffNs) n++;
    return n;
  }

  /**
   * Doubles the ring until its live entries no longer collide, or up to MAX_CAPACITY where a
   * collision keeps the later arrival. false when the ring is already at MAX_CAPACITY.
   */
  private grow(): boolean {
    if (this.mask + 1 >= MAX_CAPACITY) return false;
    for (let size = (this.mask + 1) * 2; ; size *= 2) {
      const last = size >= MAX_CAPACITY;
      const mask = size - 1;
      const exts = new Float64Array(size).fill(EMPTY);
      const tss = new Uint32Array(size);
      const ats = new Float64Array(size);
      let ok = true;
      for (let i = 0; i <= this.mask && ok; i++) {
        const e = this.exts[i]!;
        if (e === EMPTY || this.ats[i]! < this.cutoffNs) continue;
        const s = e & mask;
        if (exts[s] !== EMPTY) {
          if (!last) ok = false;
          else if (ats[s]! > this.ats[i]!) continue; // at the cap: the later arrival stays
        }
        exts[s] = e;
        tss[s] = this.tss[i]!;
        ats[s] = this.ats[i]!;
      }
      if (ok) {
        this.mask = mask;
        this.exts = exts;
        this.tss = tss;
        this.ats = ats;
        return true;
      }
    }
  }
}
