// Frame reassembly for one viewer (docs/definitions.md#reassembly): turns RTP packets with their
// arrival instants into complete frames, each with the instant it became whole (t1). Not pion's
// samplebuilder: it keeps every packet's arrival and decides completeness itself; with a
// FrameStart rule, the codec's frame-start mark also proves a frame's head (StartProof).
//
// State per viewer: `seen` packets (timestamp + arrival by extended sequence number) in a
// SeenRing; `pending` frames (pooled, a handful) in an array sorted by `lo`; `closed` timestamps
// in a ClosedFrames ring in closing order. Payloads are kept by reference, or with `copyInto`
// copied into the caller's PayloadStore (payload-store.ts) while their frame is pending.
// Per completed frame: what the depacketiser returns, and the CompletedFrame unless reused.

import type { FrameEnd } from "../types.ts";
import { ClosedFrames } from "./closed-frames.ts";
import { describeFrame, type FrameStart, StartProof } from "./frame-start.ts";
import type { CompletedFrame, Depacketizer } from "./frames.ts";
import { FrameDepacketiser, FrameResults, MAX_PENDING, PendingFrame } from "./frames.ts";
import { type PayloadStore, ReleaseQueue } from "./payload-store.ts";
import { EXT_BASE, SeenRing } from "./seen-ring.ts";

export type { FrameStart } from "./frame-start.ts";
export type { CompletedFrame, Depacketize, Depacketizer } from "./frames.ts";
export { MAX_PENDING } from "./frames.ts";

/** How long a frame may stay incomplete after its first packet arrived. */
export const WINDOW_NS = 1e9;
/** Seen packets and closed frames older than this are forgotten (pruned at most once per WINDOW_NS). */
const FORGET_NS = 2 * WINDOW_NS;

export class Reassembler {
  private readonly depacketiser: FrameDepacketiser;
  private readonly starts: StartProof | null;
  private readonly frameStart: FrameStart | null;
  private haveSeq = false;
  private maxExt = 0;

  private readonly seen = new SeenRing();
  private lastPruneNs = Number.NEGATIVE_INFINITY;
  // pending frames by ascending lo in order[0, pendingCount): a few, scanned (no map); never shrunk
  private readonly order: PendingFrame[] = [];
  private pendingCount = 0;
  private oldestFirstNs = Number.POSITIVE_INFINITY; // ≤ every pending frame's firstNs
  private readonly pool: PendingFrame[] = [];
  private readonly closed = new ClosedFrames(); // (ts | 0) → instant closed, oldest first

  private haveEarliest = false;
  private earliest = 0;
  /** the caller reuses payloads after push (arena path): pending frames copy them into this store */
  copyInto: PayloadStore | null = null;
  // chunks of recycled frames' copies, released at the next push (a completed frame is read after it)
  private readonly released = new ReleaseQueue();
  /** the objects of completed frames: new ones, or with `results.reuse` pooled ones (frames.ts) */
  readonly results = new FrameResults();
  private lastFrame: PendingFrame | null = null;
  private lastIndex = 0;

  private end: FrameEnd = "";
  private incomplete = 0;
  private late = 0;

  /** `frameStart` (optional) adds the codec head proof (StartProof). */
  constructor(depacketize: Depacketizer, frameStart: FrameStart | null = null) {
    this.depacketiser = new FrameDepacketiser(depacketize);
    this.starts = frameStart === null ? null : new StartProof(frameStart);
    this.frameStart = frameStart;
  }

  /** Whether completed frames are depacketised (`pieces`); off, they leave with `pieces` null. */
  depacketise = true;

  /** Frames given up after WINDOW_NS (bar the viewer's first); frames pending at stop are not counted. */
  get incompleteFrames(): number {
    return this.incomplete;
  }
  /** Complete frames one of whose packets arrived after the packet at their highest sequence number. */
  get lateCompletedFrames(): number {
    return this.late;
  }
  /** The frame-end rule in force; "" until the first frame completed. */
  get frameEnd(): FrameEnd {
    return this.end;
  }

  /**
   * Adds one packet (its payload is kept by reference) that arrived at `arrivalNs` (monotonic,
   * non-decreasing across calls). Returns how many frames it completed, in ascending sequence
   * order: `results.frame(0…n−1)`, also appended to `out` when given. With `results.reuse` they
   * are valid until the next push.
   */
  push(
    seq: number,
    ts: number,
    marker: boolean,
    payload: Uint8Array,
    arrivalNs: number,
    out: CompletedFrame[] | null = null,
  ): number {
    this.results.release();
    if (this.released.pending && this.copyInto !== null) this.released.flush(this.copyInto);
    if (arrivalNs - this.oldestFirstNs >= WINDOW_NS) this.expire(arrivalNs);

    const ext = this.extend(seq);
    if (this.seen.tsOf(ext) >= 0) return 0; // the first copy wins
    this.seen.add(ext, ts, arrivalNs);
    if (!this.haveEarliest || ((ts - this.earliest) | 0) < 0) {
      this.earliest = ts;
      this.haveEarliest = true;
    }

    this.lastFrame = null;
    this.add(ext, ts, marker, payload, arrivalNs);
    const n = this.pendingCount > 0 ? this.complete(arrivalNs, out) : 0;
    const f = this.lastFrame as PendingFrame | null;
    if (this.copyInto !== null && f?.payloads[this.lastIndex] === payload)
      f.own(this.lastIndex, this.copyInto);

    if (arrivalNs - this.lastPruneNs >= WINDOW_NS) this.prune(arrivalNs);
    return n;
  }

  /** Sizes of the internal state (for tests and diagnostics; scans the seen ring). */
  stateSizes(): { seen: number; seenCapacity: number; pending: number; closed: number } {
    const { size: seen, capacity: seenCapacity } = this.seen;
    return { seen, seenCapacity, pending: this.pendingCount, closed: this.closed.size };
  }

  private extend(seq: number): number {
    if (!this.haveSeq) {
      this.haveSeq = true;
      this.maxExt = EXT_BASE + seq;
      return this.maxExt;
    }
    const ext = this.maxExt + (((seq - this.maxExt) << 16) >> 16); // int16(seq − uint16(maxExt))
    if (ext > this.maxExt) this.maxExt = ext;
    return ext;
  }

  /** Adds the packet to its timestamp's pending frame, unless that frame was closed. */
  private add(ext: number, ts: number, marker: boolean, payload: Uint8Array, at: number): void {
    const order = this.order;
    let f: PendingFrame | undefined;
    for (let i = this.pendingCount - 1; i >= 0; i--) {
      if (order[i]!.ts === ts) {
        f = order[i]!;
        break;
      }
    }
    if (f === undefined) {
      if (this.closed.has(ts)) return;
      if (this.pendingCount >= MAX_PENDING) this.giveUpOldest(at);
      f = this.pool.pop() ?? new PendingFrame();
      f.ts = ts;
      f.lo = ext;
      f.hi = ext;
      f.count = 0;
      f.firstNs = at;
      f.hiMarker = marker;
      f.hiNs = at;
      f.hasMarker = false;
      f.loClass = this.startClass(payload);
      if (at < this.oldestFirstNs) this.oldestFirstNs = at;
      this.insertOrdered(f);
    } else if (ext < f.lo) {
      f.lo = ext;
      f.loClass = this.startClass(payload);
      this.reorder(f);
    } else if (ext > f.hi) {
      f.hi = ext;
      f.hiMarker = marker;
      f.hiNs = at;
    }
    if (marker) f.hasMarker = true;
    f.lastNs = at;
    f.exts[f.count] = ext;
    f.payloads[f.count] = payload;
    this.lastFrame = f;
    this.lastIndex = f.count++;
  }

  private insertOrdered(f: PendingFrame): void {
    const order = this.order;
    let i = this.pendingCount++;
    order[i] = f;
    for (; i > 0 && order[i - 1]!.lo > f.lo; i--) {
      order[i] = order[i - 1]!;
      order[i - 1] = f;
    }
  }

  /** Moves f towards the front after its lo decreased. */
  private reorder(f: PendingFrame): void {
    const order = this.order;
    for (let i = order.indexOf(f); i > 0 && order[i - 1]!.lo > f.lo; i--) {
      order[i] = order[i - 1]!;
      order[i - 1] = f;
    }
  }

  private recycle(f: PendingFrame): void {
    f.clear(this.released);
    this.pool.push(f);
  }

  /** Gives up the pending frame whose first packet arrived earliest (the pending set is full). */
  private giveUpOldest(now: number): void {
    const order = this.order;
    let oldest = 0;
    for (let i = 1; i < this.pendingCount; i++) {
      if (order[i]!.firstNs < order[oldest]!.firstNs) oldest = i;
    }
    const f = order[oldest]!;
    for (let i = oldest + 1; i < this.pendingCount; i++) order[i - 1] = order[i]!;
    this.pendingCount--;
    this.closed.add(f.ts, now);
    if (f.ts !== this.earliest) this.incomplete++;
    this.recycle(f);
  }

  /** Gives up every pending frame whose first packet arrived WINDOW_NS or more ago. */
  private expire(now: number): void {
    const order = this.order;
    let w = 0;
    let oldest = Number.POSITIVE_INFINITY;
    for (let r = 0; r < this.pendingCount; r++) {
      const f = order[r]!;
      if (now - f.firstNs < WINDOW_NS) {
        order[w++] = f;
        if (f.firstNs < oldest) oldest = f.firstNs;
        continue;
      }
      this.closed.add(f.ts, now);
      if (f.ts !== this.earliest) this.incomplete++;
      this.recycle(f);
    }
    this.pendingCount = w;
    this.oldestFirstNs = oldest;
  }

  /** Closes and depacketises every pending frame now whole, in ascending order of lo. */
  private complete(now: number, out: CompletedFrame[] | null): number {
    const order = this.order;
    let w = 0;
    let n = 0;
    for (let r = 0; r < this.pendingCount; r++) {
      const f = order[r]!;
      if (!this.whole(f)) {
        order[w++] = f;
        continue;
      }
      this.closed.add(f.ts, now);
      this.starts?.learn(f);
      const late = f.lastNs > f.hiNs;
      if (late) this.late++;
      const done = this.results.at(n);
      describeFrame(done, f, now, late, this.frameStart);
      if (this.depacketise) {
        const pieces = this.results.piecesAt(n);
        done.pieces = this.depacketiser.depacketise(f, pieces) ? pieces : null;
      } else done.pieces = null;
      if (out !== null) out.push(done);
      n++;
      this.recycle(f);
    }
    this.pendingCount = w;
    return n;
  }

  private startClass(payload: Uint8Array): number {
    return this.starts === null ? -1 : this.starts.startClass(payload);
  }

  /**
   * Every packet present, head proven (by the packet before it, or by the codec), end known;
   * sets the frame-end rule as a side effect.
   */
  private whole(f: PendingFrame): boolean {
    if (f.count !== f.hi - f.lo + 1) return false;
    const head = this.seen.tsOf(f.lo - 1);
    f.headBySeq = head >= 0 && ((head - f.ts) | 0) < 0;
    if (!f.headBySeq && !(this.starts?.codecHead(f, f.ts === this.earliest) ?? false)) return false;
    const next = this.seen.tsOf(f.hi + 1);
    const nextIsLater = next >= 0 && ((next - f.ts) | 0) > 0;
    if (this.end === "timestamp") return nextIsLater; // markers no longer end a frame
    if (f.hiMarker) {
      this.end = "marker";
      return true;
    }
    if (nextIsLater && !f.hasMarker) {
      this.end = "timestamp";
      return true;
    }
    return false;
  }

  /** Forgets seen packets and closed frames older than FORGET_NS. */
  private prune(now: number): void {
    this.seen.forgetBefore(now - FORGET_NS);
    this.closed.forgetOlder(now, FORGET_NS);
    this.lastPruneNs = now;
  }
}
