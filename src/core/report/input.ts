// What the report builder is given: everything in run units (nanoseconds, decoded histograms).

import type { PublisherErrorKind } from "../errors.ts";
import type { ViewerHistogramKey } from "../figures/histograms.ts";
import type { ReferenceResult } from "../reference/plan.ts";
import type { Scenario } from "../scenario/types.ts";
import type { DelayHistogram } from "../stats/summaries.ts";
import type { EncodedHistogram, PublisherAudio, ViewerRecord } from "../types.ts";
import type { DecodedAudio } from "./audio.ts";
import type { SendStampSource } from "./client-types.ts";
import type { ClockBlock, ReportClient, TimelineEntry, Topology } from "./types.ts";

/** A ViewerRecord with every histogram it carries decoded (decode.ts; the list: figures/histograms.ts). */
export type DecodedViewer = Omit<ViewerRecord, ViewerHistogramKey | "audio" | "layerDelayHists"> &
  Record<ViewerHistogramKey, DelayHistogram> & {
    audio?: DecodedAudio;
    /** with simulcast: each layer's delay samples, lowest first (docs/definitions.md#layer-delay) */
    layerDelayHists?: DelayHistogram[];
  };

export interface ViewerInput {
  record: DecodedViewer;
  /**
   * start after t0 as it happened: when the viewer sent its WHEP POST (scheduled ramp slot +
   * offset, plus its ICE gathering); its scheduled start when it sent none; 0 when it never started
   */
  startOffsetNs: number;
  /** the seeded part of the start; only when the scenario has a seed */
  rampOffsetNs?: number;
  /** with churn (docs/definitions.md#churn-figures): when it stopped after t0, as it happened */
  stopOffsetNs?: number;
  /** with churn: it started in another viewer's place during the run (a late joiner) */
  lateJoiner?: boolean;
  /** with churn: it ran and its lifetime ended before the viewers' deadline (it left) */
  left?: boolean;
}

/** docs/definitions.md#publisher-figures publisher result, durations in ns. */
/**
 * The publisher's send instants by source (docs/definitions.md#send-instant): frames logged with
 * the kernel's transmit stamp, and with the hand-over instant (with why, a few distinct reasons).
 */
export interface SendStamps {
  kernel: number;
  handover: number;
  reasons?: string[];
}

/** client.sendStampSource of send stamps: "mixed" when frames had both. */
export function sendStampSource(s: SendStamps): SendStampSource {
  if (s.kernel > 0 && s.handover > 0) return "mixed";
  return s.kernel > 0 ? "kernel" : "handover";
}

export interface PublisherInput {
  codec: string;
  stamped: boolean;
  /** POST → connected; 0 when it never connected */
  connectNs: number;
  framesSent: number;
  packetsSent: number;
  bytesSent: number;
  loops: number;
  scheduleSlips: number;
  sendingNs: number;
  /**
   * keyframe requests received (docs/definitions.md#keyframes-on-request); absent: not counted (an
   * older input)
   */
  pliReceived?: number;
  firReceived?: number;
  /** keyframes sent before their turn in the clip because of a request */
  keyframesOnRequest?: number;
  error?: string;
  errorKind?: PublisherErrorKind;
  disconnectedLate?: boolean;
  /**
   * per kernel-stamped frame with abs-capture-time: the kernel's transmit stamp of its first packet −
   * the capture instant written in it, ns (docs/definitions.md#send-instant)
   */
  captureLeadHist?: EncodedHistogram;
  /** the send instants by source (docs/definitions.md#send-instant); absent: an older input */
  sendStamps?: SendStamps;
  /** per frame, first packet at the socket − the frame's start of sending, ns (absent where not measured) */
  sendLagHist?: EncodedHistogram;
  /** the audio track's sending (docs/definitions.md#audio-track); absent: no audio track */
  audio?: PublisherAudio;
}

export interface ClientInput {
  os: string;
  arch: string;
  cpus: number;
  /** runtime string, e.g. "node v22.23.3" (serialised under the report's `go` key) */
  runtime: string;
}

/**
 * The `client` figures a run hands over as the report carries them (docs/definitions.md#client;
 * ceiling: when near, every one-way delay block is not comparable): ReportClient's keys but the
 * machine's (ClientInput) and the send stamps, which come counted (SendStamps).
 */
export type ClientFigures = Omit<
  ReportClient,
  "os" | "arch" | "cpus" | "go" | "sendStampSource" | "sendStamps"
>;

export interface ReportInput extends ClientFigures {
  command: "run" | "view";
  interrupted: boolean;
  startedAtUnixNs: bigint;
  finishedAtUnixNs: bigint;
  /** docs/definitions.md#version-string version string */
  version: string;
  /** the normalised scenario (not yet redacted: the builder redacts it to hosts) */
  scenario: Scenario;
  client: ClientInput;
  /**
   * client.sendStampSource and client.sendStamps: the publisher's, in this process or over the
   * send-log channel (docs/definitions.md#send-instant); absent: no send log
   */
  sendStamps?: SendStamps;
  topology: Topology;
  clock: ClockBlock;
  /** present only when this process published */
  publisher?: PublisherInput;
  viewers: ViewerInput[];
  /** scenario.viewers (what was asked for) */
  requestedViewers: number;
  /** this process published, so a send log exists */
  hasSendLog: boolean;
  /** clip length in frames (0 without a send log) */
  loopFrames: number;
  /** the clip's identity (clipHashOf); absent without a send log */
  clipHash?: string;
  /** clip frames whose bytes repeat in the clip (0 without a send log) */
  duplicateFrames: number;
  /** shortest time to send loopFrames frames, ns; −1 when no whole loop was sent */
  loopMinNs: number;
  timeline: TimelineEntry[];
  /** the publisher failed to connect: the report has `viewers: null` */
  publisherFailedToConnect: boolean;
  /**
   * loopback candidates were added because a server host is a loopback address
   * (src/main/process/ice-choice.ts)
   */
  autoLoopback?: boolean;
  /**
   * each reference viewer's outcome (docs/definitions.md#reference-viewers); absent when the
   * scenario asked for none
   */
  reference?: ReferenceResult[];
}
