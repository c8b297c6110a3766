// The publisher's send log (docs/definitions.md#send-log): the send instant t0 and the clip index i
// of every absolute frame index k, over the last 4·N frames (N = the clip's frames), in a
// SharedArrayBuffer that one writer (the publisher, main thread) fills while any number of readers
// (viewers in workers) look it up concurrently. The clip index of k is what the publisher sent, not
// k mod N: a keyframe on request cuts a GOP short (docs/definitions.md#keyframes-on-request).
//
// Layout of the buffer (S = 4·N slots), little-endian host order:
//   bytes  0..3   Int32    recorded: highest k + 1 (0 = nothing), published with Atomics.store
//   bytes  4..7   Int32    loopMin version: odd while the writer updates loopMinNs (seqlock)
//   bytes  8..11  Int32    N, checked by attach
//   bytes 12..15  Int32    reserved
//   bytes 16..23  Float64  loopMinNs: shortest t0[k] − t0[k−N] seen, −1 until N frames were sent twice over
//   bytes 24..    Float64  t0Ns[S]: monotonic send instant of the k held in the slot
//   then          Int32    kPlus1[S]: k + 1 of the slot's entry, 0 = empty, −1 = being written
//   then          Int32    clip[S]: the clip index sent as k
//   then          Int32    prevPlus1[S]: k + 1 of the previous send of the same clip index, 0 = none
//   then          Int32    lastPlus1[N]: k + 1 of the newest send of each clip index, 0 = none
//
// Writing slot s = k mod S: kPlus1[s] ← −1, t0Ns[s], clip[s], prevPlus1[s] ← lastPlus1[i],
// kPlus1[s] ← k + 1 (Atomics.store), recorded ← k + 1, then lastPlus1[i] ← k + 1. A reader walks
// the chain of clip index i from lastPlus1[i]; at each k it loads kPlus1[s], reads the slot, loads
// kPlus1[s] again and keeps the entry only when both loads hold that k, so it never pairs a k with
// another k's t0. A slot being rewritten or holding a newer k means the wanted send is leaving the
// ring, and so are all older sends of the chain: the lookup stops there. k only grows (an older k
// is ignored) and must stay below 2^31 − 1 (two years of frames at 30 fps).

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
  private readonly clip: Int32Array;
  private readonly prev: Int32Array;
  private readonly last: Int32Array;
  // writer-side copies (only the writing instance uses them)
  private next = 0;
  private loopMin = -1;

  private constructor(buffer: SharedArrayBuffer, loopFrames: number) {
    if (!Number.isInteger(loopFrames) || loopFrames <= 0) {
      // internal: invariant, a clip (ClipError) and a send-log peer's hello (SendLogPeerError) have frames
      throw new RangeError("sendlog: a send log needs at least one frame per loop");
    }
    const slots = LOOPS * loopFrames;
    if (buffer.byteLength !== SendLog.byteLength(loopFrames)) {
      // internal: invariant, the buffer was made by SendLog.create for this clip
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
    this.clip = new Int32Array(buffer, HEADER_BYTES + 12 * slots, slots);
    this.prev = new Int32Array(buffer, HEADER_BYTES + 16 * slots, slots);
    this.last = new Int32Array(buffer, HEADER_BYTES + 20 * slots, loopFrames);
  }

  /** Bytes of the shared buffer for a clip of `loopFrames` frames. */
  static byteLength(loopFrames: number): number {
    return HEADER_BYTES + 20 * LOOPS * loopFrames + 4 * loopFrames;
  }

  /** A new, empty log (the writer's side). Throws for loopFrames ≤ 0. */
  static create(loopFrames: number): SendLog {
    if (!Number.isInteger(loopFrames) || loopFrames <= 0) {
      // internal: invariant, a clip (ClipError) and a send-log peer's hello (SendLogPeerError) have frames
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
      // internal: invariant, the buffer was made by SendLog.create for this clip
      throw new RangeError(
        `sendlog: buffer was made for ${log.header[I_FRAMES]} frames per loop, not ${loopFrames}`,
      );
    }
    return log;
  }

  /**
   * Logs that absolute frame k, clip index i (k mod N when the clip is never cut short), was sent
   * at t0Ns (monotonic ns). Single writer only; a k below one already logged is ignored. When k−N
   * is still in the ring, the N frames it closes update loopMinNs.
   */
  record(k: number, t0Ns: number, i: number = k % this.loopFrames): void {
    const N = this.loopFrames;
    // internal: invariant, a publisher logs its own clip's indices; followSendLog range-checks a peer's
    if (!(i >= 0 && i < N)) throw new RangeError(`sendlog: clip index ${i} is not one of ${N} frames`);
    if (k < this.next) return;
    const S = this.slots;
    const s = k % S;
    Atomics.store(this.kp1, s, WRITING);
    this.t0[s] = t0Ns;
    this.clip[s] = i;
    this.prev[s] = this.last[i]!;
    Atomics.store(this.kp1, s, k + 1);
    if (k >= N) this.loopClosed(k, t0Ns);
    this.next = k + 1;
    Atomics.store(this.header, I_RECORDED, k + 1);
    Atomics.store(this.last, i, k + 1);
  }

  /**
   * Moves the send instant of k, still in the ring, to t0Ns (the kernel's transmit stamp, a little
   * after the hand-over instant first logged: docs/definitions.md#send-instant). A reader sees
   * either instant, both k's own; false when k is not in the ring.
   */
  restamp(k: number, t0Ns: number): boolean {
    const s = k % this.slots;
    if (this.kp1[s] !== k + 1) return false;
    this.t0[s] = t0Ns;
    return true;
  }

  private loopClosed(k: number, t0Ns: number): void {
    const N = this.loopFrames;
    const p = (k - N) % this.slots;
    if (this.kp1[p] !== k - N + 1) return;
    const d = t0Ns - this.t0[p]!;
    if (this.loopMin >= 0 && d >= this.loopMin) return;
    this.loopMin = d;
    const v = this.header[I_VERSION]!;
    Atomics.store(this.header, I_VERSION, v + 1);
    this.f64[F_LOOP_MIN] = d;
    Atomics.store(this.header, I_VERSION, v + 2);
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
   * The clip index logged for absolute frame k; −1 when k was never logged, has left the ring, or
   * its slot is being rewritten.
   */
  indexAt(k: number): number {
    if (!(k >= 0 && k < 0x7fff_ffff)) return -1;
    const s = k % this.slots;
    if (Atomics.load(this.kp1, s) !== k + 1) return -1;
    const i = this.clip[s]!;
    return Atomics.load(this.kp1, s) === k + 1 ? i : -1;
  }

  /**
   * The most recent send of clip index i with t0 ≤ t1Ns, written into `out` (a fresh object when
   * omitted) and returned; null when i is not a clip index, nothing was recorded, or no logged
   * send of i qualifies (never sent by t1, or rotated out of the ring).
   */
  latest(i: number, t1Ns: number, out?: SendEntry): SendEntry | null {
    if (!(i >= 0 && i < this.loopFrames)) return null;
    const oldest = Atomics.load(this.header, I_RECORDED) - 1 - this.slots;
    let c = Atomics.load(this.last, i) - 1;
    while (c >= 0 && c > oldest) {
      const s = c % this.slots;
      if (Atomics.load(this.kp1, s) !== c + 1) return null; // c is leaving the ring
      const t0 = this.t0[s]!;
      const prev = this.prev[s]! - 1;
      if (Atomics.load(this.kp1, s) !== c + 1) return null; // overwritten while read
      if (t0 <= t1Ns) {
        const entry = out ?? { k: 0, t0Ns: 0 };
        entry.k = c;
        entry.t0Ns = t0;
        return entry;
      }
      c = prev;
    }
    return null;
  }
}
