// The figure registry (docs/architecture.md#adding-a-figure): every pooled figure of the report
// declared once, with its unit, kind, how it pools over viewers, threads and agents, its report
// key, its /metrics family, its threshold name, its Markdown and HTML labels and its
// docs/definitions.md anchor. The threshold catalogue (core/thresholds/figures.ts) is derived from
// it; what is written elsewhere by hand (report keys, Markdown, HTML, /metrics, definitions.md)
// is checked against it by test/unit/figure-registry.test.ts, in both directions. Pure data.
import { DELIVERY_FIGURES } from "./delivery.ts";
import { EXPERIENCE_FIGURES } from "./experience.ts";
import type { FigureDecl, SummaryTable } from "./types.ts";

export type {
  FigureDecl,
  FigureKind,
  FigurePool,
  RegistryUnit,
  Shown,
  SummaryTable,
  ViewerSource,
} from "./types.ts";

export const FIGURE_REGISTRY: readonly FigureDecl[] = [...DELIVERY_FIGURES, ...EXPERIENCE_FIGURES];

/** The declarations with a row in a Markdown summary table, in the table's order. */
export function rowsOf(table: SummaryTable): FigureDecl[] {
  const rows = FIGURE_REGISTRY.filter((d) => d.row?.table === table);
  return rows.sort((a, b) => (a.row?.at ?? 0) - (b.row?.at ?? 0));
}

/** A figure the aggregate pools from each joined viewer's report object: its key there and its source. */
export type ViewerPooling =
  | { key: string; pool: "perViewer"; path: string; only?: "twoKeyframes" }
  | { key: string; pool: "sum"; path: string }
  | { key: string; pool: "ofSums"; part: string; of: string[] };

/** The aggregate key (`jitterMs`) of a declaration's report key (`aggregate.jitterMs`). */
export function aggregateKey(d: FigureDecl): string {
  return d.report.replace(/^aggregate\./, "");
}

/**
 * The figures pooled from the viewers, one per declaration with a `viewer` source, in the report's
 * key order; a ratio's counters resolved to the key paths their declarations sum.
 */
export function pooledFromViewers(): ViewerPooling[] {
  const list = FIGURE_REGISTRY.flatMap((d) => (d.viewer === undefined ? [] : [{ d, v: d.viewer }]));
  const summed = new Map<string, string>();
  for (const { d, v } of list) if (d.pool === "sum" && "key" in v) summed.set(aggregateKey(d), v.key);
  const pathOf = (counter: string, ratio: string): string => {
    const path = summed.get(counter);
    // internal: invariant, test/unit/figure-registry.test.ts checks every ratio's counters
    if (path === undefined) throw new Error(`internal error: ${ratio} divides ${counter}, no summed count`);
    return path;
  };
  return list
    .sort((a, b) => a.v.at - b.v.at)
    .map(({ d, v }): ViewerPooling => {
      const key = aggregateKey(d);
      if ("part" in v)
        return { key, pool: "ofSums", part: pathOf(v.part, key), of: v.of.map((c) => pathOf(c, key)) };
      if (d.pool === "sum") return { key, pool: "sum", path: v.key };
      return { key, pool: "perViewer", path: v.key, ...(v.only !== undefined ? { only: v.only } : {}) };
    });
}

/** What an object holds at a declaration's key path (`aggregate.jitterMs`; no list on the way). */
export function valueAt(root: unknown, path: string): unknown {
  let v: unknown = root;
  for (const k of path.split("."))
    v = typeof v === "object" && v !== null ? (v as Record<string, unknown>)[k] : undefined;
  return v;
}

/** The stats of a summary (core/scenario/threshold-types.ts STATS) and of the receive lag. */
const STAT_NAMES = {
  summary: ["min", "mean", "p50", "p95", "p99", "max"],
  p50p99max: ["p50", "p99", "max"],
} as const;

/** The simulcast rids a per-layer name takes (core/thresholds/layer-figures.ts LAYER_RIDS). */
export const REGISTRY_RIDS = ["l", "m", "h"] as const;

/** The stats a declaration's threshold names end with ([] when they take none). */
export function statsOf(d: FigureDecl): readonly string[] {
  return d.stats === undefined ? [] : STAT_NAMES[d.stats];
}

/** Every threshold name a declaration gives, in stat order (none when no threshold may name it). */
export function thresholdNames(d: FigureDecl): string[] {
  if (d.threshold === false) return [];
  const bases = d.rids === true ? REGISTRY_RIDS.map((rid) => `${d.name}.${rid}`) : [d.name];
  const stats = statsOf(d);
  return stats.length === 0 ? bases : stats.flatMap((s) => bases.map((b) => `${b}.${s}`));
}

/**
 * The report's `aggregate` keys that are not one figure of this registry, each with where its
 * figures are declared instead.
 */
export const NOT_IN_REGISTRY: Readonly<Record<string, string>> = {
  valid: "the verdict (docs/definitions.md#verdict), not a figure",
  verdict: "the verdict's sentence (docs/definitions.md#verdict)",
  viewers: "the viewers the scenario asked for, not measured",
  lossPercentTotalReason: "why aggregate.lossPercentTotal is null (docs/definitions.md#aggregate)",
  cohorts: "each entry carries the figures above for its viewers (docs/definitions.md#cohort-figures)",
  churn: "the churn counts (docs/definitions.md#churn-figures), from the churn schedule",
  audio: "the audio track's blocks (docs/definitions.md#audio-track)",
  reference: "libwebrtc's figures, declared in core/reference/figures.ts",
};

/**
 * /metrics families that are no figure of this registry, each with why (the per-second tick
 * counts and the reference viewers' families are declared by their own lists).
 */
export const METRICS_NOT_IN_REGISTRY: Readonly<Record<string, string>> = {
  whipbench_viewers_target: "the viewers the scenario asked for",
  whipbench_publisher_rtp_packets_sent_total:
    "the publisher's progress (docs/definitions.md#publisher-figures)",
  whipbench_publisher_frames_sent_total: "the publisher's progress (docs/definitions.md#publisher-figures)",
  whipbench_client_cpu_seconds_total: "the client's own resources (docs/definitions.md#client-resources)",
  whipbench_client_goroutines: "the client's own resources (docs/definitions.md#client-resources)",
  whipbench_client_heap_bytes: "the client's own resources (docs/definitions.md#client-resources)",
  whipbench_client_rss_bytes: "the client's own resources (docs/definitions.md#client-resources)",
  whipbench_host_udp_receive_errors_total: "the host's UDP drops (docs/definitions.md#udp-drops)",
  whipbench_worker_event_loop_delay_p99_seconds: "a thread's own load (docs/definitions.md#client-ceiling)",
  whipbench_worker_event_loop_utilisation_ratio: "a thread's own load (docs/definitions.md#client-ceiling)",
  whipbench_publisher_send_lag_p99_seconds: "the publisher's send lag (docs/definitions.md#send-lag)",
  whipbench_worker_cpu_seconds_total: "a thread's own load (docs/definitions.md#client-ceiling)",
  whipbench_layer_switches_total: "the layer switches counted (docs/definitions.md#layer-metrics)",
  whipbench_reference_viewers: "the reference viewers running (docs/definitions.md#reference-viewer-metrics)",
  whipbench_cohort_viewers_target: "the viewers a cohort asked for",
  whipbench_cohort_one_way_delay_seconds: "a cohort's part of whipbench_one_way_delay_seconds",
  whipbench_cohort_freezes_total: "a cohort's part of whipbench_freezes_total",
  whipbench_cohort_frozen_seconds_total: "a cohort's part of whipbench_frozen_seconds_total",
};
