// Jitter where fewer than two packets arrived (docs/definitions.md#rtp-statistics): RFC 3550's D
// compares a packet with the one before, so nothing was measured — null with its reason in the
// JSON, a dash in a table, left out of the summaries, and a jitter threshold unavailable — never a
// 0 that reads as a perfectly steady stream.
import assert from "node:assert/strict";
import { test } from "node:test";
import { AudioPipeline, AudioTable } from "../../src/core/delay/audio-pipeline.ts";
import { AvOffset } from "../../src/core/delay/av-offset.ts";
import { createHasher } from "../../src/core/delay/fingerprint.ts";
import { SendLog } from "../../src/core/delay/sendlog.ts";
import { pooledAudio, viewerAudio } from "../../src/core/report/audio.ts";
import { buildReport } from "../../src/core/report/build.ts";
import { decodeAudio } from "../../src/core/report/decode.ts";
import { viewerTable } from "../../src/core/report/html-sections.ts";
import { reportToJson } from "../../src/core/report/json.ts";
import { reportToMarkdown } from "../../src/core/report/markdown.ts";
import { jitterUnmeasuredReason, NO_JITTER_REASON } from "../../src/core/report/reasons.ts";
import { RtpStats } from "../../src/core/rtp/stats.ts";
import { readFigure } from "../../src/core/thresholds/figures.ts";
import { emptyRecord } from "../../src/core/viewer-record.ts";
import { recordOk } from "../../src/main/agents/shapes.ts";
import { checkReportKeys } from "../e2e/report-keys.ts";
import { makeInput, makeViewer } from "./report-fixtures.ts";

const MS = 1e6;
const NOT_KEY = () => false;

test("RtpStats: null before the second received packet, a number (0 here) from it on", () => {
  const s = new RtpStats({ clockRate: 90000, stallNs: 0, keyframeStart: NOT_KEY });
  const one = Uint8Array.of(0);
  assert.equal(s.report().jitterMs, null, "nothing arrived");
  s.push(10, 0, false, one, 0);
  assert.equal(s.report().jitterMs, null, "one packet: no D yet");
  s.push(10, 0, false, one, 5 * MS);
  assert.equal(s.report().jitterMs, null, "a duplicate is not a second packet");
  s.push(11, 3000, false, one, (3000 / 90000) * 1e9);
  assert.equal(s.report().jitterMs, 0, "two packets exactly on the clock: measured, and 0");
  assert.equal(emptyRecord(0, true).rtp.jitterMs, null, "a viewer that never got media");
});

test("report: a viewer with 0 or 1 packet has jitter null with its reason; the summary leaves it out", () => {
  const r = buildReport(
    makeInput([
      makeViewer(0, { rtp: { jitterMs: 0.5 } }),
      // an agent of an older version writes 0 for a viewer that received one packet
      makeViewer(1, { rtp: { received: 1, expected: 1, jitterMs: 0 } }),
      makeViewer(2, { joined: false, errorKind: "http_503", error: "HTTP 503" }),
    ]),
  );
  const [v0, v1, v2] = r.viewers ?? [];
  assert.equal(v0?.rtp.jitterMs, 0.5);
  assert.ok(v0 !== undefined && !("jitterMsReason" in v0.rtp));
  assert.equal(v1?.rtp.jitterMs, null);
  assert.equal(v1?.rtp.jitterMsReason, jitterUnmeasuredReason(1));
  assert.equal(v2?.rtp.jitterMs, null);
  assert.equal(v2?.rtp.jitterMsReason, "no packet arrived: interarrival jitter needs two");
  // the reason follows its figure in the JSON's key order
  const keys = Object.keys(v1?.rtp ?? {});
  assert.equal(keys.indexOf("jitterMsReason"), keys.indexOf("jitterMs") + 1);
  const walked = checkReportKeys(JSON.parse(reportToJson(r)));
  assert.deepEqual(walked.problems, []);
  assert.ok(walked.paths.has("viewers[].rtp.jitterMsReason"));
  assert.equal(r.aggregate.jitterMs.n, 1, "viewer 1 joined but measured no jitter");
  assert.equal(r.aggregate.jitterMs.min, 0.5);
  assert.deepEqual(readFigure(r, "jitter.p95"), { value: 0.5 });
  // the tables: a dash in the jitter column (Markdown's tenth cell, HTML's)
  const md = reportToMarkdown(r)
    .split("\n")
    .find((l) => l.startsWith("| 1 | "));
  assert.equal(md?.split(" | ")[9], "—", md);
  assert.match(viewerTable(r), /<td[^>]*>0\.5 ms<\/td>/);
  const rows = viewerTable(r)
    .split("<tr")
    .filter((x) => x.includes("HTTP 503") || x.includes(">no<"));
  assert.ok(rows.length > 0 && rows.every((x) => !x.includes("0.0 ms</td>")), "no 0.0 ms jitter cell");
});

test("a run where no viewer measured jitter: the jitter threshold is unavailable, not passed on 0", () => {
  const r = buildReport(makeInput([makeViewer(0, { rtp: { received: 1, expected: 1, jitterMs: 0 } })]));
  assert.equal(r.aggregate.jitterMs.n, 0);
  for (const stat of ["p50", "p95", "p99", "max"])
    assert.deepEqual(readFigure(r, `jitter.${stat}`), { unavailable: NO_JITTER_REASON });
});

test("an agent's record: jitterMs a number or null, nothing else", () => {
  const ids = new Set([3]);
  const rec = emptyRecord(3, true);
  assert.equal(recordOk(JSON.parse(JSON.stringify(rec)), ids), true, "null crosses the wire");
  const withJitter = (j: unknown) => ({ ...rec, rtp: { ...rec.rtp, jitterMs: j } });
  assert.equal(recordOk(withJitter(1.25), ids), true);
  assert.equal(recordOk(withJitter({}), ids), false);
  assert.equal(recordOk(withJitter("0"), ids), false);
  assert.equal(recordOk(withJitter([]), ids), false);
});

test("audio: one packet, jitter null with its reason, out of the pooled summary", async () => {
  const hasher = await createHasher();
  const payload = Uint8Array.of(0xf8, 1, 3);
  const table = new AudioTable([hasher.packetFingerprint(payload)], 960);
  const sendLog = SendLog.create(1);
  sendLog.record(0, 0);
  const p = new AudioPipeline({
    postNs: 0,
    excludeFirstNs: 0,
    stallNs: 500 * MS,
    hasher,
    table,
    sendLog,
    offset: new AvOffset(0),
  });
  p.onPacket(1, 960, true, payload, 2 * MS);
  const a = decodeAudio(p.finish([]));
  const v = viewerAudio(a);
  assert.equal(v.available, true);
  assert.equal(v.jitterMs, null);
  assert.equal(v.jitterMsReason, jitterUnmeasuredReason(1));
  const pooled = pooledAudio(true, [a]);
  assert.equal(pooled.viewers, 1);
  assert.equal(pooled.jitterMs?.n, 0, "no viewer's jitter to summarise");
});
