// The report model (schema whipbench.report/v0, docs/definitions.md#report). Every interface lists
// its keys in the order they are serialised (a list of figures it extends, in its list's order
// where its comment says); optional keys are the reference tool's
// omitempty/pointer keys and are absent (never undefined-valued) when empty. Builders must create
// objects in this key order. Deliberate additions
// (docs/definitions.md#differences-from-the-reference-tool): client.resources carries Node figures
// instead of peakGoroutines, and a viewer may carry whepFlow after codec.

import type { DelayCounts } from "../delay/counters.ts";
import type { PublisherErrorKind, ViewerErrorKind } from "../errors.ts";
import type { ViewerCountKey, ViewerPooled } from "../figures/pooled-keys.ts";
import type { LinkRecord } from "../link/types.ts";
import type { ThresholdResult } from "../scenario/threshold-types.ts";
import type { Scenario, SERVER_KEYS } from "../scenario/types.ts";
import type { PublisherAudio, RtpReport, Summary } from "../types.ts";
import type { PooledAudioBlock, ViewerAudioBlock } from "./audio.ts";
import type { ChurnReport } from "./churn-types.ts";
import type { ReportClient } from "./client-types.ts";
import type { ClockBlock } from "./clock-types.ts";
import type { PooledLayerSwitches, ViewerLayerChoice } from "./layer-choice.ts";
import type { PooledLayerDelay, ViewerLayer } from "./layer-delay.ts";
import type { ReferenceBlock } from "./reference-types.ts";
import type { PooledRenderBlock, ViewerRenderBlock } from "./render-types.ts";
import type { TimelineEntry } from "./timeline-types.ts";

export type {
  CeilingReport,
  ClientResources,
  EventLoopDelayMs,
  HostReport,
  ReportClient,
  ThreadReport,
  UdpDropsReport,
  WorkerReport,
} from "./client-types.ts";
export type { ClockBlock, ClockMethod, ClockPoint } from "./clock-types.ts";
export type { TimelineEntry } from "./timeline-types.ts";

export const REPORT_SCHEMA = "whipbench.report/v0";

/** docs/definitions.md#server `server`. */
export interface ReportServer {
  whipHost?: string;
  whepHost: string;
  /**
   * our additions: what a managed-service run ran against, from the scenario
   * (docs/load-testing-etiquette.md)
   */
  serverVersion?: string;
  plan?: string;
  region?: string;
  permission?: string;
}

/**
 * The Scenario keys a report's scenario block does not carry: the pass/fail conditions and the
 * capacity search's settings (they have their own blocks), and the managed-service keys (`server`).
 */
type NotInReportScenario = "thresholds" | "capacity" | (typeof SERVER_KEYS)[number];

/**
 * docs/definitions.md#scenario-keys scenario as serialised in a report (redacted to hosts,
 * docs/definitions.md#redaction): Scenario's own keys but those above, `cohorts` and `churn` in
 * the scenario's notation (docs/definitions.md#cohorts, docs/definitions.md#churn). The JSON's key
 * order is reportScenario's (build.ts), in docs/definitions.md#scenario-keys order; our additions
 * are `workers`, `receivePath`, `stampSource`, `viewerSockets`, `keyframeOnRequest`, `audio`,
 * `cohorts` and `churn`.
 */
export type ReportScenario = Omit<Scenario, NotInReportScenario | "cohorts" | "churn"> & {
  cohorts?: Record<string, unknown>[];
  churn?: Record<string, number>;
};

/** docs/definitions.md#publisher-figures `publisher`. */
export interface PublisherReport {
  codec: string;
  stamped: boolean;
  connectMs: number;
  framesSent: number;
  packetsSent: number;
  bytesSent: number;
  loops: number;
  scheduleSlips: number;
  sendingSeconds: number;
  pliReceived: number;
  firReceived: number;
  keyframesOnRequest: number;
  /** (pliReceived + firReceived) / viewers that joined; absent when none joined */
  keyframeRequestsPerJoin?: number;
  error?: string;
  errorKind?: PublisherErrorKind;
  disconnectedLate?: boolean;
  /** our addition: the audio track's sending (docs/definitions.md#audio-track); absent: video only */
  audio?: PublisherAudio;
}

/** The keyframe or delta-frame half of a one-way delay block. */
export interface FrameKindSplit {
  samples: number;
  ms?: Summary;
}

/** docs/definitions.md#comparability fields appended to every one-way delay block. */
export interface Comparability {
  uncertaintyMs?: number;
  comparable: boolean;
  notComparableReason?: string;
}

export type DelaySource = "fingerprint" | "stamp";

/**
 * docs/definitions.md#one-way-delay-per-viewer per-viewer one-way delay block; its counters
 * (DelayCounts) come after `frameEnd`, in DELAY_COUNTERS order (core/delay/counters.ts).
 */
export interface ViewerDelayBlock extends Comparability, DelayCounts {
  source: DelaySource;
  available: boolean;
  reason?: string;
  frameEnd?: "marker" | "timestamp";
  ms?: Summary;
  keyframes: FrameKindSplit;
  deltaFrames: FrameKindSplit;
}

/**
 * docs/definitions.md#one-way-delay-pooled pooled one-way delay block; its counters (DelayCounts,
 * summed over the joined viewers) come after `viewersByFrameEnd`, in DELAY_COUNTERS order.
 */
export interface PooledDelayBlock extends Comparability, DelayCounts {
  source: DelaySource;
  available: boolean;
  reason?: string;
  viewers: number;
  viewersByFrameEnd: Record<string, number>;
  /** fingerprint only (absent on the stamp block) */
  duplicateFrames?: number;
  /** fingerprint only (absent on the stamp block) */
  loopFrames?: number;
  loopMinMs?: number;
  /** our addition, fingerprint only: the clip's identity, `sha256:` + 16 hex digits (clipHashOf) */
  clipHash?: string;
  ms?: Summary;
  keyframes: FrameKindSplit;
  deltaFrames: FrameKindSplit;
}

/** docs/definitions.md#packet-transit-per-viewer per-viewer packet transit. */
export interface ViewerTransitBlock {
  available: boolean;
  reason?: string;
  negotiated: boolean;
  stamped: number;
  invalid: number;
  ms?: Summary;
}

/** docs/definitions.md#packet-transit-pooled pooled packet transit. */
export interface PooledTransitBlock {
  available: boolean;
  reason?: string;
  viewers: number;
  ms?: Summary;
}

/** A viewer's counts that the aggregate sums, one per registry declaration reading a top-level key. */
type ViewerCounts = { [K in ViewerCountKey]: number };

/** docs/definitions.md#viewer one viewer. */
export interface ViewerReport extends ViewerCounts {
  id: number;
  startOffsetMs: number;
  rampOffsetMs?: number;
  /** our addition, with churn: when the viewer stopped, ms after t0 (docs/definitions.md#churn-figures) */
  stopOffsetMs?: number;
  /** our addition, with churn: it started in a leaver's place during the run */
  lateJoiner?: boolean;
  /** our addition, with churn: its lifetime ended before the viewers' deadline */
  left?: boolean;
  joined: boolean;
  codec?: string;
  whepFlow?: "answer" | "counter-offer";
  /** our addition: the viewer's cohort (docs/definitions.md#cohorts); absent: unimpaired or no cohorts */
  cohort?: string;
  signallingMs?: number;
  iceConnectedMs?: number;
  firstRtpMs?: number;
  firstKeyframeMs?: number;
  /** lossPercent null where no packet arrived, jitterMs null before two (nothing measured them) */
  rtp: ViewerRtpBlock;
  // ViewerCounts: nacksSent, ours transportFeedbackSent and rtxReceived (their declarations)
  oneWayDelay: ViewerDelayBlock[];
  packetTransit: ViewerTransitBlock;
  /** ours: what it would have seen (docs/definitions.md#viewer-experience-per-viewer) */
  render: ViewerRenderBlock;
  /** our addition: what the viewer's emulated link did (docs/definitions.md#emulator-counts) */
  link?: LinkRecord;
  droppedAfterJoin?: boolean;
  errorKind?: ViewerErrorKind;
  error?: string;
  /** our addition, in a run with audio: the viewer's audio track (docs/definitions.md#audio-track) */
  audio?: ViewerAudioBlock;
  /** ours, with simulcast: each layer's samples, time and delay (docs/definitions.md#layer-delay) */
  layers?: ViewerLayer[];
  /** ours, with layerSwitch: its asks and layer switches (docs/definitions.md#layer-switches) */
  layerChoice?: ViewerLayerChoice;
}

/** A viewer's RTP statistics as written (viewer-blocks.ts rtpBlock); jitterMsReason where it is null. */
export type ViewerRtpBlock = Omit<RtpReport, "lossPercent"> & {
  lossPercent: number | null;
  jitterMsReason?: string;
};

/** The pooled figures over every viewer (docs/definitions.md#aggregate). */

export interface Aggregate extends ViewerPooled<Summary> {
  valid: boolean;
  verdict: string;
  viewers: number;
  joined: number;
  failed: number;
  failedPercent: number;
  droppedAfterJoin: number;
  // ViewerPooled: the summaries, stalls, packet counts, lossPercentTotal, NACKs, ours TWCC and RTX
  oneWayDelay: PooledDelayBlock[];
  packetTransit: PooledTransitBlock;
  /** ours: what the viewers would have seen (docs/definitions.md#viewer-experience-pooled) */
  render?: PooledRenderBlock;
  /**
   * our addition: each cohort's figures, then the unimpaired viewers'
   * (docs/definitions.md#cohort-figures)
   */
  cohorts?: CohortReport[];
  /** our addition: joins, leaves and the late joiners' setup and join (docs/definitions.md#churn-figures) */
  churn?: ChurnReport;
  /** our addition: the audio track pooled, or why there is none (docs/definitions.md#audio-track) */
  audio?: PooledAudioBlock;
  /** our addition: libwebrtc's reference viewers, all of them (docs/definitions.md#reference-viewers) */
  reference?: ReferenceBlock;
  /** our addition, with layerSwitch: the layer switches pooled (docs/definitions.md#layer-switches) */
  layerSwitches?: PooledLayerSwitches;
  /** ours, with simulcast: one-way delay per layer (docs/definitions.md#layer-delay) */
  layerDelay?: PooledLayerDelay[];
}

/** docs/definitions.md#cohort-figures one cohort's figures, beside the unimpaired viewers'. */
export interface CohortReport {
  name: string;
  /** false for the viewers outside every cohort (name "unimpaired") */
  impaired: boolean;
  viewers: number;
  joined: number;
  joinFirstKeyframeMs: Summary;
  packetsReceived: number;
  packetsLost: number;
  /** null where no packet was expected (lossPercentTotalReason says so) */
  lossPercentTotal: number | null;
  lossPercentTotalReason?: string;
  nacksSent: number;
  stalls: number;
  lateCompletedFrames: number;
  incompleteFrames: number;
  oneWayDelay: PooledDelayBlock[];
  /** what the cohort's viewers would have seen (absent in older reports) */
  render?: PooledRenderBlock;
  /** the emulator's counts summed over the cohort's viewers (absent on the unimpaired entry) */
  link?: LinkRecord;
  layerDelay?: PooledLayerDelay[]; // with simulcast, the group's (docs/definitions.md#layer-delay)
  /** the group's libwebrtc reference viewers, when it had any (docs/definitions.md#reference-viewers) */
  reference?: ReferenceBlock;
}

export type Topology = "single-process" | "split";

/** docs/definitions.md#top-level the whole report. */
export interface Report {
  schema: string;
  whipbenchVersion: string;
  command: "run" | "view";
  interrupted?: boolean;
  startedAt: string;
  finishedAt: string;
  server: ReportServer;
  client: ReportClient;
  topology: Topology;
  clock: ClockBlock;
  scenario: ReportScenario;
  publisher?: PublisherReport;
  aggregate: Aggregate;
  /** ours, beside the reference's keys: the scenario's thresholds judged on this report */
  thresholds?: ThresholdResult[];
  errors: Record<string, number>;
  timeline?: TimelineEntry[];
  /** null only when the publisher failed to connect */
  viewers: ViewerReport[] | null;
  method: string[];
}
