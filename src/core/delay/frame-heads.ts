// The stamp source's memory of each open frame's head (docs/definitions.md#stamp-source): by RTP
// timestamp, the lowest sequence number seen, its abs-capture-time stamp and whether it starts a
// keyframe. A fixed ring in typed arrays, in the order frames were first seen, in place of a Map
// of objects: a Map's entries and the rehashing of its table cost an allocation per frame. A
// stream has a few frames open at once, and a lookup scans from the newest, where a packet's
// frame is found first; at most `capacity` are kept, the oldest forgotten past it.

export class FrameHeads {
  private readonly cap: number;
  private readonly ts: Float64Array;
  private readonly seq: Uint16Array;
  private readonly stampNs: Float64Array;
  private readonly key: Uint8Array;
  private readonly live: Uint8Array;
  // entries [first, first + used) of the ring, oldest first; some may be removed (live 0)
  private first = 0;
  private used = 0;
  private count = 0;

  constructor(capacity: number) {
    this.cap = capacity;
    this.ts = new Float64Array(capacity);
    this.seq = new Uint16Array(capacity);
    this.stampNs = new Float64Array(capacity);
    this.key = new Uint8Array(capacity);
    this.live = new Uint8Array(capacity);
  }

  /** Frames remembered. */
  get size(): number {
    return this.count;
  }

  /** The slot of timestamp `ts`, or −1 when it is not remembered. */
  find(ts: number): number {
    for (let i = this.used - 1; i >= 0; i--) {
      const s = (this.first + i) % this.cap;
      if (this.live[s] === 1 && this.ts[s] === ts) return s;
    }
    return -1;
  }

  seqAt(s: number): number {
    return this.seq[s]!;
  }
  stampAt(s: number): number {
    return this.stampNs[s]!;
  }
  keyAt(s: number): boolean {
    return this.key[s] === 1;
  }

  /** Sets the head of slot `s`. */
  set(s: number, seq: number, stampNs: number, key: boolean): void {
    this.seq[s] = seq;
    this.stampNs[s] = stampNs;
    this.key[s] = key ? 1 : 0;
  }

  /** Remembers a new frame (not remembered yet) as the newest; forgets the oldest when full. */
  add(ts: number, seq: number, stampNs: number, key: boolean): void {
    if (this.count === this.cap) this.remove(this.first);
    if (this.used === this.cap) this.compact();
    const s = (this.first + this.used++) % this.cap;
    this.ts[s] = ts;
    this.live[s] = 1;
    this.count++;
    this.set(s, seq, stampNs, key);
  }

  /** Forgets slot `s`. */
  remove(s: number): void {
    this.live[s] = 0;
    this.count--;
    while (this.used > 0 && this.live[this.first] === 0) {
      this.first = (this.first + 1) % this.cap;
      this.used--;
    }
  }

  /** Moves the remembered frames together, in order, so the ring has room after the newest. */
  private compact(): void {
    let w = 0;
    for (let r = 0; r < this.used; r++) {
      const from = (this.first + r) % this.cap;
      if (this.live[from] === 0) continue;
      const to = (this.first + w++) % this.cap;
      if (to === from) continue;
      this.ts[to] = this.ts[from]!;
      this.live[to] = 1;
      this.live[from] = 0;
      this.set(to, this.seq[from]!, this.stampNs[from]!, this.key[from] === 1);
    }
    this.used = w;
  }
}
