// Stamp first, process later (docs/architecture.md#timing): every media datagram of this thread
// is stamped the moment it reaches JavaScript and queued; the queue is processed in slices of
// at most SLICE_NS, each in its own loop turn (setImmediate), so the event loop polls its
// sockets — and stamps what arrived — between slices. A fan-out burst to N viewers of one thread
// is stamped within the poll phases it arrives in, not after N − 1 viewers' decryption and
// pipeline work.
//
// The receive lag of a datagram: how long it may have waited inside this thread before its
// stamp. Estimator (an upper bound, per datagram): a datagram stamped in poll phase P was not
// readable when the poll before P looked at its socket, so it arrived after a reference instant
// R — the first stamp of that earlier poll phase, or the end of the slice before it when that
// phase stamped nothing, or the end of the latest slice when the loop blocked since. Any time
// the loop spent blocked between R and the stamp came before the arrival (a readable socket does
// not let the loop block), so lag ≤ (stamp − R) − (idle time between R and the stamp), with idle
// time read from libuv's own counter. The thread's own timer callbacks (receiver reports, NACKs,
// the shard's tick) also mark a reference when nothing is queued. What it cannot see: the
// kernel's delivery and the dispatch of one datagram up to its stamp (a few µs), and the time the
// operating system kept a woken thread off the CPU (that counts as idle; the thread's event-loop
// delay shows it, since a timer's lateness includes it). Adding the thread's run delay from
// /proc/thread-self/schedstat covered it but tripled the bound on a loaded machine (it counts
// every wait since the reference, before the datagram came too), so it is not added.
// Bench: `npm run bench:truth` holds the bound against the relay's send instants.
import { performance } from "node:perf_hooks";
import { monoNs } from "../core/clock/clock.ts";
import { DelayHistogram } from "../core/stats/summaries.ts";

/** The work of one datagram, with the instant it was stamped (monotonic ns). */
export type DatagramHandler = (data: Buffer, arrivalNs: number) => void;

/** A tap on every stamped datagram (bench:truth): sender's port, datagram, stamp, lag bound (−1: none). */
export type IntakeTap = (fromPort: number, data: Buffer, stampNs: number, lagNs: number) => void;

/** Longest run of queued work between two polls of the event loop. */
export const SLICE_NS = 100_000;
/** Datagrams held at most; past it a datagram is dropped and counted, as a full socket buffer would. */
const MAX_QUEUED = 1 << 16;

function idleNs(): number {
  return performance.nodeTiming.idleTime * 1e6;
}

export class Intake {
  /** datagrams dropped because the queue was full (since `beginRun`) */
  dropped = 0;
  /** receive lag since `beginRun()`, and since the last `takeSecond()` */
  lagRun = new DelayHistogram();
  private lagSecond = new DelayHistogram();
  private tap: IntakeTap | null = null;
  private countFromNs = 0;
  private countUntilNs = Number.POSITIVE_INFINITY;
  private inline = false;

  private handlers: (DatagramHandler | null)[] = new Array(1024).fill(null);
  private datas: (Buffer | null)[] = new Array(1024).fill(null);
  private stamps = new Float64Array(1024);
  private head = 0;
  private size = 0;
  private scheduled = false;
  /** the instant of the datagram being processed, -1 outside a slice (werift's path reads it) */
  currentArrivalNs = -1;

  // lag estimator state (see the file comment)
  private phaseOpen = false;
  private sliced = false;
  private refNs: number;
  private refIdleNs: number;
  private phaseIdleNs = 0;
  private markNs: number;
  private markIdleNs: number;
  private sliceEndNs: number;
  private sliceEndIdleNs: number;
  private readonly sliceNs: number;

  constructor(sliceNs = SLICE_NS) {
    this.sliceNs = sliceNs;
    const now = monoNs();
    const idle = idleNs();
    this.refNs = this.markNs = this.sliceEndNs = now;
    this.refIdleNs = this.markIdleNs = this.sliceEndIdleNs = idle;
  }

  /**
   * bench:truth's baseline only: process each datagram inside its own callback right after the
   * stamp, as every receive path did before the intake (no receive lag is recorded then).
   */
  setInline(inline: boolean): void {
    this.inline = inline;
  }

  /** bench:truth only: sees every stamped datagram (null to remove). */
  setTap(tap: IntakeTap | null): void {
    this.tap = tap;
  }

  /** Stamps a datagram and queues its work; the earliest point a datagram reaches JavaScript. */
  push(handler: DatagramHandler, data: Buffer, fromPort: number): void {
    const s = monoNs();
    if (!this.phaseOpen) this.openPhase(s);
    // before the thread's first slice there is no reference: such datagrams are not counted
    const lagNs = this.sliced ? Math.max(s - this.refNs - (this.phaseIdleNs - this.refIdleNs), 0) : -1;
    if (lagNs >= 0) {
      if (s >= this.countFromNs && s < this.countUntilNs) this.lagRun.recordNs(lagNs);
      this.lagSecond.recordNs(lagNs);
    }
    if (this.tap !== null) this.tap(fromPort, data, s, lagNs);
    if (this.inline) {
      this.currentArrivalNs = s;
      try {
        handler(data, s);
      } catch {
        // the viewer's own failure (counted there)
      }
      this.currentArrivalNs = -1;
      return;
    }
    if (this.size === MAX_QUEUED) {
      this.dropped++;
      return;
    }
    if (this.size === this.handlers.length) this.grow();
    const i = (this.head + this.size) & (this.handlers.length - 1);
    this.handlers[i] = handler;
    this.datas[i] = data;
    this.stamps[i] = s;
    this.size++;
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.drain);
    }
  }

  /**
   * The end of a timer callback of this thread's own (receiver reports, NACKs, the shard's tick)
   * with nothing queued: a later mark for the estimator, as a drained slice's end is. Where the
   * loop blocks after it, a datagram stamped next arrived after it, so this callback's work is
   * not counted in that datagram's bound.
   */
  mark(): void {
    if (this.size > 0 || this.inline) return;
    this.sliceEndNs = monoNs();
    this.sliceEndIdleNs = idleNs();
  }

  /** A shard starts on this thread: the run's figures start empty, counted from `countFrom`. */
  beginRun(): void {
    this.lagRun = new DelayHistogram();
    this.lagSecond = new DelayHistogram();
    this.dropped = 0;
    this.countFromNs = Number.POSITIVE_INFINITY;
    this.countUntilNs = Number.POSITIVE_INFINITY;
  }

  /**
   * The run's figure counts datagrams stamped before this instant (the earliest call wins): the
   * shard's deadline, or its stop. After it the viewers close (records encoded, DELETEs, peers
   * closed) while datagrams still arrive, and no delay sample comes from them.
   */
  countUntil(ns: number): void {
    if (ns < this.countUntilNs) this.countUntilNs = ns;
  }

  /**
   * The run's figure counts datagrams stamped from this instant on (the first call wins): the
   * shard sets it to its first viewer's join plus excludeFirstSeconds, when delay samples start.
   * Before it, the thread's own start-up (module loading, first compilation, handshakes) holds
   * datagrams no delay sample comes from; the per-second figures show it all the same.
   */
  countFrom(ns: number): void {
    if (this.countFromNs === Number.POSITIVE_INFINITY) this.countFromNs = ns;
  }

  /** The receive lag since the previous call (a timeline second); starts a new one. */
  takeSecond(): DelayHistogram {
    const h = this.lagSecond;
    this.lagSecond = new DelayHistogram();
    return h;
  }

  /** The first stamp of a poll phase: fix the reference every stamp of this phase is measured from. */
  private openPhase(s: number): void {
    this.phaseOpen = true;
    const idle = idleNs();
    if (idle > this.sliceEndIdleNs) {
      // the loop blocked after the latest slice or mark: nothing stamped now was readable before it
      this.refNs = this.sliceEndNs;
      this.refIdleNs = this.sliceEndIdleNs;
    } else {
      this.refNs = this.markNs;
      this.refIdleNs = this.markIdleNs;
    }
    this.phaseIdleNs = idle;
    this.markNs = s;
    this.markIdleNs = idle;
  }

  private readonly drain = (): void => {
    this.scheduled = false;
    if (!this.phaseOpen) {
      // this turn's poll stamped nothing: whatever comes next arrived after the previous slice
      this.markNs = this.sliceEndNs;
      this.markIdleNs = this.sliceEndIdleNs;
    }
    this.phaseOpen = false;
    const deadline = monoNs() + this.sliceNs;
    const mask = this.handlers.length - 1;
    do {
      const i = this.head;
      const handler = this.handlers[i] as DatagramHandler;
      const data = this.datas[i] as Buffer;
      const at = this.stamps[i] as number;
      this.handlers[i] = null;
      this.datas[i] = null;
      this.head = (i + 1) & mask;
      this.size--;
      this.currentArrivalNs = at;
      try {
        handler(data, at);
      } catch {
        // a handler's failure is its viewer's (counted there); the queue goes on
      }
    } while (this.size > 0 && monoNs() < deadline);
    this.currentArrivalNs = -1;
    if (this.size > 0) {
      this.scheduled = true;
      setImmediate(this.drain);
    }
    this.sliced = true;
    this.sliceEndNs = monoNs();
    this.sliceEndIdleNs = idleNs();
  };

  private grow(): void {
    const n = this.handlers.length;
    const handlers: (DatagramHandler | null)[] = new Array(n * 2).fill(null);
    const datas: (Buffer | null)[] = new Array(n * 2).fill(null);
    const stamps = new Float64Array(n * 2);
    for (let k = 0; k < this.size; k++) {
      const i = (this.head + k) & (n - 1);
      handlers[k] = this.handlers[i] ?? null;
      datas[k] = this.datas[i] ?? null;
      stamps[k] = this.stamps[i] ?? 0;
    }
    this.handlers = handlers;
    this.datas = datas;
    this.stamps = stamps;
    this.head = 0;
  }
}

/** This thread's intake (each worker thread has its own module instance). */
export const intake = new Intake();
