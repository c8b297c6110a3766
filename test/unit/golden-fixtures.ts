// The report inputs behind the golden Markdown files (test/fixtures/report-golden.md and
// report-golden-churn.md), shared by the Markdown and HTML report tests.
import type { ReportInput } from "../../src/core/report/input.ts";
import { makeInput, makeScenario, makeViewer } from "./report-fixtures.ts";

/** A valid single-process run with a seed, a dropped viewer, partial packet transit and a late publisher error. */
export function goldenInput(): ReportInput {
  const transit = (valuesMs: number[]) => ({
    negotiated: true,
    stamped: valuesMs.length,
    invalid: 0,
    valuesMs,
  });
  const viewers = [
    makeViewer(0, {
      keyMs: [12.25, 14],
      deltaMs: [2.5, 3.75, 4.05, 9.95],
      transit: transit([1.25, 1.35, 2.45]),
      nacksSent: 2,
      transportFeedbackSent: 97,
      rtxReceived: 3,
      counters: { completeFrames: 9, excludedFrames: 2, invalid: 1, lateCompletedFrames: 1 },
      startOffsetNs: 123_456_789,
      rampOffsetNs: 123_456_789,
      whepFlow: "answer",
      render: {
        finder: "frame-id",
        framesShown: 880,
        framesNotDecodable: 14,
        framesLate: 1,
        freezes: 2,
        frozenMs: 1250.5,
        longestFreezeMs: 733.25,
        measuredMs: 29_500,
        endGapMs: 33.5,
        recoveries: 2,
        plisSent: 2,
        plisAnswered: 1,
      },
      recoveryMs: [512.5, 766.75],
      pliKeyframeMs: [120.25],
    }),
    makeViewer(1, {
      deltaMs: [5.5, 6.5],
      transit: transit([2.05]),
      counters: { frameEnd: "timestamp", completeFrames: 3, unmatchedFrames: 1 },
      signallingMs: 7.5,
      firstRtpMs: 31.5,
      firstKeyframeMs: 1002.5,
      rtp: {
        received: 990,
        expected: 1000,
        lost: 10,
        lossPercent: 1,
        jitterMs: 0.625,
        stalls: 1,
        keyframes: 1,
      },
      startOffsetNs: 2_600_000_000,
      rampOffsetNs: 100_000_000,
      whepFlow: "counter-offer",
      render: {
        finder: "seq-num",
        framesShown: 860,
        measuredMs: 27_000,
        endGapMs: 1500,
        plisSent: 1,
      },
    }),
    makeViewer(2, {
      counters: { completeFrames: 4, excludedFrames: 4 },
      droppedAfterJoin: true,
      errorKind: "dropped",
      error: "the connection failed after the viewer had joined",
      startOffsetNs: 5_987_654_321,
      rampOffsetNs: 987_654_321,
    }),
  ];
  const input = makeInput(viewers, {
    scenario: makeScenario(3, {
      name: "golden | run",
      rampOffsetSeed: 7n,
      rampOffsetMaxSeconds: 1,
      metrics: "",
    }),
  });
  return {
    ...input,
    publisher: {
      ...input.publisher!,
      errorKind: "disconnected",
      error: "the server connection dropped while publishing",
      disconnectedLate: true,
    },
  };
}

/** The golden run with churn: two places, viewer 2 a late joiner in viewer 0's place, which left. */
export function goldenChurnInput(): ReportInput {
  const input = goldenInput();
  const [v0, v1, v2] = input.viewers;
  if (v0 === undefined || v1 === undefined || v2 === undefined) throw new Error("three viewers");
  const late = {
    ...v2,
    record: { ...v2.record, signallingNs: 9.5e6, iceConnectedNs: 21.25e6, firstKeyframeNs: 412.5e6 },
    stopOffsetNs: 9_000_000_000,
    lateJoiner: true,
  };
  return {
    ...input,
    scenario: {
      ...input.scenario,
      viewers: 2,
      churn: { meanLifetimeSeconds: 6, minLifetimeSeconds: 5, seed: 4 },
    },
    requestedViewers: 2,
    viewers: [
      { ...v0, stopOffsetNs: 5_987_654_321, left: true },
      { ...v1, stopOffsetNs: 9_000_000_000 },
      late,
    ],
  };
}
