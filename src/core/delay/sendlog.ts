// The publisher's send log (docs/definitions.md#send-log): the send instant t0 of every absolute frame index k,
// over the last four clip loops, in a SharedArrayBuffer that one writer (the publisher, main
// thread) fills while any number of readers (viewers in workers) look it up concurrently.
//
// Layout of the buffer (N = loopFrames, S = 4·N slots), little-endian host order:
//   bytes  0..3   Int32    recorded: highest k + 1 (0 = nothing), published with Atomics.store
//   bytes  4..7   Int32    loopMin version: odd while the writer updates loopMinNs (seqlock)
//   bytes  8..11  Int32    N, checked by attach
//   bytes 12..15  Int32    reserved
//   bytes 16..23  Float64  loopMinNs: shortest t0[k] − t0[k−N] seen, −1 until a loop closed
//   bytes 24..    Float64  t0Ns[S]: monotonic send instant of the k held in the slot
//   then          Int32    kPlus1[S]: k + 1 of the slot's entry, 0 = empty, −1 = being written
//
// Writing slot s = k mod S: kPlus1[s] ← −1, t0Ns[s] ← t0, kPlus1[s] ← k + 1 (Atomics.store), then
// recorded ← k + 1. A reader loads kPlus1[s], reads t0Ns[s], loads kPlus1[s] again and keeps the
// entry only when both loads hold the k it wants, so it never pairs a k with another k's t0. A
// slot being rewritten or holding a newer k means the wanted send is leaving the ring, and so
// are all older candidates: the lookup stops there.
// k must stay below 2^31 − 1 (two years of frames at 30 fps).

const LOOPS = 4;
const HEADER_BYTES = 24;
const I_RECORDED = 0;
const I_VERSION = 1;
const I_FRAMES = 2;
const F_LOOP_MIN = 2; // Float64 index of byte 16
const WRITING = -1;

/** One logged send; `latest` writes into a caller-owned instance to stay allocation-free. */
export interface SendEntry {
  k: number;
  t0Ns: number;
}

export class SendLog {
  readonly buffer: SharedArrayBuffer;
  readonly loopFrames: number;
  private readonly slots: number;
  private readonly header: Int32Array;
  private readonly f64: Float64Array; // header Float64 cells
  private readonly t0: Float64Array;
  private readonly kp1: Int32Array;
  // writer-side copies (only the writing instance uses them)
  private next = 0;
  private loopMin = -1;

  private constructor(buffer: SharedArrayBuffer, loopFrames: number) {
    if (!Number.isInteger(loopFrames) || loopFrames <= 0) {
      throw new RangeError("sendlog: a send log needs at least one frame per loop");
    }
    const slots = LOOPS * loopFrames;
    if (buffer.byteLength !== SendLog.byteLength(loopFrames)) {
      throw new RangeError(
        `sendlog: buffer of ${buffer.byteLength} bytes does not fit ${loopFrames} frames per loop`,
      );
    }
    this.buffer = buffer;
    this.loopFrames = loopFrames;
    this.slots = slots;
    this.header = new Int32Array(buffer, 0, 4);
    this.f64 = new Float64Array(buffer, 0, 3);
    this.t0 = new Float64Array(buffer, HEADER_BYTES, slots);
    this.kp1 = new Int32Array(buffer, HEADER_BYTES + 8 * slots, slots);
  }

  /** Bytes of the shared buffer for a clip of `loopFrames` frames. */
  static byteLength(loopFrames: number): number {
    return HEADER_BYTES + 12 * LOOPS * loopFrames;
  }

  /** A new, empty log (the writer's side). Throws for loopFrames ≤ 0. */
  static create(loopFrames: number): SendLog {
    if (!Number.isInteger(loopFrames) || loopFrames <= 0) {
      throw new RangeError("sendlog: a send log needs at least one frame per loop");
    }
    const log = new SendLog(new SharedArrayBuffer(SendLog.byteLength(loopFrames)), loopFrames);
    log.header[I_FRAMES] = loopFrames;
    log.f64[F_LOOP_MIN] = -1;
    return log;
  }

  /** A reader's view of a log created elsewhere (e.g. a worker given the buffer). */
  static attach(buffer: SharedArrayBuffer, loopFrames: number): SendLog {
    const log = new SendLog(buffer, loopFrames);
    if (Atomics.load(log.header, I_FRAMES) !== loopFrames) {
      throw new RangeError(
        `sendlog: buffer was made for ${log.header[I_FRAMES]} frames per loop, not ${loopFrames}`,
      );
    }
    return log;
  }

  /**
   * Logs that absolute frame k was sent at t0Ns (monotonic ns). Single writer only. When k−N is
   * still in the ring, the loop it closes updates loopMinNs.
   */
  record(k: number, t0Ns: number): void {
    const S = this.slots;
    const s = k % S;
    Atomics.store(this.kp1, s, WRITING);
    this.t0[s] = t0Ns;
    Atomics.store(this.kp1, s, k + 1);
    const N = this.loopFrames;
    if (k >= N) {
      const p = (k - N) % S;
      if (this.kp1[p] === k - N + 1) {
        const d = t0Ns - this.t0[p]!;
        if (this.loopMin < 0 || d < this.loopMin) {
          this.loopMin = d;
          const v = this.header[I_VERSION]!;
          Atomics.store(this.header, I_VERSION, v + 1);
          this.f64[F_LOOP_MIN] = d;
          Atomics.store(this.header, I_VERSION, v + 2);
        }
      }
    }
    if (k + 1 > this.next) {
      this.next = k + 1;
      Atomics.store(this.header, I_RECORDED, k + 1);
    }
  }

  /** One past the highest k recorded (the number of frames logged when k runs from 0). */
  get recorded(): number {
    return Atomics.load(this.header, I_RECORDED);
  }

  /** The send instant of the highest k recorded; −1 when none, or while that slot is rewritten. */
  newestNs(): number {
    const h = Atomics.load(this.header, I_RECORDED) - 1;
    if (h < 0) return -1;
    const s = h % this.slots;
    if (Atomics.load(this.kp1, s) !== h + 1) return -1;
    const t0 = this.t0[s]!;
    return Atomics.load(this.kp1, s) === h + 1 ? t0 : -1;
  }

  /** Shortest time to send one loop of the clip, ns; −1 until one loop closed. */
  get loopMinNs(): number {
    for (;;) {
      const v1 = Atomics.load(this.header, I_VERSION);
      const d = this.f64[F_LOOP_MIN]!;
      if ((v1 & 1) === 0 && Atomics.load(this.header, I_VERSION) === v1) return d;
    }
  }

  /**
   * The most recent send of clip index i (k ≡ i mod N) with t0 ≤ t1Ns, written into `out` (a
   * fresh object when omitted) and returned; null when i is not a clip index, nothing was
   * recorded, or no logged send of i qualifies (never sent by t1, or rotated out of the ring).
   */
  latest(i: number, t1Ns: number, out?: SendEntry): SendEntry | null {
    const N = this.loopFrames;
    if (!(i >= 0 && i < N)) return null;
    const h = Atomics.load(this.header, I_RECORDED) - 1;
    if (h < i) return null; // also when nothing was recorded
    const S = this.slots;
    const oldest = h - S;
    for (let c = h - ((h - i) % N); c >= i && c > oldest; c -= N) {
      const s = c % S;
      const before = Atomics.load(this.kp1, s);
      if (before !== c + 1) {
        if (before === WRITING || before > c + 1) return null; // c is leaving the ring
        continue; // never logged
      }
      const t0 = this.t0[s]!;
      if (Atomics.load(this.kp1, s) !== c + 1) return null; // overwritten while read
      if (t0 <= t1Ns) {
        const o = out ?? { k: 0, t0Ns: 0 };
        o.k = c;
        o.t0Ns = t0;
        return o;
      }
    }
    return null;
  }
}
