// The report model (schema whipbench.report/v0, docs/definitions.md#report). Every interface lists its keys in the
// order they are serialised; optional keys are the reference tool's omitempty/pointer keys and are absent
// (never undefined-valued) when empty. Builders must create objects in this key order.
// Deliberate additions (docs/definitions.md#differences-from-the-reference-tool): client.resources carries Node figures
// instead of peakGoroutines, and a viewer may carry whepFlow after codec.

import type { RtpReport, Summary } from "../types.ts";

export const REPORT_SCHEMA = "whipbench.report/v0";

/** docs/definitions.md#clock-block: how the two ends share a time base. */
export type ClockMethod = "monotonic" | "exchange" | "none" | "same-wall-clock" | "";

export interface ClockPoint {
  tS: number;
  offsetMs: number;
  rttMs: number;
}

/** docs/definitions.md#clock-block `clock`. */
export interface ClockBlock {
  method: ClockMethod;
  offsetMs?: number;
  uncertaintyMs?: number;
  points?: ClockPoint[];
  reason?: string;
  stepDetected: boolean;
}

/** docs/definitions.md#server `server`. */
export interface ReportServer {
  whipHost?: string;
  whepHost: string;
}

/** Event-loop delay in ms (perf_hooks histogram read at the end of the run). */
export interface EventLoopDelayMs {
  p50: number;
  p99: number;
  max: number;
}

/** `client.resources` with Node figures (replaces the reference's peakGoroutines). */
export interface ClientResources {
  cpuSeconds?: number;
  cpuUtilisationPercent?: number;
  cpuReason?: string;
  peakHeapBytes: number;
  peakRssBytes: number;
  /** worker threads that ran viewers; 0 = viewers ran in the main thread */
  workers: number;
  /** the main thread alone (publisher, send log, merge; the viewers too with 0 workers) */
  mainThread?: ThreadReport;
  /** kernel UDP receive drops on this host during the run (Linux); absent where unreadable */
  udpReceiveErrors?: { rcvbufErrors: number; inErrors: number };
}

/** One thread's own load over the run. */
export interface ThreadReport {
  cpuSeconds: number;
  eventLoopUtilisation: number;
  eventLoopDelayMs: EventLoopDelayMs;
}

/** `client.workers[]`: one entry per shard, in shard order. */
export interface WorkerReport {
  shard: number;
  /** "main" with --workers 0, else "worker" */
  thread: "main" | "worker";
  viewers: number;
  packets: number;
  cpuSeconds: number;
  /** µs of this thread's CPU per received packet; absent when no packet arrived */
  usPerPacket?: number;
  eventLoopUtilisation: number;
  eventLoopDelayMs: EventLoopDelayMs;
}

/** `client.ceiling`: whether the client was near its own ceiling, and why. */
export interface CeilingReport {
  nearCeiling: boolean;
  thresholds: { eventLoopUtilisation: number; eventLoopDelayP99Ms: number };
  evidence?: string[];
}

/** docs/definitions.md#client `client`. The key `go` is kept for schema compatibility; it carries the runtime string. */
export interface ReportClient {
  os: string;
  arch: string;
  cpus: number;
  go: string;
  resources?: ClientResources;
  workers?: WorkerReport[];
  ceiling?: CeilingReport;
}

/** docs/definitions.md#scenario-keys scenario as serialised in a report (redacted to hosts, docs/definitions.md#redaction), keys in docs/definitions.md#scenario-keys order. */
export interface ReportScenario {
  name?: string;
  whip?: string;
  whep: string;
  codec?: string;
  viewers: number;
  rampSeconds: number;
  holdSeconds: number;
  rampOffsetSeed?: bigint;
  rampOffsetMaxSeconds?: number;
  warmupSeconds?: number;
  joinTimeoutSeconds?: number;
  stallMs?: number;
  excludeFirstSeconds?: number;
  bearerEnv?: string;
  metrics?: string;
  includeLoopback?: boolean;
  loopbackOnly?: boolean;
  /** our addition: worker threads asked for (absent when the scenario does not set it) */
  workers?: number;
  /** our addition: the viewers' receive path, "werift" or "lean" (absent in a scenario not normalised) */
  receivePath?: string;
}

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
  error?: string;
  errorKind?: string;
  disconnectedLate?: boolean;
}

/** WB-44 keyframe / delta-frame half of a one-way delay block. */
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

/** docs/definitions.md#one-way-delay-per-viewer per-viewer one-way delay block. */
export interface ViewerDelayBlock extends Comparability {
  source: DelaySource;
  available: boolean;
  reason?: string;
  frameEnd?: "marker" | "timestamp";
  completeFrames: number;
  incompleteFrames: number;
  samples: number;
  invalid: number;
  unmatchedFrames: number;
  excludedFrames: number;
  lateCompletedFrames: number;
  ms?: Summary;
  keyframes: FrameKindSplit;
  deltaFrames: FrameKindSplit;
}

/** docs/definitions.md#one-way-delay-pooled pooled one-way delay block. */
export interface PooledDelayBlock extends Comparability {
  source: DelaySource;
  available: boolean;
  reason?: string;
  viewers: number;
  viewersByFrameEnd: Record<string, number>;
  completeFrames: number;
  incompleteFrames: number;
  samples: number;
  invalid: number;
  unmatchedFrames: number;
  excludedFrames: number;
  lateCompletedFrames: number;
  /** fingerprint only (absent on the stamp block) */
  duplicateFrames?: number;
  /** fingerprint only (absent on the stamp block) */
  loopFrames?: number;
  loopMinMs?: number;
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

/** docs/definitions.md#viewer one viewer. */
export interface ViewerReport {
  id: number;
  startOffsetMs: number;
  rampOffsetMs?: number;
  joined: boolean;
  codec?: string;
  whepFlow?: "answer" | "counter-offer";
  signallingMs?: number;
  iceConnectedMs?: number;
  firstRtpMs?: number;
  firstKeyframeMs?: number;
  rtp: RtpReport;
  nacksSent: number;
  oneWayDelay: ViewerDelayBlock[];
  packetTransit: ViewerTransitBlock;
  droppedAfterJoin?: boolean;
  errorKind?: string;
  error?: string;
}

/** docs/definitions.md#aggregate aggregate. */
export interface Aggregate {
  valid: boolean;
  verdict: string;
  viewers: number;
  joined: number;
  failed: number;
  failedPercent: number;
  droppedAfterJoin: number;
  signallingMs: Summary;
  joinFirstRtpMs: Summary;
  joinFirstKeyframeMs: Summary;
  lossPercent: Summary;
  jitterMs: Summary;
  keyframeIntervalMeanS: Summary;
  stalls: number;
  packetsReceived: number;
  packetsLost: number;
  lossPercentTotal: number;
  nacksSent: number;
  oneWayDelay: PooledDelayBlock[];
  packetTransit: PooledTransitBlock;
}

/** docs/definitions.md#timeline one timeline entry. */
export interface TimelineEntry {
  t: number;
  active: number;
  packets: number;
  /** our addition: process CPU over that second, % of all cores */
  cpuPercent?: number;
  /** our addition: the worst p99 event-loop delay of the shard threads over that second, ms */
  eventLoopDelayMs?: number;
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
  errors: Record<string, number>;
  timeline?: TimelineEntry[];
  /** null only when the publisher failed to connect */
  viewers: ViewerReport[] | null;
  method: string[];
}
