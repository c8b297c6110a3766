// The client's own ceiling: a saturated client reports its own queueing as the server's delay.
// A run is near the ceiling when any thread that runs viewers or the publisher was busy or late
// past a stated threshold, when a viewer thread's media datagrams waited too long before their
// stamp (the receive lag, docs/definitions.md#receive-lag: event-loop figures alone do not see a
// fan-out burst), or when the kernel dropped UDP datagrams on receive during the run.
import { fmtFixed } from "../go-compat/fmt.ts";

export interface CeilingThresholds {
  /** event-loop utilisation of one thread over the run, 0..1 */
  eventLoopUtilisation: number;
  /** p99 event-loop delay of one thread over the run, ms */
  eventLoopDelayP99Ms: number;
  /** a viewer thread's receive lag p99 at which it is near, whatever the delay, ms … */
  receiveLagFloorMs: number;
  /** … or this share of the one-way delay p99 being measured, when that is larger */
  receiveLagShareOfDelay: number;
}

export const DEFAULT_CEILING: CeilingThresholds = {
  eventLoopUtilisation: 0.9,
  eventLoopDelayP99Ms: 20,
  // a quiet 2-core machine with the relay in-process shows a receive-lag p99 of 2–4 ms at 2–10
  // viewers (OS wake-ups, GC; bench/README.md, truth): below this the guard would call every
  // loopback run client-bound; the figure itself is in the report either way
  receiveLagFloorMs: 5,
  receiveLagShareOfDelay: 0.1,
};

export interface ThreadLoad {
  /** "main", "worker 0", … */
  name: string;
  eventLoopUtilisation: number;
  eventLoopDelayP99Ms: number;
  /** receive lag p99 of a thread that stamped media datagrams, ms */
  receiveLagP99Ms?: number;
}

export interface CeilingVerdict {
  nearCeiling: boolean;
  thresholds: {
    eventLoopUtilisation: number;
    eventLoopDelayP99Ms: number;
    receiveLagP99Ms: number;
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

/** `udp` is null where the kernel's counters cannot be read (deltas over the run). */
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
    if (th.eventLoopDelayP99Ms >= t.eventLoopDelayP99Ms) {
      evidence.push(
        `${th.name}: event-loop delay p99 ${fmtFixed(th.eventLoopDelayP99Ms, 1)} ms ≥ ${fmtFixed(t.eventLoopDelayP99Ms, 1)} ms`,
      );
    }
    if (th.receiveLagP99Ms !== undefined && th.receiveLagP99Ms >= lagLimit) {
      const why =
        delayP99Ms !== null && lagLimit > t.receiveLagFloorMs
          ? ` (${fmtFixed(100 * t.receiveLagShareOfDelay, 0)} % of the frame-delay p99 ${fmtFixed(delayP99Ms, 2)} ms)`
          : "";
      evidence.push(
        `${th.name}: receive lag p99 ${fmtFixed(th.receiveLagP99Ms, 2)} ms ≥ ${fmtFixed(lagLimit, 2)} ms${why}`,
      );
    }
  }
  if (udp && (udp.rcvbufErrors > 0 || udp.inErrors > 0)) {
    evidence.push(
      `the kernel dropped UDP datagrams on receive (RcvbufErrors +${udp.rcvbufErrors}, InErrors +${udp.inErrors})`,
    );
  }
  return {
    nearCeiling: evidence.length > 0,
    thresholds: {
      eventLoopUtilisation: t.eventLoopUtilisation,
      eventLoopDelayP99Ms: t.eventLoopDelayP99Ms,
      receiveLagP99Ms: lagLimit,
    },
    evidence,
  };
}
