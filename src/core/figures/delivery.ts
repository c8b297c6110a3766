// The registry's figures of delivery (docs/architecture.md#adding-a-figure): one-way delay,
// packet transit, join, loss, jitter, keyframes, NACKs, stalls and the viewers' fates. The
// summary figures come first, in the threshold catalogue's order.
import type { FigureDecl, Shown } from "./types.ts";

const NO_LIVE = (what: string): Shown => ({ none: `an end-of-run ${what}; /metrics has no family for it` });
const NO_HTML: Shown = { none: "the HTML report leaves it to the Markdown report" };

/** One source's pooled delay block (docs/definitions.md#one-way-delay-pooled), one /metrics family. */
function delaySource(
  name: string,
  markdown: string,
  html: string,
  anchor: string,
  about: string,
): FigureDecl {
  const report = "aggregate.oneWayDelay[].ms";
  const metric = "whipbench_one_way_delay_seconds";
  return {
    name,
    stats: "summary",
    unit: "ms",
    kind: "histogram",
    pool: "merge",
    report,
    metric,
    markdown,
    html,
    anchor,
    about,
  };
}

type PerViewer = Pick<
  FigureDecl,
  "name" | "unit" | "kind" | "report" | "markdown" | "row" | "viewer" | "anchor" | "about"
>;

/** A summary taking one exact value per joined viewer (docs/definitions.md#summaries-and-percentiles). */
function perViewer<const D extends PerViewer & { html?: Shown }>(
  d: D,
): FigureDecl & D & { pool: "perViewer" } {
  const metric = NO_LIVE("summary over the viewers");
  return { stats: "summary", pool: "perViewer", metric, html: NO_HTML, ...d };
}

type Count = Pick<FigureDecl, "name" | "report" | "metric" | "markdown" | "anchor"> & Partial<FigureDecl>;

/**
 * A count summed over the viewers, threads and agents; with a `viewer` source, the aggregate sums
 * each joined viewer's count (core/report/aggregate.ts pooledOverViewers).
 */
function count<const D extends Count>(d: D) {
  return { unit: "", kind: "counter", pool: "sum", html: d.markdown, ...d } as const satisfies FigureDecl;
}

export const DELIVERY_FIGURES = [
  delaySource(
    "oneWayDelay",
    "one-way delay (fingerprint, per frame)",
    "one-way delay (fingerprint)",
    "one-way-delay",
    "one-way delay <stat>, headline (fingerprint) source",
  ),
  delaySource(
    "oneWayDelay.fingerprint",
    "One-way delay (fingerprint)",
    "one-way delay (fingerprint)",
    "one-way-delay",
    "one-way delay <stat>, fingerprint source",
  ),
  delaySource(
    "oneWayDelay.stamp",
    "One-way delay (stamp)",
    "one-way delay (stamp)",
    "one-way-delay",
    "one-way delay <stat>, stamp source",
  ),
  {
    name: "packetTransit",
    stats: "summary",
    unit: "ms",
    kind: "histogram",
    pool: "merge",
    report: "aggregate.packetTransit.ms",
    metric: "whipbench_packet_transit_seconds",
    markdown: "packet transit (stamped packets)",
    html: "packet transit",
    anchor: "aggregate",
    about: "packet transit <stat>",
  },
  perViewer({
    name: "join",
    unit: "ms",
    kind: "histogram",
    report: "aggregate.joinFirstKeyframeMs",
    viewer: { key: "firstKeyframeMs", at: 2 },
    markdown: "join: first keyframe",
    row: { table: "aggregate.join", at: 0 },
    html: "join (first keyframe)",
    anchor: "aggregate",
    about: "join (POST to first keyframe) <stat> over joined viewers",
  }),
  perViewer({
    name: "join.firstRtp",
    unit: "ms",
    kind: "histogram",
    report: "aggregate.joinFirstRtpMs",
    viewer: { key: "firstRtpMs", at: 1 },
    markdown: "join: first RTP packet",
    row: { table: "aggregate.join", at: 1 },
    anchor: "aggregate",
    about: "POST to first RTP packet <stat>",
  }),
  perViewer({
    name: "signalling",
    unit: "ms",
    kind: "histogram",
    report: "aggregate.signallingMs",
    viewer: { key: "signallingMs", at: 0 },
    markdown: "signalling (POST → answer)",
    row: { table: "aggregate.join", at: 2 },
    anchor: "join-time",
    about: "WHEP signalling <stat>",
  }),
  perViewer({
    name: "jitter",
    unit: "ms",
    kind: "histogram",
    report: "aggregate.jitterMs",
    viewer: { key: "rtp.jitterMs", at: 4 },
    markdown: "jitter per viewer",
    row: { table: "aggregate.rtp", at: 1 },
    anchor: "rtp-statistics",
    about: "RTP interarrival jitter <stat> over viewers",
  }),
  perViewer({
    name: "loss",
    unit: "%",
    kind: "ratio",
    report: "aggregate.lossPercent",
    viewer: { key: "rtp.lossPercent", at: 3 },
    markdown: "loss per viewer",
    row: { table: "aggregate.rtp", at: 0 },
    anchor: "rtp-statistics",
    about: "per-viewer packet loss <stat>",
  }),
  perViewer({
    name: "keyframeInterval",
    unit: "s",
    kind: "histogram",
    report: "aggregate.keyframeIntervalMeanS",
    viewer: { key: "rtp.keyframeIntervalMeanS", at: 5, only: "twoKeyframes" },
    markdown: "keyframe interval per viewer",
    row: { table: "aggregate.rtp", at: 2 },
    anchor: "aggregate",
    about: "mean keyframe interval <stat> over viewers",
  }),
  {
    name: "receiveLag",
    stats: "p50p99max",
    unit: "ms",
    kind: "histogram",
    pool: "merge",
    report: "client.receiveLagMs",
    metric: "whipbench_worker_receive_lag_p99_seconds",
    markdown: "receive lag p50 / p99 / max",
    html: { none: "the HTML report shows the client's load per second, not its receive lag" },
    anchor: "receive-lag",
    about: "the client's own receive lag <stat> (client.receiveLagMs)",
  },
  {
    name: "loss",
    unit: "%",
    kind: "ratio",
    pool: "ofSums",
    report: "aggregate.lossPercentTotal",
    viewer: { part: "packetsLost", of: ["packetsReceived", "packetsLost"], at: 9 },
    row: { table: "aggregate.packets", at: 2 },
    metric: NO_LIVE("ratio of the viewers' lost and expected packets"),
    markdown: "% of expected",
    html: "loss",
    anchor: "aggregate",
    about: "packets lost of packets expected, all joined viewers",
  },
  count({
    name: "nacks",
    report: "aggregate.nacksSent",
    viewer: { key: "nacksSent", at: 10 },
    row: { table: "aggregate.packets", at: 3 },
    metric: NO_LIVE("count"),
    markdown: "NACKs sent",
    cohortRow: { at: 4 },
    anchor: "nacks",
    about: "NACKs sent",
  }),
  count({
    name: "stalls",
    report: "aggregate.stalls",
    viewer: { key: "rtp.stalls", at: 6 },
    row: { table: "aggregate.packets", at: 6 },
    metric: NO_LIVE("count"),
    markdown: "stalls across all viewers",
    html: "stalls",
    cohortRow: { at: 6 },
    anchor: "rtp-statistics",
    about: "stalls",
  }),
  count({
    name: "failedViewers",
    report: "aggregate.failed",
    metric: "whipbench_viewers_failed_total",
    markdown: "failed (",
    anchor: "verdict",
    about: "viewers that failed to join",
  }),
  {
    name: "failedViewers.percent",
    unit: "%",
    kind: "ratio",
    pool: "ofSums",
    report: "aggregate.failedPercent",
    metric: { none: "/metrics has the count (whipbench_viewers_failed_total) and the target to divide" },
    markdown: "failed (",
    html: "failed (",
    anchor: "aggregate",
    about: "viewers that failed to join, % of those asked for",
  },
  count({
    name: "droppedAfterJoin",
    report: "aggregate.droppedAfterJoin",
    metric: NO_LIVE("count"),
    markdown: "dropped after joining",
    anchor: "aggregate",
    about: "viewers dropped after joining",
  }),
  // the report's counts no threshold may name
  count({
    name: "joined",
    threshold: false,
    report: "aggregate.joined",
    metric: "whipbench_viewers_joined_total",
    markdown: "joined",
    anchor: "join-time",
  }),
  count({
    name: "packetsReceived",
    threshold: false,
    report: "aggregate.packetsReceived",
    viewer: { key: "rtp.received", at: 7 },
    row: { table: "aggregate.packets", at: 0 },
    metric: "whipbench_rtp_packets_received_total",
    markdown: "received",
    html: NO_HTML,
    anchor: "aggregate",
  }),
  count({
    name: "packetsLost",
    threshold: false,
    report: "aggregate.packetsLost",
    viewer: { key: "rtp.lost", at: 8 },
    row: { table: "aggregate.packets", at: 1 },
    metric: NO_LIVE("count"),
    markdown: "lost",
    anchor: "aggregate",
  }),
  count({
    name: "transportFeedbackSent",
    threshold: false,
    report: "aggregate.transportFeedbackSent",
    viewer: { key: "transportFeedbackSent", at: 11 },
    row: { table: "aggregate.packets", at: 4 },
    metric: "whipbench_transport_feedback_sent_total",
    markdown: "transport feedback messages sent",
    html: NO_HTML,
    anchor: "transport-feedback",
  }),
  count({
    name: "rtxReceived",
    threshold: false,
    report: "aggregate.rtxReceived",
    viewer: { key: "rtxReceived", at: 12 },
    row: { table: "aggregate.packets", at: 5 },
    metric: "whipbench_rtx_packets_received_total",
    markdown: "RTX packets received",
    html: NO_HTML,
    anchor: "rtx-received",
  }),
] as const satisfies readonly FigureDecl[];
