// The client's own ceiling: a saturated client reports its own queueing as the server's delay.
// A run is near the ceiling when any thread that runs viewers or the publisher was busy or late
// past a stated threshold, or the kernel dropped UDP datagrams on receive during the run.
import { fmtFixed } from "../go-compat/fmt.ts";

export interface CeilingThresholds {
  /** event-loop utilisation of one thread over the run, 0..1 */
  eventLoopUtilisation: number;
  /** p99 event-loop delay of one thread over the run, ms */
  eventLoopDelayP99Ms: number;
}

export const DEFAULT_CEILING: CeilingThresholds = { eventLoopUtilisation: 0.9, eventLoopDelayP99Ms: 20 };

export interface ThreadLoad {
  /** "main", "worker 0", … */
  name: string;
  eventLoopUtilisation: number;
  eventLoopDelayP99Ms: number;
}

export interface CeilingVerdict {
  nearCeiling: boolean;
  thresholds: CeilingThresholds;
  /** why, one line per threshold crossed; empty when not near */
  evidence: string[];
}

/** `udp` is null where the kernel's counters cannot be read (deltas over the run). */
export function ceilingVerdict(
  threads: readonly ThreadLoad[],
  udp: { rcvbufErrors: number; inErrors: number } | null,
  t: CeilingThresholds = DEFAULT_CEILING,
): CeilingVerdict {
  const evidence: string[] = [];
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
  }
  if (udp && (udp.rcvbufErrors > 0 || udp.inErrors > 0)) {
    evidence.push(
      `the kernel dropped UDP datagrams on receive (RcvbufErrors +${udp.rcvbufErrors}, InErrors +${udp.inErrors})`,
    );
  }
  return { nearCeiling: evidence.length > 0, thresholds: t, evidence };
}
