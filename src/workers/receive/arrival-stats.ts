// A viewer thread's arrival figures over a shard (docs/definitions.md#receive-lag,
// #arrival-stamps): the receive lag and the processing wait of each media datagram, over the run
// (between countFrom and countUntil) and per timeline second, and which clock stamped them, with
// the reasons the thread stamped any itself. Both read paths record here: the intake (dgram's
// callbacks) and the arena reader (batched reads).
import { DelayHistogram } from "../../core/stats/summaries.ts";
import type { StampSource, StampSources } from "../protocol.ts";

/** Distinct reasons kept per shard; later ones repeat an earlier cause. */
const MAX_REASONS = 4;

export class ArrivalStats {
  /** receive lag over the run: JavaScript's first sight of a datagram − its stamp */
  lagRun = new DelayHistogram();
  /** processing wait over the run: the start of a datagram's processing − its stamp */
  waitRun = new DelayHistogram();
  /** the receive lag of the thread-stamped datagrams alone, over the run (a mixed thread's rule) */
  threadLagRun = new DelayHistogram();
  private lagSecond = new DelayHistogram();
  private waitSecond = new DelayHistogram();
  private countFromNs: number;
  private countUntilNs = Number.POSITIVE_INFINITY;
  kernel = 0;
  thread = 0;
  private readonly reasons: string[] = [];
  /** transports read in batches into the arena / by dgram's callbacks, and why not the arena */
  arenaTransports = 0;
  dgramTransports = 0;
  readonly dgramReasons: string[] = [];

  /** `countFromNs`: the run counts from here until `countFrom` moves it (Infinity: nothing yet). */
  constructor(countFromNs = 0) {
    this.countFromNs = countFromNs;
  }

  /**
   * One datagram stamped by the kernel or by the thread, counted when it arrived inside the run's
   * window (as the lag is): a few datagrams before the first join (a server's first media, which
   * werift hands on before SRTP is set up) come through werift's own event without their socket.
   */
  stamped(kernel: boolean, atNs: number): void {
    if (atNs < this.countFromNs || atNs >= this.countUntilNs) return;
    if (kernel) this.kernel++;
    else this.thread++;
  }

  /** One datagram's receive lag (−1: none known), by the instant it arrived; `kernel`: its stamp's. */
  lag(atNs: number, lagNs: number, kernel = true): void {
    if (lagNs < 0) return;
    if (atNs >= this.countFromNs && atNs < this.countUntilNs) {
      this.lagRun.recordNs(lagNs);
      if (!kernel) this.threadLagRun.recordNs(lagNs);
    }
    this.lagSecond.recordNs(lagNs);
  }

  /** One datagram's processing wait, by the instant it arrived. */
  wait(atNs: number, waitNs: number): void {
    if (atNs >= this.countFromNs && atNs < this.countUntilNs) this.waitRun.recordNs(waitNs);
    this.waitSecond.recordNs(waitNs);
  }

  /** The run counts datagrams that arrived before this instant (the earliest call wins). */
  countUntil(ns: number): void {
    if (ns < this.countUntilNs) this.countUntilNs = ns;
  }

  /**
   * … and from this instant on (the first call wins once a shard began): the first join plus
   * excludeFirstSeconds.
   */
  countFrom(ns: number): void {
    if (this.countFromNs === Number.POSITIVE_INFINITY) this.countFromNs = ns;
  }

  /** The receive lag since the previous call (a timeline second); starts a new one. */
  takeLagSecond(): DelayHistogram {
    const h = this.lagSecond;
    this.lagSecond = new DelayHistogram();
    return h;
  }

  /** The processing wait since the previous call (a timeline second); starts a new one. */
  takeWaitSecond(): DelayHistogram {
    const h = this.waitSecond;
    this.waitSecond = new DelayHistogram();
    return h;
  }

  /** One transport of an arena-path viewer, read in batches or (with why) by dgram's callbacks. */
  readBy(how: "arena" | "dgram", why?: string): void {
    if (how === "arena") this.arenaTransports++;
    else {
      this.dgramTransports++;
      if (why !== undefined && this.dgramReasons.length < MAX_REASONS && !this.dgramReasons.includes(why)) {
        this.dgramReasons.push(why);
      }
    }
  }

  /** Why datagrams are (or will be) stamped by the thread. */
  note(why: string): void {
    if (this.reasons.length < MAX_REASONS && !this.reasons.includes(why)) this.reasons.push(why);
  }

  sources(): StampSources {
    const k = this.kernel;
    const t = this.thread;
    // with nothing stamped yet: the source the next datagram would get
    const idle: StampSource = this.reasons.length === 0 ? "kernel" : "thread";
    const source: StampSources["source"] =
      k + t === 0 ? idle : t === 0 ? "kernel" : k === 0 ? "thread" : "mixed";
    const threadLag = source === "mixed" ? this.threadLagRun.p50p99MaxMs() : undefined;
    return {
      source,
      kernelStamped: k,
      threadStamped: t,
      ...(this.reasons.length > 0 ? { threadReason: this.reasons.join("; ") } : {}),
      ...(threadLag !== undefined ? { threadLagMs: threadLag } : {}),
    };
  }
}
