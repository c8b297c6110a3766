// Report model (docs/definitions.md#report): verdict, aggregate, one-way delay and packet transit blocks.

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { buildReport } from "../../src/core/report/build.ts";
import { reportToJson } from "../../src/core/report/json.ts";
import { reportToMarkdown } from "../../src/core/report/markdown.ts";
import { NO_SEND_LOG_REASON } from "../../src/core/report/reasons.ts";
import { decideVerdict } from "../../src/core/report/verdict.ts";
import { DelayHistogram } from "../../src/core/stats/summaries.ts";
import {
  count,
  fingerprint,
  healthyViewers,
  makeInput,
  makeScenario,
  makeViewer,
  withFailures,
} from "./report-fixtures.ts";

describe("verdict (docs/definitions.md#verdict)", () => {
  const cases: Array<[number, number, boolean]> = [
    [10, 1, true],
    [10, 2, false],
    [20, 2, true],
    [20, 3, false],
    [100, 11, false],
    [1, 1, false],
  ];
  for (const [v, f, valid] of cases) {
    test(`${f} of ${v} failed → ${valid ? "valid" : "no verdict"}`, () => {
      const r = withFailures(v, f);
      assert.equal(r.aggregate.valid, valid);
      assert.equal(r.aggregate.failed, f);
      if (valid) assert.equal(r.aggregate.verdict, `valid: ${v - f} of ${v} viewers joined`);
    });
  }

  test("texts", () => {
    assert.equal(
      withFailures(10, 2).aggregate.verdict,
      "no verdict: 2 of 10 viewers (20%) failed to join, above the 10% the rule allows",
    );
    assert.equal(withFailures(1, 1).aggregate.verdict, "no verdict: none of the 1 viewers joined");
    assert.equal(
      decideVerdict({ viewers: 8, joined: 6, failed: 2, interrupted: false }).verdict,
      "no verdict: 2 of 8 viewers (25%) failed to join, above the 10% the rule allows",
    );
    assert.equal(
      decideVerdict({ viewers: 16, joined: 14, failed: 2, interrupted: false }).verdict,
      "no verdict: 2 of 16 viewers (12.5%) failed to join, above the 10% the rule allows",
    );
    assert.equal(
      decideVerdict({ viewers: 0, joined: 0, failed: 0, interrupted: false }).verdict,
      "no verdict: no viewers",
    );
  });

  test("never-started viewers count as failed", () => {
    const r = buildReport({ ...makeInput(healthyViewers(9)), requestedViewers: 10 });
    assert.equal(r.aggregate.viewers, 10);
    assert.equal(r.aggregate.joined, 9);
    assert.equal(r.aggregate.failed, 1);
    assert.equal(r.aggregate.failedPercent, 10);
    assert.equal(r.aggregate.valid, true);
  });

  test("interrupted → invalid, and the flag is written", () => {
    const r = buildReport(makeInput(healthyViewers(3), { interrupted: true }));
    assert.equal(r.aggregate.valid, false);
    assert.equal(r.aggregate.verdict, "no verdict: the run was interrupted before its scheduled end");
    assert.match(reportToJson(r), /"command": "run",\n {2}"interrupted": true,\n/);
    assert.doesNotMatch(reportToJson(buildReport(makeInput(healthyViewers(3)))), /"interrupted"/);
  });

  test("a publisher that never streamed: no verdict, publisher_http_status counted", () => {
    const input = makeInput(healthyViewers(2));
    const r = buildReport({
      ...input,
      publisher: {
        ...input.publisher!,
        framesSent: 0,
        errorKind: "http_status",
        error: "POST to h: HTTP 500",
      },
    });
    assert.equal(r.aggregate.valid, false);
    assert.equal(r.aggregate.verdict, "no verdict: the publisher never streamed (http_status)");
    assert.deepEqual(r.errors, { publisher_http_status: 1 });
  });

  test("a publisher that dropped after streaming does not invalidate the run", () => {
    const input = makeInput(healthyViewers(2));
    const r = buildReport({
      ...input,
      publisher: { ...input.publisher!, errorKind: "disconnected", disconnectedLate: true },
    });
    assert.equal(r.aggregate.valid, true);
    assert.deepEqual(r.errors, { publisher_disconnected: 1 });
    assert.match(reportToJson(r), /"disconnectedLate": true/);
  });

  test("a publisher that failed to connect: viewers null, asked viewers failed", () => {
    const input = makeInput([]);
    const r = buildReport({
      ...input,
      requestedViewers: 4,
      publisherFailedToConnect: true,
      publisher: { ...input.publisher!, connectNs: 0, framesSent: 0, errorKind: "connect_timeout" },
    });
    assert.equal(r.viewers, null);
    assert.equal(r.aggregate.failed, 4);
    assert.match(reportToJson(r), /\n {2}"viewers": null,\n/);
    assert.match(reportToMarkdown(r), /## Viewers\n\n\| id \|.*\n\|---:.*\n\n## Method/);
  });
});

describe("aggregate (docs/definitions.md#aggregate)", () => {
  test("summaries and sums over joined viewers only", () => {
    const viewers = [
      makeViewer(0, { keyMs: [10], signallingMs: 4, firstRtpMs: 30, firstKeyframeMs: 900, nacksSent: 2 }),
      makeViewer(1, { keyMs: [10], signallingMs: 8, firstRtpMs: 34, firstKeyframeMs: 1100, nacksSent: 3 }),
      makeViewer(2, {
        joined: false,
        signallingMs: 999,
        firstRtpMs: 999,
        rtp: { received: 50, lost: 7, stalls: 4, lossPercent: 12, keyframes: 0 },
        nacksSent: 100,
        errorKind: "no_keyframe",
      }),
    ];
    viewers[1]!.record.rtp = {
      ...viewers[1]!.record.rtp,
      lost: 10,
      received: 990,
      lossPercent: 1,
      stalls: 2,
    };
    viewers[0]!.record.rtp = { ...viewers[0]!.record.rtp, keyframes: 1 };
    const r = buildReport(makeInput(viewers));
    const a = r.aggregate;
    assert.deepEqual(a.signallingMs, { n: 2, min: 4, mean: 6, p50: 4, p95: 8, p99: 8, max: 8 });
    assert.equal(a.joinFirstRtpMs.max, 34);
    assert.equal(a.joinFirstKeyframeMs.mean, 1000);
    assert.equal(a.lossPercent.n, 2);
    assert.equal(a.lossPercent.max, 1);
    assert.equal(a.keyframeIntervalMeanS.n, 1, "only viewers with more than one keyframe");
    assert.equal(a.stalls, 2);
    assert.equal(a.packetsReceived, 1990);
    assert.equal(a.packetsLost, 10);
    assert.equal(a.lossPercentTotal, (10 / 2000) * 100);
    assert.equal(a.nacksSent, 5);
    assert.equal(a.failed, 1);
  });

  test("error counts, sorted, dropped included", () => {
    const r = buildReport(
      makeInput([
        makeViewer(0, { keyMs: [1], droppedAfterJoin: true, errorKind: "dropped" }),
        makeViewer(1, { joined: false, codec: null, errorKind: "http_503" }),
        makeViewer(2, { joined: false, codec: null, errorKind: "http_503" }),
        makeViewer(3, { joined: false, codec: null, errorKind: "ice_timeout" }),
        makeViewer(4, { keyMs: [1] }),
      ]),
    );
    assert.deepEqual(Object.entries(r.errors), [
      ["dropped", 1],
      ["http_503", 2],
      ["ice_timeout", 1],
    ]);
    assert.equal(r.aggregate.droppedAfterJoin, 1);
    assert.equal(r.aggregate.joined, 2);
  });
});

describe("one-way delay blocks (docs/definitions.md#one-way-delay)", () => {
  test("pooling over 2 of 3 viewers", () => {
    const r = buildReport(
      makeInput([
        makeViewer(0, { keyMs: [10], deltaMs: [11] }),
        makeViewer(1, { deltaMs: [12], counters: { frameEnd: "timestamp" } }),
        makeViewer(2, { counters: { frameEnd: "marker", completeFrames: 5, unmatchedFrames: 5 } }),
      ]),
    );
    const p = fingerprint(r);
    assert.equal(p.available, true);
    assert.equal(p.samples, 3);
    assert.equal(p.viewers, 2);
    assert.deepEqual(p.viewersByFrameEnd, { marker: 1, timestamp: 1 });
    assert.equal(p.completeFrames, 8);
    assert.equal(p.unmatchedFrames, 5);
    assert.equal(
      p.reason,
      "pooled over 2 of 3 joined viewers; the other 1 had none (no valid sample: 5 complete frames (5 unmatched, 0 invalid, 0 excluded), 0 incomplete)",
    );
    assert.equal(r.viewers![2]!.oneWayDelay[0]!.available, false);
    assert.equal(r.viewers![2]!.oneWayDelay[0]!.frameEnd, "marker");
    assert.equal(r.viewers![2]!.oneWayDelay[0]!.ms, undefined);
  });

  test("most common reason: highest count, ties to the byte-wise smallest", () => {
    const r = buildReport(
      makeInput([
        makeViewer(0, { codec: "av1", blocker: { kind: "codec", codec: "av1" } }),
        makeViewer(1, { codec: null }),
        makeViewer(2, { codec: "av1", blocker: { kind: "codec", codec: "av1" } }),
        makeViewer(3, { codec: null }),
      ]),
    );
    // 2 × `codec "av1" has no fingerprint`, 2 × `no video track…`: "c" < "n"
    assert.equal(fingerprint(r).reason, 'codec "av1" has no fingerprint');
    assert.equal(fingerprint(r).available, false);
    assert.equal(r.viewers![1]!.oneWayDelay[0]!.reason, "no video track reached this viewer");
    assert.equal(r.viewers![0]!.codec, undefined, "codec carries vp8/h264 only");
  });

  test("keyframe/delta split adds up and does not change the pooled figure", () => {
    const viewers = healthyViewers(3);
    const r = buildReport(makeInput(viewers));
    const p = fingerprint(r);
    assert.equal(p.keyframes.samples + p.deltaFrames.samples, p.samples);
    const all = new DelayHistogram();
    for (const v of viewers) all.add(v.record.delayHist);
    assert.deepEqual(p.ms, all.summaryMs());
    for (const v of r.viewers!) {
      const b = v.oneWayDelay[0]!;
      assert.equal(b.keyframes.samples + b.deltaFrames.samples, b.samples);
    }
    const json = reportToJson(r);
    // fingerprint and stamp blocks: 3 viewers + pooled, each
    assert.equal(count(json, '"keyframes": {'), 8);
    assert.equal(count(json, '"deltaFrames": {'), 8);
  });

  test("an empty half has no ms and prints the em-dash row", () => {
    const r = buildReport(makeInput([makeViewer(0, { deltaMs: [5, 6] }), makeViewer(1, { deltaMs: [7] })]));
    const p = fingerprint(r);
    assert.equal(p.keyframes.samples, 0);
    assert.equal(p.keyframes.ms, undefined);
    assert.ok(p.deltaFrames.ms);
    assert.ok(reportToMarkdown(r).includes("| one-way delay, keyframes | 0 | — | — | — | — | — |\n"));
  });

  test("zero samples: no ms anywhere", () => {
    const r = buildReport(
      makeInput([
        makeViewer(0, { counters: { completeFrames: 3, excludedFrames: 3 } }),
        makeViewer(1, { counters: { completeFrames: 2, invalid: 2 } }),
      ]),
    );
    assert.equal(fingerprint(r).available, false);
    assert.equal(fingerprint(r).samples, 0);
    assert.doesNotMatch(reportToJson(r), /"ms":/);
    assert.equal(
      fingerprint(r).reason,
      "no valid sample: 2 complete frames (0 unmatched, 2 invalid, 0 excluded), 0 incomplete",
    );
  });

  test("no send log (view) and no track", () => {
    const input = makeInput(healthyViewers(2), {
      command: "view",
      topology: "split",
      hasSendLog: false,
      clock: { method: "none", stepDetected: false },
      scenario: makeScenario(2, { whip: "" }),
    });
    const { publisher: _p, ...view } = input;
    const r = buildReport(view);
    const p = fingerprint(r);
    assert.equal(p.available, false);
    assert.equal(p.reason, NO_SEND_LOG_REASON);
    assert.equal(p.loopFrames, 0);
    assert.equal(p.loopMinMs, undefined);
    assert.equal(r.viewers![0]!.oneWayDelay[0]!.reason, NO_SEND_LOG_REASON);
    assert.equal(r.server.whipHost, undefined);
    assert.equal(r.scenario.whip, undefined);
    assert.equal(r.publisher, undefined);

    const noTrack = buildReport(makeInput([makeViewer(0, { joined: false, codec: null })]));
    assert.equal(noTrack.viewers![0]!.oneWayDelay[0]!.reason, "no video track reached this viewer");
    assert.equal(
      noTrack.viewers![0]!.packetTransit.reason,
      "not negotiated: the WHEP answer did not accept abs-capture-time",
    );
    assert.equal(fingerprint(noTrack).reason, "no viewer joined");
  });

  test("WB-41 window, late frames and NACKs", () => {
    const r = buildReport(
      makeInput([
        makeViewer(0, {
          keyMs: [10, 11],
          deltaMs: [3, 4],
          nacksSent: 4,
          counters: { completeFrames: 8, invalid: 1, excludedFrames: 3, lateCompletedFrames: 2 },
        }),
        makeViewer(1, {
          nacksSent: 3,
          counters: { completeFrames: 6, excludedFrames: 6, lateCompletedFrames: 1 },
        }),
        makeViewer(2, {
          joined: false,
          nacksSent: 5,
          counters: { completeFrames: 2, excludedFrames: 2, lateCompletedFrames: 2 },
          errorKind: "run_ended",
        }),
      ]),
    );
    const p = fingerprint(r);
    assert.equal(p.completeFrames, 14);
    assert.equal(p.excludedFrames, 9);
    assert.equal(p.lateCompletedFrames, 3);
    assert.equal(p.samples, 4);
    assert.equal(p.invalid, 1);
    assert.equal(r.aggregate.nacksSent, 7);
    assert.equal(
      r.viewers![1]!.oneWayDelay[0]!.reason,
      "no valid sample: 6 complete frames (0 unmatched, 0 invalid, 6 excluded), 0 incomplete",
    );
    assert.equal(r.aggregate.valid, false, "1 of 3 failed is above 10 %");
    const valid = buildReport(makeInput(makeInputViewersValid()));
    const md = reportToMarkdown(valid);
    assert.ok(md.includes("exclude first 5s"));
    assert.ok(md.includes("9 excluded as inside each viewer's first 5s"));
    assert.ok(md.includes("3 frames completed late, with 7 NACKs sent"));
    assert.ok(
      md.includes("7 NACKs sent, 0 transport feedback messages sent, 0 RTX packets received, 0 stalls"),
    );
    assert.ok(md.includes("| loss | NACKs |"));
  });
});

function makeInputViewersValid() {
  return [
    makeViewer(0, {
      keyMs: [10, 11],
      deltaMs: [3, 4],
      nacksSent: 4,
      counters: { completeFrames: 8, invalid: 1, excludedFrames: 3, lateCompletedFrames: 2 },
    }),
    makeViewer(1, {
      nacksSent: 3,
      counters: { completeFrames: 6, excludedFrames: 6, lateCompletedFrames: 1 },
    }),
  ];
}

describe("packet transit (docs/definitions.md#packet-transit)", () => {
  test("unavailable is never a number; 4 blocks for 3 viewers", () => {
    const r = buildReport(makeInput(healthyViewers(3)));
    const t = r.aggregate.packetTransit;
    assert.deepEqual(t, {
      available: false,
      reason: "not negotiated: the WHEP answer did not accept abs-capture-time",
      viewers: 0,
    });
    const json = reportToJson(r);
    assert.equal(count(json, '"packetTransit": {'), 4);
    assert.doesNotMatch(json, /"packetTransit": \{[^}]*"ms"/);
    const md = reportToMarkdown(r);
    assert.doesNotMatch(md, /\| packet transit \(stamped packets\)/);
    assert.ok(md.includes("**Packet transit: unavailable** — not negotiated"));
  });

  test("reasons in order, pooling, invalid share", () => {
    const negotiated = (stamped: number, invalid: number, valuesMs: number[]) => ({
      negotiated: true,
      stamped,
      invalid,
      valuesMs,
    });
    const r = buildReport(
      makeInput([
        makeViewer(0, { transit: negotiated(3, 0, [1, 2, 3]) }),
        makeViewer(1, { transit: negotiated(0, 0, []) }),
        makeViewer(2, { transit: negotiated(100, 2, [1]) }),
        makeViewer(3, { transit: negotiated(100, 1, [2]) }),
        makeViewer(4, { transit: negotiated(5, 0, []) }),
      ]),
    );
    const v = r.viewers!;
    assert.equal(v[0]!.packetTransit.available, true);
    assert.equal(v[0]!.packetTransit.ms!.n, 3);
    assert.match(v[1]!.packetTransit.reason!, /^no stamps arrived: /);
    assert.equal(
      v[2]!.packetTransit.reason,
      "2 of 100 stamps gave a negative or implausible delay: the clocks are not synchronised, or the server rewrites the extension",
    );
    assert.equal(v[3]!.packetTransit.available, true, "1 % invalid is allowed");
    assert.equal(v[4]!.packetTransit.reason, "no valid samples");
    const t = r.aggregate.packetTransit;
    assert.equal(t.available, true);
    assert.equal(t.viewers, 2);
    assert.equal(t.ms!.n, 4);
    assert.match(t.reason!, /^pooled over 2 of 5 joined viewers; the other 3 had none \(/);
    assert.ok(reportToMarkdown(r).includes("| packet transit (stamped packets) | 4 |"));
    assert.ok(reportToMarkdown(r).includes("\nPacket transit pooled over 2 of 5 joined viewers"));
  });
});
