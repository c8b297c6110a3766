// The client's own ceiling (docs/definitions.md#client-ceiling): a client past its ceiling puts
// its own work inside the figures it reports. With the kernel's receive stamp
// (docs/definitions.md#arrival-stamps) a viewer thread's queueing does not enter the one-way
// delay, join, jitter or stall figures, so such a thread is judged only on what can still distort
// a figure: datagrams dropped by the kernel on its own sockets or by the intake (loss that is
// ours; the host's counter only where its own could not be read), a thread that does
// not keep up (busy past the utilisation threshold, or datagrams waiting past the keep-up wait),
// and feedback sent late where there was loss to repair (NACKs), both read from the processing
// wait: arrival stamp to the start of its processing, the receive lag plus the intake's queue.
// A thread stamped by itself (the fallback) is judged on its receive lag, an upper bound of what
// it adds to every delay figure; a mixed thread is judged as kernel-stamped, and by the
// fallback's rule on its thread-stamped datagrams' own lag once they are a share that can move a
// percentile. The publisher's thread (main) is judged on its event loop and its send lag.
import { fmtFixed } from "../go-compat/fmt.ts";
import type { StampSourceSeen } from "../scenario/defaults.ts";

export interface CeilingThresholds {
  /** event-loop utilisation of one thread over the run, 0..1 */
  eventLoopUtilisation: number;
  /** p99 event-loop delay of the publisher's thread, or of a thread stamping its own datagrams, ms */
  eventLoopDelayP99Ms: number;
  /**
   * the receive lag p99 that counts for a thread-stamped thread, and the late-feedback bound where
   * frames were repaired, ms …
   */
  receiveLagFloorMs: number;
  /** … or this share of the one-way delay p99 being measured, when that is larger */
  receiveLagShareOfDelay: number;
  /** a kernel-stamped thread whose processing wait p50 reaches this does not keep up, ms */
  keepUpWaitP50Ms: number;
  /** the publisher's send lag p99 at which its pacing is no longer the clip's, ms */
  publisherSendLagP99Ms: number;
  /**
   * the share of a mixed thread's datagrams stamped by the thread (0..1) from which the
   * fallback's rule judges them (their own receive lag); absent: DEFAULT_CEILING's
   */
  threadStampedShare?: number;
}

export const DEFAULT_CEILING: CeilingThresholds = {
  eventLoopUtilisation: 0.9,
  eventLoopDelayP99Ms: 20,
  // a quiet 2-core machine with the relay in-process shows a receive-lag p99 of 2–4 ms at 2–10
  // viewers (OS wake-ups, GC; bench/README.md, "Truth"): below this the guard would call every
  // loopback run client-bound; the figure itself is in the report either way
  receiveLagFloorMs: 5,
  receiveLagShareOfDelay: 0.1,
  // a thread that keeps up waits 1–12 ms at the median here, stalls included (the tail reaches
  // 200+ ms when the 2 cores are shared); one that does not grows its queue by seconds
  // (bench/README.md, "Truth")
  keepUpWaitP50Ms: 50,
  // one frame interval at 30 fps: later than that, frames leave bunched, not at the clip's pace
  publisherSendLagP99Ms: 33,
  // fewer late datagrams than 1 % of a thread's can lift a reported percentile p (p99 included)
  // only to the kernel-stamped datagrams' own p + that share: never past their maximum
  threadStampedShare: 0.01,
};

export interface ThreadLoad {
  /** "main", "worker 0", … */
  name: string;
  eventLoopUtilisation: number;
  eventLoopDelayP99Ms: number;
  /** receive lag p99 of a thread that stamped media datagrams, ms */
  receiveLagP99Ms?: number;
  /** arrival stamp to the start of processing (receive lag + the intake's queue) p50 and p99, ms */
  processingWaitP50Ms?: number;
  processingWaitP99Ms?: number;
  /** which clock stamped its datagrams; absent for a thread that stamped none */
  stampSource?: StampSourceSeen;
  /**
   * a mixed thread's datagrams stamped by the thread: their share of its stamped datagrams (0..1)
   * and their own receive lag p99, ms (absent when none had one); absent: the share is not known
   * (a second's figures) and the whole thread is judged by the fallback's rule
   */
  threadStamped?: { share: number; receiveLagP99Ms?: number };
  /** datagrams its intake dropped with the queue full */
  intakeDropped?: number;
  /** frames its viewers completed with a late packet (a retransmission repaired them) */
  repairedFrames?: number;
  /** the publisher's send lag p99 when this thread publishes, ms */
  sendLagP99Ms?: number;
  /**
   * datagrams the kernel dropped on the thread's own sockets (docs/definitions.md#udp-drops); null:
   * a viewer thread whose count could not be read; absent: not counted (no viewer sockets)
   */
  socketDrops?: number | null;
}

export interface CeilingVerdict {
  nearCeiling: boolean;
  thresholds: {
    eventLoopUtilisation: number;
    eventLoopDelayP99Ms: number;
    receiveLagP99Ms: number;
    keepUpWaitP50Ms: number;
    publisherSendLagP99Ms: number;
  };
  /** why, one line per threshold crossed; empty when not near */
  evidence: string[];
}

/**
 * The receive-lag threshold for a run whose one-way delay p99 is `delayP99Ms` (null when the run
 * has no delay figure): the larger of the floor and the share of the delay.
 */
export function receiveLagThresholdMs(
  delayP99Ms: number | null,
  t: CeilingThresholds = DEFAULT_CEILING,
): number {
  if (delayP99Ms === null || !(delayP99Ms > 0)) return t.receiveLagFloorMs;
  return Math.max(t.receiveLagFloorMs, t.receiveLagShareOfDelay * delayP99Ms);
}

const ms = (v: number, d = 2) => `${fmtFixed(v, d)} ms`;

/** What a kernel-stamped viewer thread still can distort. */
function kernelThread(th: ThreadLoad, t: CeilingThresholds, lagLimit: number, out: string[]): void {
  // a datagram's processing (its NACK, its frame) waits for the receive lag and the queue
  const wait = th.processingWaitP99Ms ?? th.receiveLagP99Ms;
  if (wait === undefined) return;
  const typical = th.processingWaitP50Ms;
  if (typical !== undefined && typical >= t.keepUpWaitP50Ms) {
    out.push(
      `${th.name}: processing wait p50 ${ms(typical)} ≥ ${ms(t.keepUpWaitP50Ms)}: it does not keep up`,
    );
    return;
  }
  const late = Math.max(wait, th.eventLoopDelayP99Ms);
  if ((th.repairedFrames ?? 0) > 0 && late >= lagLimit) {
    out.push(
      `${th.name}: ${th.repairedFrames} frames repaired while its NACKs went up to ${ms(late)} late (processing wait or event-loop delay p99 ≥ ${ms(lagLimit)}): those frames carry that wait`,
    );
  }
}

/**
 * A thread stamping its own datagrams (the fallback): its receive lag bound is inside every delay
 * (`lagP99Ms`: the thread's, or a mixed thread's thread-stamped datagrams' own; `what` names it).
 */
function threadStamped(
  th: ThreadLoad,
  lagP99Ms: number | undefined,
  what: string,
  lagLimit: number,
  t: CeilingThresholds,
  delayP99Ms: number | null,
  out: string[],
): void {
  if (lagP99Ms === undefined || lagP99Ms < lagLimit) return;
  const why =
    delayP99Ms !== null && lagLimit > t.receiveLagFloorMs
      ? ` (${fmtFixed(100 * t.receiveLagShareOfDelay, 0)} % of the frame-delay p99 ${ms(delayP99Ms)})`
      : "";
  out.push(`${th.name}: ${what} p99 ${ms(lagP99Ms)} ≥ ${ms(lagLimit)}${why}`);
}

/**
 * Whether the fallback's rule judges a thread (event-loop delay, receive lag): any not stamped by
 * the kernel alone, except a mixed thread whose thread-stamped share is known and below
 * `threadStampedShare`.
 */
function fallbackRule(th: ThreadLoad, t: CeilingThresholds): boolean {
  if (th.stampSource === "kernel") return false;
  if (th.stampSource !== "mixed") return true;
  const floor = t.threadStampedShare ?? (DEFAULT_CEILING.threadStampedShare as number);
  return th.threadStamped === undefined || th.threadStamped.share >= floor;
}

/**
 * A viewer thread by its stamps: its kernel-stamped datagrams by what can still distort a
 * figure; the fallback's rule where it applies, on a mixed thread's thread-stamped datagrams' own
 * lag where it is known.
 */
function byStamps(
  th: ThreadLoad,
  t: CeilingThresholds,
  lagLimit: number,
  delayP99Ms: number | null,
  out: string[],
): void {
  const split = th.stampSource === "mixed" ? th.threadStamped : undefined;
  if (th.stampSource === "kernel" || split !== undefined) kernelThread(th, t, lagLimit, out);
  if (!fallbackRule(th, t)) return;
  if (split === undefined) {
    threadStamped(th, th.receiveLagP99Ms, "receive lag", lagLimit, t, delayP99Ms, out);
    return;
  }
  const what = `receive lag of its ${fmtFixed(100 * split.share, 1)} % thread-stamped datagrams`;
  threadStamped(th, split.receiveLagP99Ms, what, lagLimit, t, delayP99Ms, out);
}

/**
 * `udp`: the host's UDP receive drops over the run (null where unreadable), judged only where the
 * threads' own sockets' drops (`ThreadLoad.socketDrops`) were not read.
 */
export function ceilingVerdict(
  threads: readonly ThreadLoad[],
  udp: { rcvbufErrors: number; inErrors: number } | null,
  t: CeilingThresholds = DEFAULT_CEILING,
  delayP99Ms: number | null = null,
): CeilingVerdict {
  const evidence: string[] = [];
  const lagLimit = receiveLagThresholdMs(delayP99Ms, t);
  for (const th of threads) {
    if (th.eventLoopUtilisation >= t.eventLoopUtilisation) {
      evidence.push(
        `${th.name}: event-loop utilisation ${fmtFixed(th.eventLoopUtilisation, 2)} ≥ ${fmtFixed(t.eventLoopUtilisation, 2)}`,
      );
    }
    // a kernel-stamped viewer thread's timers only pace feedback (judged with the NACKs); the
    // publisher's, and a thread that stamps its own, are judged on them
    if ((th.name === "main" || fallbackRule(th, t)) && th.eventLoopDelayP99Ms >= t.eventLoopDelayP99Ms) {
      evidence.push(
        `${th.name}: event-loop delay p99 ${ms(th.eventLoopDelayP99Ms, 1)} ≥ ${ms(t.eventLoopDelayP99Ms, 1)}`,
      );
    }
    byStamps(th, t, lagLimit, delayP99Ms, evidence);
    if ((th.intakeDropped ?? 0) > 0) {
      evidence.push(`${th.name}: its intake dropped ${th.intakeDropped} datagrams (queue full)`);
    }
    if ((th.socketDrops ?? 0) > 0) {
      evidence.push(
        `${th.name}: the kernel dropped ${th.socketDrops} datagrams on its own sockets (receive buffers full)`,
      );
    }
    if (th.sendLagP99Ms !== undefined && th.sendLagP99Ms >= t.publisherSendLagP99Ms) {
      evidence.push(
        `${th.name}: publisher send lag p99 ${ms(th.sendLagP99Ms)} ≥ ${ms(t.publisherSendLagP99Ms)}`,
      );
    }
  }
  // the host's counter covers every socket (a server's on the same host too): judged only where
  // the client's own sockets' drops were not read
  const ownRead =
    threads.some((th) => typeof th.socketDrops === "number") &&
    !threads.some((th) => th.socketDrops === null);
  if (!ownRead && udp && (udp.rcvbufErrors > 0 || udp.inErrors > 0)) {
    evidence.push(
      `the kernel dropped UDP datagrams on receive (RcvbufErrors +${udp.rcvbufErrors}, InErrors +${udp.inErrors}; every socket on the host: the client's own could not be read)`,
    );
  }
  return {
    nearCeiling: evidence.length > 0,
    thresholds: {
      eventLoopUtilisation: t.eventLoopUtilisation,
      eventLoopDelayP99Ms: t.eventLoopDelayP99Ms,
      receiveLagP99Ms: lagLimit,
      keepUpWaitP50Ms: t.keepUpWaitP50Ms,
      publisherSendLagP99Ms: t.publisherSendLagP99Ms,
    },
    evidence,
  };
}
