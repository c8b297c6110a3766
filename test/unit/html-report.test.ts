// The HTML report, read as text: self-contained (no fetch, CSP), everything escaped, the chart
// data consistent with the report (distribution counts = pooled samples, CDF ends at 100 %).
import assert from "node:assert/strict";
import { test } from "node:test";
import { buildReport, buildReportParts } from "../../src/core/report/build.ts";
import { delayBuckets, delayDistribution } from "../../src/core/report/distribution.ts";
import { reportToHtml } from "../../src/core/report/html.ts";
import type { ChartData } from "../../src/core/report/html-data.ts";
import { htmlAssets } from "../../src/main/output/html-report.ts";
import { hist, makeInput, makeViewer } from "./report-fixtures.ts";

const EVIL = `</script><script>alert("x")</script><img src=x onerror=alert(1)>`;

function input() {
  return makeInput([
    makeViewer(0, { keyMs: [10, 12.5], deltaMs: [1.2, 2.5, 3.1, 40] }),
    makeViewer(1, { keyMs: [11], deltaMs: [0.9, 2.2], startOffsetNs: 2e9, firstKeyframeMs: 750 }),
    makeViewer(2, { joined: false, codec: null, errorKind: "http_503", error: EVIL, startOffsetNs: 1e9 }),
    // joined, no sample: 1 failure in 10 keeps the verdict
    ...Array.from({ length: 7 }, (_, i) => makeViewer(3 + i, { keyMs: [], deltaMs: [] })),
  ]);
}

function embedded(html: string): { charts: ChartData; noDelayReason: string } {
  const m = /<script type="application\/json" id="whipbench-data">(.*?)<\/script>/s.exec(html);
  assert.ok(m, "the data block");
  return JSON.parse(m[1]!) as { charts: ChartData; noDelayReason: string };
}

test("html report: one self-contained page: no external resource, a no-fetch CSP, uPlot and its licence inlined", async () => {
  const inp = input();
  const r = buildReport(inp);
  const html = reportToHtml(r, delayDistribution(r, buildReportParts(inp).pools), await htmlAssets());
  assert.ok(html.startsWith("<!DOCTYPE html>"));
  assert.match(html, /<meta http-equiv="Content-Security-Policy" content="default-src 'none';/);
  assert.doesNotMatch(html, /<(?:script|link|img|iframe|object|embed|source)\b[^>]*\b(?:src|href)\s*=/i);
  assert.doesNotMatch(html, /@import|url\(\s*['"]?https?:/i);
  assert.ok(html.includes("var uPlot="), "uPlot inlined");
  assert.ok(html.includes("The MIT License (MIT)") && html.includes("Leon Sorokin"), "its licence kept");
  assert.ok(html.includes("window.whipbenchCharts"), "the page script inlined");
  for (const id of ["chart-timeline", "chart-client", "chart-delay-hist", "chart-delay-cdf", "chart-joins"]) {
    assert.ok(html.includes(`id="${id}"`), id);
  }
  // verdict, comparability and method come before the charts
  const at = (s: string) => html.indexOf(s);
  assert.ok(at("valid: 9 of 10 viewers joined") > 0);
  assert.ok(at("<h2>Verdict</h2>") < at("Comparability") && at("Comparability") < at('id="method"'));
  assert.ok(at('id="method"') < at('id="chart-timeline"'));
  // hosts only: the scenario's secrets never reach the page
  for (const secret of ["QUERYSECRET", "user:pw", "/live/whip", "token="])
    assert.ok(!html.includes(secret), secret);
});

test("html report: free text is escaped in the table and cannot close the data script", async () => {
  const inp = input();
  const r = buildReport(inp);
  const html = reportToHtml(r, delayDistribution(r, buildReportParts(inp).pools), await htmlAssets());
  assert.ok(!html.includes(EVIL));
  assert.ok(
    html.includes("&lt;/script&gt;&lt;script&gt;alert(&quot;x&quot;)"),
    "escaped in the viewers table",
  );
  assert.equal(html.match(/<\/script>/g)?.length, 3, "only the three script elements close");
});

test("html report: distribution counts add up to the pooled samples; histogram and CDF are consistent", async () => {
  const inp = input();
  const r = buildReport(inp);
  const d = delayDistribution(r, buildReportParts(inp).pools);
  assert.ok(d);
  const pooled = r.aggregate.oneWayDelay[0]!;
  const sum = (b: { count: number }[]) => b.reduce((a, x) => a + x.count, 0);
  assert.equal(sum(d.all), pooled.samples);
  assert.equal(sum(d.keyframes), pooled.keyframes.samples);
  assert.equal(sum(d.deltaFrames), pooled.deltaFrames.samples);
  assert.equal(sum(d.keyframes) + sum(d.deltaFrames), sum(d.all));
  assert.equal(d.samples, 9);
  assert.equal(d.minMs, 0.9);
  assert.equal(d.maxMs, 40);
  for (const b of d.all) assert.ok(b.lowMs < b.highMs && b.highMs - b.lowMs <= b.highMs / 100 + 0.0011);

  const { charts } = embedded(reportToHtml(r, d, await htmlAssets()));
  const h = charts.delayHistogram!;
  for (const col of [h.all, h.keyframes, h.deltaFrames]) {
    const total = col.reduce<number>((a, v) => a + (v ?? 0), 0);
    assert.ok(Math.abs(total - 100) < 1e-9, `a histogram series sums to 100 %, got ${total}`);
    assert.equal(col.length, h.ms.length);
  }
  assert.ok(
    h.ms.every((x, i) => i === 0 || x > h.ms[i - 1]!),
    "bins ascend",
  );
  assert.ok(h.ms[0]! <= 0.9 && h.ms.at(-1)! >= 40);
  const c = charts.delayCdf!;
  for (const col of [c.all, c.keyframes, c.deltaFrames]) {
    assert.ok(Math.abs(col.at(-1)! - 100) < 1e-9, "a CDF ends at 100 %");
    assert.ok(
      col.every((v, i) => i === 0 || v! >= col[i - 1]!),
      "and never falls",
    );
  }
  assert.equal(c.all[0], (100 * 1) / 9, "the lowest bucket holds one of nine samples");
  // joins in start order: viewer 0 at 0 s, viewer 2 (failed) at 1 s, viewer 1 at 2 s
  assert.deepEqual(charts.joins.viewerId, [0, 2, 1, 3, 4, 5, 6, 7, 8, 9]);
  assert.deepEqual(charts.joins.joinMs.slice(0, 4), [1000, null, 750, 1000]);
  assert.deepEqual(charts.timeline.t, [1, 2]);
});

test("html report: a run without a verdict shows no delay chart, like the Markdown", async () => {
  const inp = makeInput([
    makeViewer(0, { keyMs: [10], deltaMs: [1, 2] }),
    makeViewer(1, { joined: false, codec: null, errorKind: "http_503" }),
  ]);
  const r = buildReport(inp);
  assert.equal(r.aggregate.valid, false);
  const data = embedded(
    reportToHtml(r, delayDistribution(r, buildReportParts(inp).pools), await htmlAssets()),
  );
  assert.equal(data.charts.delayHistogram, null);
  assert.equal(data.charts.delayCdf, null);
  assert.match(data.noDelayReason, /^no verdict/);
  assert.equal(data.charts.joins.joinMs.length, 2, "the joins stay: they say why");
});

test("html report: no pooled figure (a view run) keeps the delay charts empty with the reason", async () => {
  const inp = makeInput([makeViewer(0, { keyMs: [], deltaMs: [] })], { hasSendLog: false });
  const r = buildReport(inp);
  assert.equal(delayDistribution(r, buildReportParts(inp).pools), null);
  const data = embedded(reportToHtml(r, null, await htmlAssets()));
  assert.equal(data.charts.delayHistogram, null);
  assert.equal(data.charts.delayCdf, null);
  assert.ok(data.noDelayReason.length > 0);
  assert.deepEqual(delayBuckets(hist([])), []);
});
