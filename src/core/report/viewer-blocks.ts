// Per-viewer report blocks: the one-way delay block (docs/definitions.md#one-way-delay-per-viewer),
// packet transit (docs/definitions.md#packet-transit-per-viewer) and the viewer object
// (docs/definitions.md#viewer). Durations arrive in ns and leave in ms (ns / 1e6).

import { countsOf } from "../figures/pooled-keys.ts";
import type { RtpReport } from "../types.ts";
import { blockCounts, frameKindSplit, nsToMs } from "./block-fields.ts";
import { applyComparability } from "./comparability.ts";
import type { DecodedViewer, ViewerInput } from "./input.ts";
import {
  codecReason,
  jitterUnmeasuredReason,
  NO_SEND_LOG_REASON,
  NO_TRACK_REASON,
  noValidSampleReason,
  TRANSIT_NO_STAMPS_REASON,
  TRANSIT_NO_VALID_REASON,
  TRANSIT_NOT_NEGOTIATED_REASON,
  transitInvalidReason,
} from "./reasons.ts";
import type { ViewerRenderBlock } from "./render-types.ts";
import { viewerStampBlock } from "./stamp-blocks.ts";
import type {
  ClockBlock,
  ViewerDelayBlock,
  ViewerReport,
  ViewerRtpBlock,
  ViewerTransitBlock,
} from "./types.ts";

/** The per-viewer fingerprint block's reason when it cannot be available; undefined when it can. */
function blockedReason(v: DecodedViewer, hasSendLog: boolean): string | undefined {
  if (!hasSendLog) return NO_SEND_LOG_REASON;
  const blocker = v.oneWayDelayBlocker;
  switch (blocker.kind) {
    case "no_send_log":
      return NO_SEND_LOG_REASON;
    case "no_track":
      return NO_TRACK_REASON;
    case "codec":
      return codecReason(blocker.codec);
    case "none":
      return undefined;
  }
}

/** docs/definitions.md#one-way-delay-per-viewer one viewer's fingerprint block, comparability applied. */
export function viewerDelayBlock(
  v: DecodedViewer,
  hasSendLog: boolean,
  clock: ClockBlock,
  clientBound?: string,
): ViewerDelayBlock {
  const c = v.oneWayDelay;
  const samples = v.delayHist.count;
  let reason = blockedReason(v, hasSendLog);
  if (reason === undefined && samples === 0) {
    reason = noValidSampleReason(
      c.completeFrames,
      c.unmatchedFrames,
      c.invalid,
      c.excludedFrames,
      c.incompleteFrames,
    );
  }
  const available = reason === undefined;
  const block = {
    source: "fingerprint" as const,
    available,
    ...(reason !== undefined ? { reason } : {}),
    ...(c.frameEnd !== "" ? { frameEnd: c.frameEnd } : {}),
    ...blockCounts(c, samples),
    ...(available ? { ms: v.delayHist.summaryMs() } : {}),
    keyframes: frameKindSplit(v.delayKeyHist, available),
    deltaFrames: frameKindSplit(v.delayDeltaHist, available),
  };
  return applyComparability(block, clock, clientBound);
}

/**
 * docs/definitions.md#packet-transit-per-viewer reason, checked in the documented order; undefined
 * when available.
 */
function transitReason(v: DecodedViewer): string | undefined {
  const t = v.packetTransit;
  if (!t.negotiated || v.codec === undefined) return TRANSIT_NOT_NEGOTIATED_REASON;
  if (t.stamped === 0) return TRANSIT_NO_STAMPS_REASON;
  if (t.invalid > 0.01 * t.stamped) return transitInvalidReason(t.invalid, t.stamped);
  if (v.transitHist.count === 0) return TRANSIT_NO_VALID_REASON;
  return undefined;
}

/** docs/definitions.md#packet-transit-per-viewer one viewer's packet transit block. */
export function viewerTransitBlock(v: DecodedViewer): ViewerTransitBlock {
  const reason = transitReason(v);
  return {
    available: reason === undefined,
    ...(reason !== undefined ? { reason } : {}),
    negotiated: v.packetTransit.negotiated,
    stamped: v.packetTransit.stamped,
    invalid: v.packetTransit.invalid,
    ...(reason === undefined ? { ms: v.transitHist.summaryMs() } : {}),
  };
}

/**
 * docs/definitions.md#rtp-statistics in key order (the record may have been built in another order);
 * lossPercent null where nothing was expected (the record's 0 there measured nothing), jitterMs null
 * with its reason before two packets (an older agent's record says 0 there).
 */
export function rtpBlock(r: RtpReport): ViewerRtpBlock {
  const jitterMs = r.received > 1 ? r.jitterMs : null;
  return {
    received: r.received,
    expected: r.expected,
    lost: r.lost,
    duplicates: r.duplicates,
    tooLate: r.tooLate,
    lossPercent: r.expected > 0 ? r.lossPercent : null,
    jitterMs,
    ...(jitterMs === null ? { jitterMsReason: jitterUnmeasuredReason(r.received) } : {}),
    receivingSeconds: r.receivingSeconds,
    stalls: r.stalls,
    stalledMs: r.stalledMs,
    longestGapMs: r.longestGapMs,
    keyframes: r.keyframes,
    keyframeIntervalMinS: r.keyframeIntervalMinS,
    keyframeIntervalMeanS: r.keyframeIntervalMeanS,
    keyframeIntervalMaxS: r.keyframeIntervalMaxS,
  };
}

/** docs/definitions.md#viewer: the codec key carries vp8/h264 only ("" for other codecs, so omitted). */
function reportCodec(codec: string | undefined): string {
  return codec === "vp8" || codec === "h264" ? codec : "";
}

function msIfSet<K extends string>(key: K, ns: number | undefined): { [P in K]?: number } {
  return ns === undefined ? {} : ({ [key]: nsToMs(ns) } as { [P in K]?: number });
}

function textIfSet<K extends string, T extends string>(key: K, text: T | undefined): { [P in K]?: T } {
  return text === undefined || text === "" ? {} : ({ [key]: text } as { [P in K]?: T });
}

/** docs/definitions.md#viewer one viewer object. */
export function viewerReport(
  input: ViewerInput,
  hasSendLog: boolean,
  clock: ClockBlock,
  clientBound: string | undefined,
  cohort: string,
  render: ViewerRenderBlock,
): ViewerReport {
  const v = input.record;
  return {
    id: v.id,
    startOffsetMs: nsToMs(input.startOffsetNs),
    ...msIfSet("rampOffsetMs", input.rampOffsetNs),
    ...msIfSet("stopOffsetMs", input.stopOffsetNs),
    ...(input.lateJoiner === true ? { lateJoiner: true } : {}),
    ...(input.left === true ? { left: true } : {}),
    joined: v.joined,
    ...textIfSet("codec", reportCodec(v.codec)),
    ...(v.whepFlow !== undefined ? { whepFlow: v.whepFlow } : {}),
    ...textIfSet("cohort", cohort),
    ...msIfSet("signallingMs", v.signallingNs),
    ...msIfSet("iceConnectedMs", v.iceConnectedNs),
    ...msIfSet("firstRtpMs", v.firstRtpNs),
    ...msIfSet("firstKeyframeMs", v.firstKeyframeNs),
    rtp: rtpBlock(v.rtp),
    ...countsOf(v),
    oneWayDelay: [
      viewerDelayBlock(v, hasSendLog, clock, clientBound),
      viewerStampBlock(v, clock, clientBound),
    ],
    packetTransit: viewerTransitBlock(v),
    render,
    ...(v.link !== undefined ? { link: { down: { ...v.link.down }, up: { ...v.link.up } } } : {}),
    ...(v.droppedAfterJoin === true ? { droppedAfterJoin: true } : {}),
    ...textIfSet("errorKind", v.errorKind),
    ...textIfSet("error", v.error),
  };
}
