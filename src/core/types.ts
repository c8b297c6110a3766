// Cross-module types of the core: what a viewer produces and what the report is built from.
// Every duration crossing a module boundary is in nanoseconds of the monotonic clock
// (`process.hrtime.bigint()` read as a Number), unless its name says otherwise.

import type { ViewerDelayCounts } from "./delay/counters.ts";
import type { LayerChoiceRecord } from "./delay/layer-switches.ts";
import type { ViewerErrorKind } from "./errors.ts";
import type { ViewerHistogramKey } from "./figures/histograms.ts";
import type { ViewerCountKey } from "./figures/pooled-keys.ts";
import type { LinkRecord } from "./link/types.ts";
import type { RenderCounts } from "./render/counts.ts";

/**
 * Seven-number summary (docs/definitions.md#summaries-and-percentiles): all keys always present,
 * all zero when n = 0.
 */
export interface Summary {
  n: number;
  min: number;
  mean: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

export type Codec = "vp8" | "h264";

/** One block of per-viewer RTP statistics, already in report units (docs/definitions.md#rtp-statistics). */
export interface RtpReport {
  received: number;
  expected: number;
  lost: number;
  duplicates: number;
  tooLate: number;
  lossPercent: number;
  /** null before two packets arrived: interarrival jitter compares each packet with the one before */
  jitterMs: number | null;
  receivingSeconds: number;
  stalls: number;
  stalledMs: number;
  longestGapMs: number;
  keyframes: number;
  keyframeIntervalMinS: number;
  keyframeIntervalMeanS: number;
  keyframeIntervalMaxS: number;
}

/** How a frame's end is recognised (docs/definitions.md#reassembly); "" until the first frame completed. */
export type FrameEnd = "" | "marker" | "timestamp";

/**
 * Encoded histogram: what crosses a thread boundary. `hdr` is hdr-histogram-js's compressed
 * base64 encoding of the bucket counts (µs); n, sum, min and max are exact (ns).
 */
export interface EncodedHistogram {
  hdr: string;
  n: number;
  sumNs: number;
  minNs: number;
  maxNs: number;
}

/**
 * Raw one-way delay (fingerprint source) counters of one viewer, before the report decides
 * availability: the counters of core/delay/counters.ts, and the clip frames it never samples.
 */
export interface OneWayDelayCounters extends ViewerDelayCounts {
  frameEnd: FrameEnd;
  duplicateFrames: number;
}

/**
 * Raw counters of the `stamp` one-way delay source of one viewer (core/delay/counters.ts): its
 * `unmatchedFrames` are complete frames whose first packet carried no stamp, its `invalid` ones a
 * delay negative or implausible (> 60 s) once read on the publisher's clock.
 */
export interface StampDelayCounters extends ViewerDelayCounts {
  frameEnd: FrameEnd;
}

export interface PacketTransitCounters {
  negotiated: boolean;
  stamped: number;
  invalid: number;
}

/** Why a viewer could not produce a fingerprint figure, decided where the viewer runs. */
export type OneWayDelayBlocker =
  | { kind: "none" } // the pipeline ran: availability follows from the samples
  | { kind: "no_send_log" }
  | { kind: "no_track" }
  | { kind: "codec"; codec: string };

/** What the publisher's audio track sent (`publisher.audio`, docs/definitions.md#audio-track). */
export interface PublisherAudio {
  packetsSent: number;
  bytesSent: number;
  loops: number;
  scheduleSlips: number;
}

/** One viewer's audio track at the end (docs/definitions.md#audio-track), encoded for the thread crossing. */
export interface AudioRecord {
  /** RTP statistics of the audio track, jitter at 48 kHz */
  rtp: RtpReport;
  /** POST → first audio packet; absent when none arrived */
  firstAudioNs?: number;
  /** whether packets were matched against the audio send log (false: no send log here) */
  matched: boolean;
  samples: number;
  invalid: number;
  unmatchedPackets: number;
  duplicatePackets: number;
  excludedPackets: number;
  delayHist: EncodedHistogram;
  /**
   * the A/V offset of each second with samples of both tracks, ns
   * (docs/definitions.md#audio-video-offset)
   */
  avOffsetNs: number[];
}

/**
 * What one viewer would have seen (docs/definitions.md#viewer-experience); counts, and ms on the
 * monotonic clock: the counts of core/render/counts.ts, its finder and end gap.
 */
export interface RenderCounters extends RenderCounts {
  /**
   * the reference finder in force: "frame-id" (VP8 with PictureID), "vp8" (VP8 with PictureID,
   * temporal index and TL0PICIDX), "seq-num" (H.264, VP8 without PictureID), "generic" (a dependency
   * descriptor); "" when no frame closed
   */
  finder: "" | "frame-id" | "seq-num" | "vp8" | "generic";
  /** last shown frame → the viewer's end, ms; -1 when nothing was shown */
  endGapMs: number;
}

/**
 * What one viewer yields at the end, in the encoded (thread-crossing) form. The main thread
 * decodes the histograms and hands the result to the report builder. Its histograms (each delay
 * source's samples: all, keyframes, delta frames; recovery; PLI → keyframe) are declared in
 * figures/histograms.ts, its counts that the aggregate sums by the registry (figures/pooled-keys.ts).
 */
export interface ViewerRecord
  extends Record<ViewerHistogramKey, EncodedHistogram>,
    Record<ViewerCountKey, number> {
  id: number;
  /** the viewer's cohort (docs/definitions.md#cohorts); absent: unimpaired */
  cohort?: string;
  /** what its emulated link did, per direction (with `cohort`) */
  link?: LinkRecord;
  joined: boolean;
  /** negotiated codec of the received track: "vp8", "h264", another name, or absent without a track */
  codec?: string;
  /** which WHEP flow the viewer took: 201 answer or 406 counter-offer */
  whepFlow?: "answer" | "counter-offer";
  /** monotonic instant (ns) the viewer sent its WHEP POST; absent when it never sent one */
  postMonoNs?: number;
  /** monotonic instant (ns) the viewer stopped: its WHEP DELETE went out (or it closed without a resource) */
  stopMonoNs?: number;
  signallingNs?: number;
  iceConnectedNs?: number;
  firstRtpNs?: number;
  firstKeyframeNs?: number;
  rtp: RtpReport;
  // the counts the aggregate sums (their declarations, figures/pooled-keys.ts): nacksSent, RTCP transport
  // feedback messages written (transportFeedbackSent), retransmissions received on RTX (rtxReceived)
  oneWayDelay: OneWayDelayCounters;
  oneWayDelayBlocker: OneWayDelayBlocker;
  packetTransit: PacketTransitCounters;
  /** the `stamp` source's counters */
  stampDelay: StampDelayCounters;
  render: RenderCounters;
  /** delay samples per simulcast layer, lowest first, in a run with simulcast (docs/definitions.md#layer) */
  layerSamples?: number[];
  /** time on each simulcast layer (ns), lowest first, in a run with simulcast (docs/definitions.md#layer) */
  layerNs?: number[];
  /** each simulcast layer's delay samples, lowest first (docs/definitions.md#layer-delay) */
  layerDelayHists?: EncodedHistogram[];
  /** each simulcast layer's complete frames, and those excluded (inside excludeFirstSeconds) */
  layerFrames?: number[];
  layerExcluded?: number[];
  /** with layerSwitch: what the viewer asked for and its switches (docs/definitions.md#layer-switches) */
  layerChoice?: LayerChoiceRecord;
  /** the audio track, when the scenario asked for it (`audio: true`) and the viewer received one */
  audio?: AudioRecord;
  droppedAfterJoin?: boolean;
  errorKind?: ViewerErrorKind;
  error?: string;
}
