// The viewer and packet counts a shard sends in each per-second tick, declared once with their
// live metrics (docs/definitions.md#prometheus-metrics): the tick's type and each cohort's part of
// it (workers/protocol.ts), the shard's deltas (workers/shard-ticks.ts, workers/cohort-ticks.ts),
// the merge of an agent's threads (main/agents/tick-merge.ts) and the metric families, their
// names, help and order (main/observe/metrics.ts, metrics-cohorts.ts) are derived from this list.
// Pure data: the per-packet code counts into a plain object of these keys made at setup time.

/** One count of a tick and its metric family. */
export interface TickCountSpec {
  /** the tick's key */
  readonly key: string;
  /**
   * "delta": counted since the previous tick, a Prometheus counter; "level": the shard's value at
   * the tick (a gauge: the latest of each shard, summed over shards)
   */
  readonly kind: "delta" | "level";
  readonly metric: string;
  readonly help: string;
  /** the per-cohort family, when each cohort's part of a tick carries the count too */
  readonly cohort?: { readonly metric: string; readonly help: string };
}

/** The counts in the exposition's order of their families. */
export const TICK_COUNTS = [
  {
    key: "started",
    kind: "delta",
    metric: "whipbench_viewers_started_total",
    help: "Viewers that sent their WHEP POST.",
    cohort: {
      metric: "whipbench_cohort_viewers_started_total",
      help: "A cohort's viewers that sent their WHEP POST.",
    },
  },
  {
    key: "joined",
    kind: "delta",
    metric: "whipbench_viewers_joined_total",
    help: "Viewers that got a complete keyframe.",
    cohort: {
      metric: "whipbench_cohort_viewers_joined_total",
      help: "A cohort's viewers that got a complete keyframe.",
    },
  },
  {
    key: "failed",
    kind: "delta",
    metric: "whipbench_viewers_failed_total",
    help: "Viewer failures: failed to join, or errored or dropped after joining.",
    cohort: {
      metric: "whipbench_cohort_viewers_failed_total",
      help: "A cohort's viewer failures: failed to join, or errored or dropped after joining.",
    },
  },
  {
    key: "active",
    kind: "level",
    metric: "whipbench_viewers_active",
    help: "Viewers joined and still running.",
    cohort: {
      metric: "whipbench_cohort_viewers_active",
      help: "A cohort's viewers joined and still running.",
    },
  },
  {
    key: "packets",
    kind: "delta",
    metric: "whipbench_rtp_packets_received_total",
    help: "RTP packets read by all viewers (duplicates included).",
  },
  {
    key: "bytes",
    kind: "delta",
    metric: "whipbench_rtp_bytes_received_total",
    help: "RTP payload bytes read by all viewers.",
  },
  {
    key: "transportFeedbackSent",
    kind: "delta",
    metric: "whipbench_transport_feedback_sent_total",
    help: "RTCP transport feedback messages (transport-cc) written by all viewers.",
  },
  {
    key: "rtxReceived",
    kind: "delta",
    metric: "whipbench_rtx_packets_received_total",
    help: "Retransmissions received on the RTX payload type by all viewers.",
  },
] as const satisfies readonly TickCountSpec[];

type Spec = (typeof TICK_COUNTS)[number];
export type TickCount = Spec["key"];
/** A tick's counts. */
export type TickCounts = Record<TickCount, number>;
/** The counts a cohort's part of a tick carries. */
export type CohortTickCount = Extract<Spec, { cohort: object }>["key"];
export type CohortTickCounts = Record<CohortTickCount, number>;

export const TICK_COUNT_KEYS: readonly TickCount[] = TICK_COUNTS.map((s) => s.key);
/** The counts of a cohort's part, in the list's order. */
export const COHORT_TICK_COUNTS = TICK_COUNTS.filter(
  (s): s is Extract<Spec, { cohort: object }> => "cohort" in s,
);
export const COHORT_TICK_COUNT_KEYS: readonly CohortTickCount[] = COHORT_TICK_COUNTS.map((s) => s.key);

/**
 * What a tick carries of `now` since `last`: a delta count's difference, a level's value at the
 * tick.
 */
export function tickDeltas<K extends TickCount>(
  keys: readonly K[],
  now: Readonly<Record<K, number>>,
  last: Readonly<Record<K, number>>,
): Record<K, number> {
  const out = {} as Record<K, number>;
  for (const k of keys) out[k] = isLevel(k) ? now[k] : now[k] - last[k];
  return out;
}

const LEVELS: ReadonlySet<string> = new Set(TICK_COUNTS.filter((s) => s.kind === "level").map((s) => s.key));

/** Whether a count is a level (the shard's value at the tick) rather than a delta. */
export function isLevel(key: TickCount): boolean {
  return LEVELS.has(key);
}
