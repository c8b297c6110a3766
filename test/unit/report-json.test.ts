// Report JSON layout (docs/definitions.md#json-layout), method lines (docs/definitions.md#method-lines), console lines (docs/definitions.md#console-output) and the file stem (docs/definitions.md#report-files).

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { VIEWER_COUNT_KEYS } from "../../src/core/figures/pooled-keys.ts";
import { buildReport } from "../../src/core/report/build.ts";
import { reportStem, stdoutLines } from "../../src/core/report/headline.ts";
import { reportToJson } from "../../src/core/report/json.ts";
import { reportToMarkdown } from "../../src/core/report/markdown.ts";
import type { Report } from "../../src/core/report/types.ts";
import { DelayHistogram } from "../../src/core/stats/summaries.ts";
import {
  count,
  healthyViewers,
  hist,
  makeInput,
  makeScenario,
  makeViewer,
  STARTED_NS,
  withFailures,
} from "./report-fixtures.ts";

describe("JSON (docs/definitions.md#json-layout)", () => {
  test("top-level key order and layout", () => {
    const r = buildReport(makeInput(healthyViewers(2)));
    const json = reportToJson(r);
    const parsed = JSON.parse(json) as Record<string, unknown>;
    assert.deepEqual(Object.keys(parsed), [
      "schema",
      "whipbenchVersion",
      "command",
      "startedAt",
      "finishedAt",
      "server",
      "client",
      "topology",
      "clock",
      "scenario",
      "publisher",
      "aggregate",
      "errors",
      "timeline",
      "viewers",
      "method",
    ]);
    assert.ok(
      json.startsWith('{\n  "schema": "whipbench.report/v0",\n  "whipbenchVersion": "dev+0123456789ab",\n'),
    );
    assert.ok(json.endsWith("\n  ]\n}\n"));
    assert.ok(json.includes('"startedAt": "2026-10-05T07:43:46.020013Z"'));
    assert.ok(json.includes('  "errors": {},\n'));
    assert.deepEqual(Object.keys(parsed["scenario"] as object), [
      "name",
      "whip",
      "whep",
      "codec",
      "viewers",
      "rampSeconds",
      "holdSeconds",
      "warmupSeconds",
      "joinTimeoutSeconds",
      "stallMs",
      "excludeFirstSeconds",
      "bearerEnv",
    ]);
  });

  test("block key order", () => {
    const r = buildReport(
      makeInput([
        makeViewer(0, {
          keyMs: [1],
          deltaMs: [2],
          transit: { negotiated: true, stamped: 1, invalid: 0, valuesMs: [1] },
        }),
        makeViewer(1, { keyMs: [1] }),
      ]),
    );
    const parsed = JSON.parse(reportToJson(r)) as Report;
    assert.deepEqual(Object.keys(parsed.aggregate.oneWayDelay[0]!), [
      "source",
      "available",
      "viewers",
      "viewersByFrameEnd",
      "completeFrames",
      "incompleteFrames",
      "samples",
      "invalid",
      "unmatchedFrames",
      "excludedFrames",
      "lateCompletedFrames",
      "duplicateFrames",
      "loopFrames",
      "loopMinMs",
      "clipHash",
      "ms",
      "keyframes",
      "deltaFrames",
      "uncertaintyMs",
      "comparable",
    ]);
    const v = parsed.viewers![0]!;
    assert.deepEqual(Object.keys(v), [
      "id",
      "startOffsetMs",
      "joined",
      "codec",
      "signallingMs",
      "iceConnectedMs",
      "firstRtpMs",
      "firstKeyframeMs",
      "rtp",
      ...VIEWER_COUNT_KEYS, // nacksSent, transportFeedbackSent, rtxReceived: the registry's order
      "oneWayDelay",
      "packetTransit",
      "render",
    ]);
    assert.deepEqual(Object.keys(v.oneWayDelay[0]!), [
      "source",
      "available",
      "frameEnd",
      "completeFrames",
      "incompleteFrames",
      "samples",
      "invalid",
      "unmatchedFrames",
      "excludedFrames",
      "lateCompletedFrames",
      "ms",
      "keyframes",
      "deltaFrames",
      "uncertaintyMs",
      "comparable",
    ]);
    assert.deepEqual(Object.keys(v.packetTransit), ["available", "negotiated", "stamped", "invalid", "ms"]);
    assert.deepEqual(Object.keys(parsed.aggregate.packetTransit), ["available", "reason", "viewers", "ms"]);
    assert.deepEqual(Object.keys(parsed.aggregate).slice(0, 7), [
      "valid",
      "verdict",
      "viewers",
      "joined",
      "failed",
      "failedPercent",
      "droppedAfterJoin",
    ]);
    assert.deepEqual(Object.keys(parsed.aggregate.signallingMs), [
      "n",
      "min",
      "mean",
      "p50",
      "p95",
      "p99",
      "max",
    ]);
    assert.deepEqual(Object.keys(parsed.client.resources!), [
      "cpuSeconds",
      "cpuUtilisationPercent",
      "peakHeapBytes",
      "peakRssBytes",
      "workers",
      "mainThread",
      "udpReceiveErrors",
    ]);
    assert.deepEqual(Object.keys(parsed.client), [
      "os",
      "arch",
      "cpus",
      "go",
      "resources",
      "workers",
      "ceiling",
    ]);
    assert.deepEqual(Object.keys(parsed.client.workers![0]!), [
      "shard",
      "thread",
      "viewers",
      "packets",
      "cpuSeconds",
      "usPerPacket",
      "eventLoopUtilisation",
      "eventLoopDelayMs",
    ]);
    // the stamp block has the fingerprint block's keys without the clip's
    assert.deepEqual(
      parsed.aggregate.oneWayDelay.map((b) => b.source),
      ["fingerprint", "stamp"],
    );
    assert.deepEqual(Object.keys(parsed.aggregate.oneWayDelay[1]!), [
      "source",
      "available",
      "reason",
      "viewers",
      "viewersByFrameEnd",
      "completeFrames",
      "incompleteFrames",
      "samples",
      "invalid",
      "unmatchedFrames",
      "excludedFrames",
      "lateCompletedFrames",
      "keyframes",
      "deltaFrames",
      "comparable",
      "notComparableReason",
    ]);
  });

  test("one-way delay exactly once, no latency, block keys present", () => {
    const r = buildReport(makeInput(healthyViewers(3)));
    const json = reportToJson(r);
    assert.equal(count(json.toLowerCase(), "one-way delay"), 1);
    const line = r.method.find((m) => m.includes("one-way delay"));
    assert.ok(line);
    assert.equal(count(JSON.stringify(r.method), "one-way delay"), 1);
    assert.doesNotMatch(json, /latency/i);
    assert.doesNotMatch(reportToMarkdown(r), /latency/i);
    for (const key of ["excludedFrames", "lateCompletedFrames", "keyframes", "deltaFrames", "comparable"]) {
      assert.equal(count(json, `"${key}"`) >= 8, true, key);
    }
  });

  test("escaping of <>&, U+2028/2029 and unicode kept raw", () => {
    const r = buildReport(
      makeInput([
        makeViewer(0, { keyMs: [1] }),
        makeViewer(1, { keyMs: [1], error: "a<b>&c\u2028d\u2029 — ±" }),
      ]),
    );
    const json = reportToJson(r);
    assert.ok(json.includes('"error": "a\\u003cb\\u003e\\u0026c\\u2028d\\u2029 — ±"'));
    assert.equal((JSON.parse(json) as Report).viewers![1]!.error, "a<b>&c\u2028d\u2029 — ±");
  });

  test("-0 is written as 0; NaN is an internal error", () => {
    const r = buildReport(makeInput(healthyViewers(1)));
    r.aggregate.failedPercent = -0;
    assert.match(reportToJson(r), /"failedPercent": 0,/);
    r.aggregate.lossPercentTotal = Number.NaN;
    assert.throws(
      () => reportToJson(r),
      /internal error: report value \$\.aggregate\.lossPercentTotal is NaN/,
    );
    r.aggregate.lossPercentTotal = Number.POSITIVE_INFINITY;
    assert.throws(() => reportToJson(r), /internal error/);
  });

  test("redaction to hosts, secrets nowhere", () => {
    const r = buildReport(makeInput(healthyViewers(2)));
    assert.deepEqual(r.server, { whipHost: "pub.example.test:8443", whepHost: "[::1]:8889" });
    assert.equal(r.scenario.whip, "pub.example.test:8443");
    assert.equal(r.scenario.whep, "[::1]:8889");
    assert.equal(r.scenario.bearerEnv, "WB_TOKEN");
    for (const text of [reportToJson(r), reportToMarkdown(r)]) {
      for (const secret of ["QUERYSECRET", "token=", "/whep", "/whip", "user:pw", "frag"]) {
        assert.equal(text.includes(secret), false, secret);
      }
    }
  });

  test("ramp offsets recorded; absent without a seed", () => {
    const viewers = [
      makeViewer(0, { keyMs: [1], startOffsetNs: 741_564_878, rampOffsetNs: 741_564_878 }),
      makeViewer(1, { keyMs: [1], startOffsetNs: 5_159_910_392, rampOffsetNs: 159_910_392 }),
    ];
    const r = buildReport(
      makeInput(viewers, { scenario: makeScenario(2, { rampOffsetSeed: 7n, rampOffsetMaxSeconds: 1 }) }),
    );
    assert.equal(r.viewers![1]!.rampOffsetMs, 159.910392);
    assert.equal(Math.round(r.viewers![1]!.rampOffsetMs! * 1e6), 159_910_392);
    assert.equal(r.viewers![1]!.startOffsetMs, 5159.910392);
    const json = reportToJson(r);
    assert.ok(json.includes('"holdSeconds": 30,\n    "rampOffsetSeed": 7,\n    "rampOffsetMaxSeconds": 1,'));
    assert.ok(r.method.some((m) => m.startsWith("Ramp offset:")));
    assert.ok(reportToMarkdown(r).includes("ramp offset seed 7, up to 1s, hold 30s"));
    const plain = reportToJson(buildReport(makeInput(healthyViewers(2))));
    assert.doesNotMatch(plain, /rampOffset/);
  });

  test("viewers sorted by id, whepFlow after codec", () => {
    const r = buildReport(
      makeInput([makeViewer(1, { keyMs: [1] }), makeViewer(0, { keyMs: [1], whepFlow: "counter-offer" })]),
    );
    assert.deepEqual(
      r.viewers!.map((v) => v.id),
      [0, 1],
    );
    assert.match(
      reportToJson(r),
      /"codec": "vp8",\n {6}"whepFlow": "counter-offer",\n {6}"signallingMs": 5,/,
    );
  });
});

describe("method lines (docs/definitions.md#method-lines)", () => {
  test("order, required phrases and the appended lines", () => {
    const r = buildReport(
      makeInput(healthyViewers(1), {
        clock: { method: "none", reason: "clock peer did not answer", stepDetected: false },
      }),
    );
    const m = r.method;
    const delay = m.findIndex((l) => l.includes("one-way delay"));
    const transit = m.findIndex((l) => l.startsWith("Packet transit:"));
    assert.ok(delay >= 0 && delay < transit);
    for (const phrase of [
      "first-packet send to last-packet arrival",
      "incomplete 1 s after its first packet",
      "pending when it stops are not counted",
      "a viewer's first frame",
      "is not measured",
      "±0.5 % of value",
      "printed to 0.1 ms",
      "excludeFirstSeconds (default 5)",
      "xxhash64",
      "not a SHA-256 prefix",
    ]) {
      assert.ok(m[delay]!.includes(phrase), phrase);
    }
    assert.ok(m.some((l) => l.includes(DelayHistogram.precisionNote)));
    assert.equal(m.length, 16);
    assert.match(
      m[3]!,
      /^Viewer profile: browser: .*transport-cc.*Reports made with different profiles are not ranked/,
    );
    assert.match(m[transit + 1]!, /^What viewers saw: .*freezeCount .*end gap, never a freeze/);
    assert.match(m[13]!, /^Clock exchange:/);
    assert.match(m[14]!, /^Client resources/);
    assert.match(m[14]!, /instead of peakGoroutines/);
    assert.match(m[15]!, /^What the client adds: .*receiveLagMs .*an upper bound/);
    const { resources: _resources, ...noResources } = makeInput(healthyViewers(1));
    const bare = buildReport(noResources);
    assert.equal(bare.method.length, 13);
    const minimal = makeInput(healthyViewers(1));
    minimal.scenario = { ...minimal.scenario, viewerProfile: "minimal" };
    assert.match(buildReport(minimal).method[3]!, /^Viewer profile: minimal: .*no transport-cc and no rtx/);
  });
});

describe("console lines and file stem", () => {
  test("headline of a valid run", () => {
    const r = buildReport(makeInput(healthyViewers(1)));
    r.aggregate.oneWayDelay[0]!.ms = { n: 5, min: 1, mean: 20, p50: 12.34, p95: 40, p99: 45.6, max: 50 };
    r.aggregate.joinFirstKeyframeMs = { n: 0, min: 0, mean: 0, p50: 0, p95: 0, p99: 0, max: 0 };
    assert.equal(
      `${stdoutLines(r).slice(1).join("\n")}\n`,
      "one-way delay (fingerprint) p50 12.3 ms, p99 45.6 ms\njoin (first keyframe) p50 0 ms, p95 0 ms; loss 0.000%; packet transit unavailable: not negotiated: the WHEP answer did not accept abs-capture-time\nfrozen share unavailable: no frame was shown: 0 complete frames not decodable, 0 late\n",
    );
    assert.equal(stdoutLines(r)[0], "valid: 1 of 1 viewers joined");
  });

  test("unavailable forms, and an invalid run prints only the verdict", () => {
    const input = makeInput(
      [
        makeViewer(0, {
          keyMs: [1],
          transit: { negotiated: true, stamped: 2, invalid: 0, valuesMs: [1.25, 2.5] },
        }),
      ],
      { hasSendLog: false },
    );
    const lines = stdoutLines(buildReport(input));
    assert.equal(lines.length, 4);
    assert.ok(lines[1]!.startsWith("one-way delay unavailable: no send log"));
    assert.equal(
      lines[2],
      "join (first keyframe) p50 1000 ms, p95 1000 ms; loss 0.000%; packet transit p50 1.2 ms, p99 2.5 ms",
    );
    assert.equal(
      lines[3],
      "frozen share unavailable: no frame was shown: 0 complete frames not decodable, 0 late",
    );
    assert.deepEqual(stdoutLines(withFailures(10, 2)), [
      "no verdict: 2 of 10 viewers (20%) failed to join, above the 10% the rule allows",
    ]);
  });

  test("report stem", () => {
    assert.equal(reportStem(STARTED_NS, "cli test"), "whipbench-20261005T074346Z-cli-test");
    assert.equal(reportStem(STARTED_NS, " -a/b..c ü- "), "whipbench-20261005T074346Z-a-b..c");
    assert.equal(reportStem(STARTED_NS, "///"), "whipbench-20261005T074346Z");
    assert.equal(reportStem(STARTED_NS, ""), "whipbench-20261005T074346Z");
  });
});

test("hist fixture keeps exact min/max (sanity of the test helper)", () => {
  assert.deepEqual(hist([10, 10]).summaryMs(), {
    n: 2,
    min: 10,
    mean: 10,
    p50: 10,
    p95: 10,
    p99: 10,
    max: 10,
  });
});
