// The thread's intake: its receive-lag and stamp-source statistics on every path, and on the
// lean (dgram) and werift paths the queue between a socket's 'message' callback and a viewer's
// chain. There every media datagram is stamped the moment it reaches JavaScript and queued; the
// queue is processed in slices of at most QUEUE_SLICE_NS, one per loop turn (setImmediate), so the
// loop polls its sockets between slices (docs/architecture.md#timing). On the arena path the
// reader (arena-reader.ts) stamps and processes each datagram at once and the intake only counts
// it (`arrived`). The instant is the kernel's receive stamp where it can be had
// (docs/definitions.md#arrival-stamps, src/net/kernel.ts) and the receive lag is then exact; in the
// fallback it is this thread's reading and the lag an upper bound (docs/definitions.md#receive-lag):
// a datagram stamped in poll phase P was not readable at the poll before P, so it arrived after a
// reference R (that poll's first stamp, or the latest slice's end when the loop blocked since),
// and lag ≤ (stamp − R) − (libuv's idle time since R). Timer callbacks of the thread's own also
// mark a reference when nothing is queued. One per thread, in its context (../thread.ts).
import { performance } from "node:perf_hooks";
import { monoNs } from "../../core/clock/clock.ts";
import { enableRxStamps, kernelClock, rxStampMonoNs } from "../../net/kernel.ts";
import type { StampSource } from "../protocol.ts";
import { ArrivalStats } from "./arrival-stats.ts";
import type { ChainHead } from "./stages.ts";

/** A tap on every stamped datagram (bench:truth): sender's port, datagram, stamp, lag (−1: none). */
export type IntakeTap = (fromPort: number, data: Buffer, stampNs: number, lagNs: number) => void;

/** Longest run of queued work between two polls of the event loop (100 µs). */
export const QUEUE_SLICE_NS = 100_000;
/** Datagrams held at most; past it a datagram is dropped and counted, as a full socket buffer would. */
const MAX_QUEUED = 1 << 16;

const idleNs = (): number => performance.nodeTiming.idleTime * 1e6;

export class Intake {
  /** datagrams dropped because the queue was full (since `beginRun`) */
  dropped = 0;
  /** this run's receive lag, processing wait and stamp sources (since `beginRun`) */
  stats = new ArrivalStats();
  private tap: IntakeTap | null = null;
  private inline = false;
  /** whether this run asks for the kernel's stamps (false: the thread's, forced) */
  wantKernel = true;

  private handlers: (ChainHead | null)[] = new Array(1024).fill(null);
  private datas: (Buffer | null)[] = new Array(1024).fill(null);
  private stamps = new Float64Array(1024);
  private head = 0;
  private size = 0;
  private scheduled = false;
  /** the kernel's stamp of a datagram the arena reader hands werift late (carry), -1: none */
  private carriedNs = -1;

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

  constructor(sliceNs = QUEUE_SLICE_NS) {
    this.sliceNs = sliceNs;
    const now = monoNs();
    const idle = idleNs();
    this.refNs = this.markNs = this.sliceEndNs = now;
    this.refIdleNs = this.markIdleNs = this.sliceEndIdleNs = idle;
  }

  /** bench:truth's baseline only: process each datagram in its own callback, right after the stamp. */
  setInline(inline: boolean): void {
    this.inline = inline;
  }

  /** bench:truth only: sees every stamped datagram (null to remove). */
  setTap(tap: IntakeTap | null): void {
    this.tap = tap;
  }

  /**
   * The descriptor to pass to `push` for a socket whose media datagrams this thread stamps: the
   * socket's own when the kernel's stamps are on for it, else −1 (the thread stamps, and the
   * reason is kept for the report).
   */
  stampFd(fd: number): number {
    if (!this.wantKernel) return -1;
    const why = enableRxStamps(fd);
    if (why === null) return fd;
    this.stats.note(why);
    return -1;
  }

  /**
   * Stamps a datagram and queues its work; the earliest point a datagram reaches JavaScript. `fd`
   * is the socket it was just read from (`stampFd`), −1 when unknown: its arrival instant is the
   * kernel's receive stamp and its receive lag exact; otherwise both are the thread's.
   */
  push(handler: ChainHead, data: Buffer, fromPort: number, fd = -1): void {
    const s = monoNs();
    if (!this.phaseOpen) this.openPhase(s);
    let at = s;
    let lagNs = -1;
    const k = fd >= 0 ? rxStampMonoNs(fd, s) : this.carriedNs;
    if (k >= 0) {
      at = k;
      lagNs = s > k ? s - k : 0;
      this.stats.stamped(true, at);
    } else {
      if (fd >= 0) this.stats.note("ioctl(SIOCGSTAMPNS) failed on a datagram");
      else if (this.wantKernel) this.stats.note("a datagram reached the thread without its socket");
      this.stats.stamped(false, at);
      // before the thread's first slice there is no reference: such datagrams are not counted
      if (this.sliced) lagNs = Math.max(s - this.refNs - (this.phaseIdleNs - this.refIdleNs), 0);
    }
    this.stats.lag(at, lagNs, k >= 0);
    if (this.tap !== null) this.tap(fromPort, data, at, lagNs);
    if (this.inline) {
      this.dispatch(handler, data, at);
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
    this.stamps[i] = at;
    this.size++;
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.drain);
    }
  }

  /**
   * While set (≥ 0), a datagram pushed without its socket is the one the arena reader read with
   * this kernel stamp (monotonic ns) and hands werift now, through werift's own receive path
   * (src/workers/receive/arena-reader.ts); −1 clears it.
   */
  carry(atNs: number): void {
    this.carriedNs = atNs;
  }

  /**
   * Hands a datagram that arrived at `atNs` to the head of its viewer's chain. A stage's failure
   * is its viewer's (counted there); the caller goes on.
   */
  dispatch(stage: ChainHead, data: Buffer, atNs: number): void {
    try {
      stage.receive(data, data.length, atNs);
    } catch {
      // the viewer's own failure
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

  /**
   * A shard starts on this thread: the run's figures start empty; `source` "kernel" takes the
   * kernel's stamps where they can be had, "thread" never does.
   */
  beginRun(source: StampSource = "kernel"): void {
    this.dropped = 0;
    this.wantKernel = source === "kernel";
    this.stats = new ArrivalStats(Number.POSITIVE_INFINITY);
    if (source === "thread") this.stats.note("the scenario asks for the thread's stamp (stampSource thread)");
    else {
      const k = kernelClock();
      if (!k.ok) this.stats.note(k.reason);
    }
  }

  /**
   * A media datagram the arena reader read (batched, src/workers/receive/arena-reader.ts): its arrival
   * instant (`atNs`, the kernel's stamp when `kernel`), the batch's read and its processing start.
   */
  arrived(
    atNs: number,
    readNs: number,
    startNs: number,
    kernel: boolean,
    data: Buffer,
    fromPort: number,
  ): void {
    this.stats.stamped(kernel, atNs);
    const lagNs = kernel ? (readNs > atNs ? readNs - atNs : 0) : -1;
    this.stats.lag(atNs, lagNs, kernel);
    this.stats.wait(atNs, startNs > atNs ? startNs - atNs : 0);
    if (this.tap !== null) this.tap(fromPort, data, atNs, lagNs);
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
    let now = monoNs();
    const deadline = now + this.sliceNs;
    const mask = this.handlers.length - 1;
    do {
      const i = this.head;
      const handler = this.handlers[i] as ChainHead;
      const data = this.datas[i] as Buffer;
      const at = this.stamps[i] as number;
      this.handlers[i] = null;
      this.datas[i] = null;
      this.head = (i + 1) & mask;
      this.size--;
      // the wait from arrival to processing: the receive lag plus the queue
      this.stats.wait(at, now > at ? now - at : 0);
      this.dispatch(handler, data, at);
      now = monoNs();
    } while (this.size > 0 && now < deadline);
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
    const handlers: (ChainHead | null)[] = new Array(n * 2).fill(null);
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
