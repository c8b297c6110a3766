// A record's histograms are decoded in one place (src/core/report/decode.ts) and the bytes of an
// encoded histogram are read in one place (DelayHistogram.decode); the HTML report's delay
// distribution charts the very histograms the pooled block was made from, pooled once.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { buildReportParts } from "../../src/core/report/build.ts";
import { decodeViewer } from "../../src/core/report/decode.ts";
import { delayDistribution } from "../../src/core/report/distribution.ts";
import { DelayHistogram } from "../../src/core/stats/summaries.ts";
import type { EncodedHistogram } from "../../src/core/types.ts";
import { emptyRecord } from "../../src/core/viewer-record.ts";
import { cohortInput } from "./cohort-fixtures.ts";
import { ROOT, sourceFiles } from "./repo-files.ts";

function isEncoded(v: unknown): v is EncodedHistogram {
  return typeof v === "object" && v !== null && "hdr" in v && "n" in v && "sumNs" in v;
}

test("decodeViewer decodes every histogram a record carries, its audio's too, and keeps the values", () => {
  const h = new DelayHistogram();
  for (const ms of [1.5, 3, 40]) h.recordNs(ms * 1e6);
  const rec = emptyRecord(7, true);
  const withHists = Object.fromEntries(
    Object.entries(rec).map(([k, v]) => [k, isEncoded(v) ? h.encode() : v]),
  ) as typeof rec;
  const audio = {
    rtp: rec.rtp,
    samples: 3,
    invalid: 0,
    unmatchedPackets: 0,
    duplicatePackets: 0,
    excludedPackets: 0,
    matched: true,
    delayHist: h.encode(),
    avOffsetNs: [],
  };
  const d = decodeViewer({ ...withHists, audio });
  const hists = Object.entries(rec).filter(([, v]) => isEncoded(v));
  assert.ok(hists.length >= 9, `only ${hists.length} histograms in a record`);
  for (const [k] of hists) {
    const got = (d as unknown as Record<string, unknown>)[k];
    assert.ok(got instanceof DelayHistogram, `${k} decoded`);
    assert.deepEqual(got.summaryMs(), h.summaryMs(), k);
  }
  assert.ok(d.audio?.delayHist instanceof DelayHistogram);
  assert.equal(d.audio.delayHist.count, 3);
  assert.equal(d.id, 7);
});

test("encoded histograms are decoded by DelayHistogram.decode alone, records by decodeViewer alone", () => {
  const names = Object.entries(emptyRecord(0, true)).flatMap(([k, v]) => (isEncoded(v) ? [k] : []));
  const ofRecord = new RegExp(`\\.decode\\([\\w.?]*\\.(?:${names.join("|")})\\)`);
  assert.ok(ofRecord.test("DelayHistogram.decode(v.record.recoveryHist)"));
  assert.ok(!ofRecord.test("DelayHistogram.decode(p.receiveLagHist)"));
  const bytes: string[] = [];
  const records: string[] = [];
  for (const f of sourceFiles("src")) {
    const text = readFileSync(join(ROOT, f), "utf8");
    if (text.includes("decodeFromCompressedBase64")) bytes.push(f);
    if (ofRecord.test(text)) records.push(f);
  }
  assert.deepEqual(bytes, ["src/core/stats/summaries.ts"]);
  assert.deepEqual(records, ["src/core/report/decode.ts"]);
});

test("the distribution charts the pooled block's histograms: the run's and each cohort's", () => {
  const { report, pools } = buildReportParts(cohortInput());
  const d = delayDistribution(report, pools);
  assert.ok(d !== null);
  const sum = (b: readonly { count: number }[]) => b.reduce((n, x) => n + x.count, 0);
  const fp = report.aggregate.oneWayDelay[0];
  assert.equal(d.samples, fp?.samples);
  assert.equal(sum(d.all), fp?.samples);
  assert.equal(sum(d.keyframes) + sum(d.deltaFrames), fp?.samples);
  const cohorts = report.aggregate.cohorts ?? [];
  assert.ok(cohorts.length >= 2);
  assert.deepEqual(
    d.cohorts?.map((c) => [c.name, sum(c.all)]),
    cohorts.map((c) => [c.name, c.oneWayDelay[0]?.samples]),
  );
});
