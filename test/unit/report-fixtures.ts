// Hand-built report inputs for the report, Markdown and comparability tests.

import { emptyStampCounters } from "../../src/core/delay/stamp-delay.ts";
import type { ViewerErrorKind } from "../../src/core/errors.ts";
import { zeroCounts } from "../../src/core/figures/pooled-keys.ts";
import { emptyRender } from "../../src/core/render/render-model.ts";
import { buildReport } from "../../src/core/report/build.ts";
import type { ReportInput, ViewerInput } from "../../src/core/report/input.ts";
import type { Report } from "../../src/core/report/types.ts";
import type { Scenario } from "../../src/core/scenario/types.ts";
import { DelayHistogram } from "../../src/core/stats/summaries.ts";
import type {
  OneWayDelayBlocker,
  OneWayDelayCounters,
  RenderCounters,
  RtpReport,
} from "../../src/core/types.ts";

/** 2026-10-05T07:43:46.020013Z */
export const STARTED_NS = BigInt(Date.UTC(2026, 9, 5, 7, 43, 46)) * 1_000_000n + 20_013_000n;
/** 42.046963 s later */
export const FINISHED_NS = STARTED_NS + 42_046_963_000n;

export function hist(valuesMs: readonly number[]): DelayHistogram {
  const h = new DelayHistogram();
  for (const v of valuesMs) h.recordNs(Math.round(v * 1e6));
  return h;
}

export interface ViewerOpts {
  joined?: boolean;
  /** null: no track */
  codec?: string | null;
  whepFlow?: "answer" | "counter-offer";
  signallingMs?: number;
  firstRtpMs?: number;
  firstKeyframeMs?: number;
  rtp?: Partial<RtpReport>;
  nacksSent?: number;
  transportFeedbackSent?: number;
  rtxReceived?: number;
  keyMs?: number[];
  deltaMs?: number[];
  counters?: Partial<OneWayDelayCounters>;
  blocker?: OneWayDelayBlocker;
  transit?: { negotiated: boolean; stamped: number; invalid: number; valuesMs: number[] };
  droppedAfterJoin?: boolean;
  errorKind?: ViewerErrorKind;
  error?: string;
  startOffsetNs?: number;
  rampOffsetNs?: number;
  /** the render counters over emptyRender()'s, and the two histograms behind them */
  render?: Partial<RenderCounters>;
  recoveryMs?: number[];
  pliKeyframeMs?: number[];
}

const NS = 1e6;

export function makeViewer(id: number, o: ViewerOpts = {}): ViewerInput {
  const joined = o.joined ?? true;
  const keyMs = o.keyMs ?? [];
  const deltaMs = o.deltaMs ?? [];
  const samples = keyMs.length + deltaMs.length;
  const counters: OneWayDelayCounters = {
    frameEnd: samples > 0 ? "marker" : "",
    completeFrames: samples,
    incompleteFrames: 0,
    samples,
    invalid: 0,
    unmatchedFrames: 0,
    excludedFrames: 0,
    duplicateFrames: 0,
    lateCompletedFrames: 0,
    keyframeSamples: keyMs.length,
    deltaFrameSamples: deltaMs.length,
    ...o.counters,
  };
  const transit = o.transit ?? { negotiated: false, stamped: 0, invalid: 0, valuesMs: [] };
  const rtp: RtpReport = {
    received: joined ? 1000 : 0,
    expected: joined ? 1000 : 0,
    lost: 0,
    duplicates: 0,
    tooLate: 0,
    lossPercent: 0,
    jitterMs: joined ? 0.5 : null,
    receivingSeconds: joined ? 30 : 0,
    stalls: 0,
    stalledMs: 0,
    longestGapMs: joined ? 67 : 0,
    keyframes: joined ? 30 : 0,
    keyframeIntervalMinS: joined ? 1 : 0,
    keyframeIntervalMeanS: joined ? 1 : 0,
    keyframeIntervalMaxS: joined ? 1 : 0,
    ...o.rtp,
  };
  const codec = o.codec === undefined ? "vp8" : o.codec;
  const record: ViewerInput["record"] = {
    id,
    joined,
    ...(codec !== null ? { codec } : {}),
    ...(o.whepFlow !== undefined ? { whepFlow: o.whepFlow } : {}),
    ...(joined || o.signallingMs !== undefined ? { signallingNs: (o.signallingMs ?? 5) * NS } : {}),
    ...(joined || o.firstRtpMs !== undefined ? { firstRtpNs: (o.firstRtpMs ?? 30) * NS } : {}),
    ...(joined || o.firstKeyframeMs !== undefined
      ? { firstKeyframeNs: (o.firstKeyframeMs ?? 1000) * NS }
      : {}),
    ...(joined ? { iceConnectedNs: 20 * NS } : {}),
    rtp,
    ...zeroCounts(),
    nacksSent: o.nacksSent ?? 0,
    transportFeedbackSent: o.transportFeedbackSent ?? 0,
    rtxReceived: o.rtxReceived ?? 0,
    oneWayDelay: counters,
    oneWayDelayBlocker: o.blocker ?? (codec === null ? { kind: "no_track" } : { kind: "none" }),
    delayHist: hist([...keyMs, ...deltaMs]),
    delayKeyHist: hist(keyMs),
    delayDeltaHist: hist(deltaMs),
    packetTransit: { negotiated: transit.negotiated, stamped: transit.stamped, invalid: transit.invalid },
    transitHist: hist(transit.valuesMs),
    stampDelay: emptyStampCounters(),
    stampHist: hist([]),
    stampKeyHist: hist([]),
    stampDeltaHist: hist([]),
    render: { ...emptyRender(), ...o.render },
    recoveryHist: hist(o.recoveryMs ?? []),
    pliKeyframeHist: hist(o.pliKeyframeMs ?? []),
    ...(o.droppedAfterJoin === true ? { droppedAfterJoin: true } : {}),
    ...(o.errorKind !== undefined ? { errorKind: o.errorKind } : {}),
    ...(o.error !== undefined ? { error: o.error } : {}),
  };
  return {
    record,
    startOffsetNs: o.startOffsetNs ?? id * 1e9,
    ...(o.rampOffsetNs !== undefined ? { rampOffsetNs: o.rampOffsetNs } : {}),
  };
}

export function makeScenario(viewers: number, over: Partial<Scenario> = {}): Scenario {
  return {
    name: "unit test",
    whip: "https://user:pw@pub.example.test:8443/live/whip?token=QUERYSECRET#frag",
    whep: "http://[::1]:8889/live/whep?token=QUERYSECRET",
    codec: "vp8",
    viewers,
    rampSeconds: 10,
    holdSeconds: 30,
    warmupSeconds: 2,
    joinTimeoutSeconds: 10,
    stallMs: 500,
    excludeFirstSeconds: 5,
    bearerEnv: "WB_TOKEN",
    ...over,
  };
}

/** A single-process `run` with a send log, monotonic clock and a healthy publisher. */
export function makeInput(viewers: ViewerInput[], over: Partial<ReportInput> = {}): ReportInput {
  return {
    command: "run",
    interrupted: false,
    startedAtUnixNs: STARTED_NS,
    finishedAtUnixNs: FINISHED_NS,
    version: "dev+0123456789ab",
    scenario: makeScenario(viewers.length),
    client: { os: "linux", arch: "x64", cpus: 16, runtime: "node v22.23.3" },
    resources: {
      cpuSeconds: 2,
      cpuUtilisationPercent: 12.5,
      peakHeapBytes: 48 * 1024 * 1024,
      peakRssBytes: 160.25 * 1024 * 1024,
      workers: 2,
      mainThread: {
        cpuSeconds: 0.75,
        eventLoopUtilisation: 0.25,
        eventLoopDelayMs: { p50: 1.25, p99: 4.5, max: 12 },
      },
      udpReceiveErrors: { rcvbufErrors: 0, inErrors: 0 },
    },
    workers: [
      {
        shard: 0,
        thread: "worker",
        viewers: 2,
        packets: 5000,
        cpuSeconds: 0.5,
        usPerPacket: 100,
        eventLoopUtilisation: 0.125,
        eventLoopDelayMs: { p50: 0.5, p99: 3.25, max: 9 },
      },
      {
        shard: 1,
        thread: "worker",
        viewers: 1,
        packets: 2500,
        cpuSeconds: 0.25,
        usPerPacket: 100,
        eventLoopUtilisation: 0.0625,
        eventLoopDelayMs: { p50: 0.25, p99: 2.5, max: 7 },
      },
    ],
    ceiling: { nearCeiling: false, thresholds: { eventLoopUtilisation: 0.9, eventLoopDelayP99Ms: 20 } },
    topology: "single-process",
    clock: { method: "monotonic", offsetMs: 0, uncertaintyMs: 0, stepDetected: false },
    publisher: {
      codec: "vp8",
      stamped: false,
      connectNs: 22_848_000,
      framesSent: 1261,
      packetsSent: 2890,
      bytesSent: 2_928_320,
      loops: 10,
      scheduleSlips: 0,
      sendingNs: 42_019_870_084,
    },
    viewers,
    requestedViewers: viewers.length,
    hasSendLog: true,
    loopFrames: 120,
    clipHash: "sha256:0123456789abcdef",
    duplicateFrames: 0,
    loopMinNs: 3_971_049_875,
    timeline: [
      { t: 1, active: 1, packets: 63 },
      { t: 2, active: 2, packets: 134 },
    ],
    publisherFailedToConnect: false,
    ...over,
  };
}

/** n joined viewers, each with two keyframe and three delta-frame samples. */
export function healthyViewers(n: number): ViewerInput[] {
  return Array.from({ length: n }, (_, i) => makeViewer(i, { keyMs: [10, 12], deltaMs: [2, 3, 4 + i] }));
}

export function count(haystack: string, needle: string): number {
  return haystack.split(needle).length - 1;
}

export function fingerprint(r: Report) {
  const b = r.aggregate.oneWayDelay[0];
  if (b === undefined) throw new Error("no pooled fingerprint block");
  return b;
}

/** v viewers of which f failed to join (HTTP 503). */
export function withFailures(v: number, f: number): Report {
  const viewers = Array.from({ length: v }, (_, i) =>
    i < f
      ? makeViewer(i, { joined: false, codec: null, errorKind: "http_503", error: "POST to x: HTTP 503" })
      : makeViewer(i, { keyMs: [10], deltaMs: [2] }),
  );
  return buildReport(makeInput(viewers));
}
