// The HTML report with cohorts (docs/definitions.md#cohort-figures): a section with one column
// per cohort, unimpaired last, and the data of the chart that compares their delay, consistent
// with the report; neither appears without cohorts.
import assert from "node:assert/strict";
import { test } from "node:test";
import { FIGURE_REGISTRY } from "../../src/core/figures/registry.ts";
import { buildReport, buildReportParts } from "../../src/core/report/build.ts";
import { delayDistribution } from "../../src/core/report/distribution.ts";
import { reportToHtml } from "../../src/core/report/html.ts";
import { cohortFigureRows, cohortSection } from "../../src/core/report/html-cohorts.ts";
import type { ChartData } from "../../src/core/report/html-data.ts";
import { htmlAssets } from "../../src/main/output/html-report.ts";
import { cohortInput } from "./cohort-fixtures.ts";
import { healthyViewers, makeInput } from "./report-fixtures.ts";

function charts(html: string): ChartData {
  const m = /<script type="application\/json" id="whipbench-data">(.*?)<\/script>/s.exec(html);
  assert.ok(m, "the data block");
  return (JSON.parse(m[1] ?? "") as { charts: ChartData }).charts;
}

/** The section's table as rows of cell texts (header row first). */
function table(section: string): string[][] {
  return [...section.matchAll(/<tr>(.*?)<\/tr>/g)].map((row) =>
    [...(row[1] ?? "").matchAll(/<t[hd][^>]*>(.*?)<\/t[hd]>/g)].map((c) => c[1] ?? ""),
  );
}

test("the cohort section: one column per cohort, unimpaired last, every figure of the issue as a row", () => {
  const rows = table(cohortSection(buildReport(cohortInput())));
  assert.deepEqual(rows[0], ["figure", "far", "unimpaired"]);
  const byLabel = new Map(rows.slice(1).map((r) => [r[0], r.slice(1)]));
  assert.deepEqual(byLabel.get("joined"), ["2 of 2", "4 of 4"]);
  assert.deepEqual(byLabel.get("one-way delay p50"), ["24.0 ms", "4.0 ms"]);
  assert.deepEqual(byLabel.get("keyframes p50"), ["28.0 ms", "8.0 ms"]);
  assert.deepEqual(byLabel.get("delta frames p50"), ["23.0 ms", "3.0 ms"]);
  assert.deepEqual(byLabel.get("join p50"), ["1000.0 ms", "1000.0 ms"]);
  assert.deepEqual(byLabel.get("loss after repair"), ["0.300% (6 of 2000)", "0.000% (0 of 4000)"]);
  assert.deepEqual(byLabel.get("NACKs sent"), ["4", "0"]);
  for (const label of ["late-completed frames", "incomplete frames", "stalls"]) {
    assert.deepEqual(byLabel.get(label), ["0", "0"], label);
  }
  assert.deepEqual(byLabel.get("emulated down (server → viewer): datagrams"), ["2400", "—"]);
  assert.deepEqual(byLabel.get("emulated down (server → viewer): lost"), ["24", "—"]);
  assert.deepEqual(byLabel.get("emulated down (server → viewer): queue-dropped"), ["6", "—"]);
  assert.deepEqual(byLabel.get("emulated up (viewer → server): lost"), ["2", "—"]);
});

test("the cohort section escapes, keeps figures out without a verdict, and is absent without cohorts", () => {
  const r = buildReport(cohortInput());
  const cohorts = r.aggregate.cohorts ?? [];
  const evil = {
    ...r,
    aggregate: { ...r.aggregate, cohorts: cohorts.map((c) => ({ ...c, name: "<b>x</b>" })) },
  };
  assert.ok(cohortSection(evil).includes("&lt;b&gt;x&lt;/b&gt;") && !cohortSection(evil).includes("<b>x"));
  const invalid = cohortSection({ ...r, aggregate: { ...r.aggregate, valid: false } });
  assert.ok(invalid.includes("No verdict") && !invalid.includes("24.0 ms"));
  assert.equal(cohortSection(buildReport(makeInput(healthyViewers(3)))), "");
});

test("the cohort chart's data: each cohort's CDF over its own samples, ending at 100 %", async () => {
  const input = cohortInput();
  const r = buildReport(input);
  const html = reportToHtml(r, delayDistribution(r, buildReportParts(input).pools), await htmlAssets());
  assert.ok(html.includes('id="chart-cohort-delay"') && html.includes('<section id="cohorts"'));
  const c = charts(html).cohortDelayCdf;
  assert.ok(c !== undefined && c !== null);
  assert.deepEqual(c.names, ["far", "unimpaired"]);
  const [far, unimpaired] = c.cdf;
  assert.ok(far !== undefined && unimpaired !== undefined);
  assert.equal(far.at(-1), 100);
  assert.equal(unimpaired.at(-1), 100);
  // unimpaired delays are at most 9 ms, far's at least 22 ms: below 20 ms one is complete, the other empty
  const below20 = c.ms.filter((ms) => ms < 20).length - 1;
  assert.ok(below20 > 0);
  assert.equal(unimpaired[below20], 100);
  assert.equal(far[below20], 0);
  assert.ok((far[below20 + 1] ?? 0) > 0, "far's samples start after it");
  for (const col of c.cdf) {
    for (let i = 1; i < col.length; i++) assert.ok((col[i] ?? 0) >= (col[i - 1] ?? 0), "non-decreasing");
  }
  const plain = buildReport(makeInput(healthyViewers(3)));
  const without = reportToHtml(
    plain,
    delayDistribution(plain, buildReportParts(makeInput(healthyViewers(3))).pools),
    await htmlAssets(),
  );
  assert.ok(!without.includes(`id="chart-cohort-delay"`) && !without.includes(`<section id="cohorts"`));
  assert.equal(charts(without).cohortDelayCdf, undefined);
});

/** Each declared cohort row's label, in declared place order (equal places: declaration order). */
function declaredLabels(): string[] {
  return FIGURE_REGISTRY.filter((d) => d.cohortRow !== undefined)
    .sort((x, y) => (x.cohortRow?.at ?? 0) - (y.cohortRow?.at ?? 0))
    .flatMap((d) => {
      const label = d.cohortRow?.label ?? String(d.html);
      return d.cohortRow?.stats?.map((s) => `${label} ${s}`) ?? [label];
    });
}

test("the cohort rows of one declared figure each come from the declarations' cohortRow, in place order", () => {
  const rows = table(cohortSection(buildReport(cohortInput()))).map((r) => r[0]);
  const labels = declaredLabels();
  assert.ok(labels.includes("NACKs sent") && labels.includes("freezes"), "the declarations give the rows");
  const at = labels.map((l) => rows.indexOf(l));
  assert.ok(!at.includes(-1), `declared rows missing: ${labels.filter((_, i) => at[i] === -1).join(", ")}`);
  assert.deepEqual(
    [...at].sort((x, y) => x - y),
    at,
    "declared rows out of their places' order",
  );
  for (const l of labels) assert.equal(rows.filter((x) => x === l).length, 1, `${l}: not one row`);
  const around = (l: string) => rows.slice(rows.indexOf(l) - 1, rows.indexOf(l) + 2);
  assert.deepEqual(around("NACKs sent"), ["loss after repair", "NACKs sent", "late-completed frames"]);
  assert.deepEqual(around("stalls"), ["incomplete frames", "stalls", "frozen share p50"]);
  assert.deepEqual(around("frozen seconds"), [
    "freezes",
    "frozen seconds",
    "emulated down (server → viewer): datagrams",
  ]);
  const places = cohortFigureRows().map(([p, label]) => `${p}:${label}`);
  assert.equal(new Set(places).size, places.length, "a declared row twice");
});

test("a cohort with no judged render block shows a dash in the render rows, its counts still", () => {
  const r = buildReport(cohortInput());
  const [far, unimpaired] = r.aggregate.cohorts ?? [];
  assert.ok(far?.render !== undefined && unimpaired !== undefined, "the fixture has a render block");
  const { render: _, ...noRender } = unimpaired;
  const cohorts = [{ ...far, render: { ...far.render, available: false } }, noRender];
  const rows = table(cohortSection({ ...r, aggregate: { ...r.aggregate, cohorts } }));
  const byLabel = new Map(rows.slice(1).map((row) => [row[0], row.slice(1)]));
  const render = [
    "frozen share p50",
    "frozen share p95",
    "freezes per viewer-minute",
    "freezes",
    "frozen seconds",
  ];
  for (const l of render) assert.deepEqual(byLabel.get(l), ["—", "—"], l);
  assert.deepEqual(byLabel.get("NACKs sent"), [String(far.nacksSent), String(unimpaired.nacksSent)]);
  assert.deepEqual(byLabel.get("stalls"), [String(far.stalls), String(unimpaired.stalls)]);
});

test("a cohort's declared rows read its own figures: counts whole, seconds to a tenth, % to two places", () => {
  const r = buildReport(cohortInput());
  const rows = table(cohortSection(r));
  const byLabel = new Map(rows.slice(1).map((row) => [row[0], row.slice(1)]));
  const cohorts = r.aggregate.cohorts ?? [];
  const render = cohorts.map((c) => c.render);
  assert.ok(
    render.every((b) => b?.available === true && b.freezes >= 0),
    "judged render blocks",
  );
  assert.deepEqual(
    byLabel.get("freezes"),
    render.map((b) => String(b?.freezes)),
  );
  assert.deepEqual(
    byLabel.get("frozen seconds"),
    render.map((b) => (b?.frozenSeconds ?? NaN).toFixed(1)),
  );
  assert.deepEqual(
    byLabel.get("frozen share p95"),
    render.map((b) => `${b?.frozenPercent.p95.toFixed(2)}%`),
  );
  assert.ok(
    render.some((b) => (b?.freezes ?? 0) > 0),
    "the fixture freezes somewhere",
  );
});
