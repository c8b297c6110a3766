// The capacity and matrix pages in headless Chromium, as the run report is checked
// (test/e2e/live-run.test.ts): rendered by the real renderers with the real inlined assets, each
// chart drawn by uPlot on a canvas, no console error and no fetch, and a chart's values shown on
// hover in its legend. The matrix chart keeps not-comparable repeats apart from the ranked ones.
// The run report of a run with cohorts (the unit tests' fixture) shows its cohort section and the
// chart comparing the cohorts' delay; the run report of a run with churn shows its churn card.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import type { Page } from "playwright-core";
import { capacityToHtml } from "../../src/core/capacity/html.ts";
import type { CapacityReport, CapacityStep } from "../../src/core/capacity/types.ts";
import { matrixHtml } from "../../src/core/matrix/html.ts";
import { parseMatrix } from "../../src/core/matrix/parse.ts";
import { cellsOf, type RunOutcome } from "../../src/core/matrix/table.ts";
import { buildReport, buildReportParts } from "../../src/core/report/build.ts";
import { delayDistribution } from "../../src/core/report/distribution.ts";
import { CHARTS } from "../../src/core/report/html.ts";
import { htmlAssets, renderHtmlReport } from "../../src/main/output/html-report.ts";
import { cohortInput } from "../unit/cohort-fixtures.ts";
import { goldenChurnInput } from "../unit/golden-fixtures.ts";
import { chromiumPath, openReport } from "./chromium.ts";
import { tempDir } from "./cli-harness.ts";

const browser = chromiumPath();
const skip =
  browser === null ? "chromium not installed (apt-get install -y chromium; .ci/run installs it)" : false;
const tmp = tempDir("pages");
after(() => tmp.remove());

/** Hovers the middle of the first chart and returns its legend's values. */
async function hoverLegend(page: Page): Promise<string[]> {
  const over = page.locator(".u-over").first();
  const box = await over.boundingBox();
  assert.ok(box !== null, "a chart to hover");
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  return page.locator(".u-legend").first().locator(".u-value").allTextContents();
}

/**
 * Writes the page, opens it (a screenshot into $WHIPBENCH_SCREENSHOT_DIR when set), hovers its
 * first chart, and checks it had no console error and fetched nothing.
 */
async function openPage(name: string, html: string) {
  const file = join(tmp.dir, `${name}.html`);
  writeFileSync(file, html);
  const shots = process.env["WHIPBENCH_SCREENSHOT_DIR"];
  const page = await openReport(
    browser as string,
    file,
    shots ? join(shots, `${name}.png`) : undefined,
    hoverLegend,
  );
  assert.deepEqual(page.problems, []);
  assert.deepEqual(page.requests, [], "no network fetch");
  return page;
}

function capacityStep(
  index: number,
  viewers: number,
  outcome: CapacityStep["outcome"],
  loss: number,
): CapacityStep {
  return {
    index,
    viewers,
    window: { startS: index * 12, measuredFromS: index * 12 + 5, endS: index * 12 + 11 },
    outcome,
    verdict: `valid: ${viewers} of ${viewers} viewers joined`,
    thresholds: [{ figure: "loss", condition: "< 1%", unit: "%", observed: loss, pass: outcome === "pass" }],
    figures: {
      joined: viewers,
      failed: 0,
      lossPercent: loss,
      oneWayDelayP50Ms: 2 + viewers / 50,
      oneWayDelayP99Ms: 8 + viewers / 10,
    },
  };
}

test("the capacity page: one uPlot chart per figure, drawn, values on hover, nothing fetched", {
  skip,
}, async () => {
  const steps = [
    capacityStep(1, 10, "pass", 0),
    capacityStep(2, 20, "pass", 0.1),
    capacityStep(3, 40, "fail", 4.8),
    capacityStep(4, 30, "pass", 0.2),
    capacityStep(5, 35, "fail", 3),
  ];
  const spec = { start: 10, max: 200, growth: 2, resolution: 5, stepSeconds: 6, settleSeconds: 2 };
  const r: CapacityReport = {
    schema: "whipbench.capacity/v0",
    whipbenchVersion: "v0.0.0-test",
    startedAt: "2026-12-01T00:00:00Z",
    finishedAt: "2026-12-01T00:01:00Z",
    scenario: { name: "pages", rampSeconds: 2, workers: 1 },
    capacity: spec,
    thresholds: [{ figure: "loss", condition: "< 1%", value: 1, unit: "%" }],
    result: {
      maxViewers: 30,
      firstFailingViewers: 35,
      limitedBy: "threshold:loss",
      summary: "30 viewers hold the thresholds; 35 fail loss",
      failedThresholds: ["loss"],
      steps: 5,
      wallSeconds: 60,
      linearSweepSteps: 6,
    },
    steps,
    method: ["a method line"],
  };
  const page = await openPage("capacity", capacityToHtml(r, await htmlAssets("capacity")));
  const ids = ["chart-capacity-0", "chart-capacity-1", "chart-capacity-2"];
  assert.deepEqual(Object.keys(page.charts).sort(), ids);
  for (const id of ids) {
    const c = page.charts[id] as unknown as { canvas: boolean; steps: number; knee: number; points: number };
    assert.ok(c.canvas && c.steps === 5 && c.knee === 30 && c.points > 5, `${id} drew ${JSON.stringify(c)}`);
  }
  assert.equal((page.charts["chart-capacity-0"] as unknown as { threshold: boolean }).threshold, true);
  const legend = page.probed as string[];
  assert.ok(
    legend.some((v) => /^\d+$/.test(v)) && legend.some((v) => /^\d+\.\d{3}$/.test(v)),
    `hover legend ${legend.join(", ")}`,
  );
  assert.ok(page.text.includes("30 viewers hold the thresholds; 35 fail loss"));
});

test("the matrix page: a chart per scenario, ranked repeats and not-comparable ones apart, values on hover", {
  skip,
}, async () => {
  const m = parseMatrix(
    JSON.stringify({
      name: "pages",
      repeats: 3,
      servers: ["relay", "lossy", "dead"].map((name) => ({ name, whep: `http://127.0.0.1:1/${name}/whep` })),
      scenarios: [
        { name: "10 viewers", scenario: {} },
        { name: "50 viewers", scenario: {} },
      ],
    }),
  );
  const near =
    "the client was near its own ceiling (receive lag p99 9 ms), so its own work may be inside the figure";
  const outcomes: RunOutcome[] = [];
  for (const [scenario, base] of [
    ["10 viewers", 4],
    ["50 viewers", 9],
  ] as const) {
    for (const k of [1, 2, 3]) {
      const common = { scenario, repeat: k, verdict: "valid", thresholdsFailed: false, valid: true };
      outcomes.push({ ...common, server: "relay", value: { value: base + k }, comparable: true });
      // the lossy server's third repeat was client-bound: shown apart, not ranked
      outcomes.push({
        ...common,
        server: "lossy",
        value: { value: base * 3 + k },
        comparable: k !== 3,
        ...(k === 3 ? { notComparableReason: near } : {}),
      });
      outcomes.push({
        ...common,
        server: "dead",
        valid: false,
        verdict: "server dead did not start: not healthy within 5 s",
        comparable: false,
      });
    }
  }
  const page = await openPage(
    "matrix",
    matrixHtml(m, cellsOf(m, outcomes, "ms"), "ms", await htmlAssets("matrix")),
  );
  assert.deepEqual(Object.keys(page.charts).sort(), ["chart-scenario-0", "chart-scenario-1"]);
  for (const c of Object.values(page.charts) as unknown as {
    canvas: boolean;
    comparable: number;
    notComparable: number;
    servers: number;
  }[]) {
    assert.deepEqual([c.canvas, c.comparable, c.notComparable, c.servers], [true, 5, 1, 3]);
  }
  assert.ok(
    (page.probed as string[]).some((v) => /^\d+\.\d$/.test(v)),
    `hover legend ${(page.probed as string[]).join(", ")}`,
  );
  assert.ok(
    page.text.includes("lossy × 10 viewers r3: 15.0 ms, not ranked: the client was near its own ceiling"),
    page.text,
  );
  assert.ok(page.text.includes("13.5 ms (13.0 ms – 14.0 ms; 2 of 3 comparable)"), page.text);
});

test("the run report with cohorts: the cohort section and a CDF per cohort on one chart, values on hover", {
  skip,
}, async () => {
  const input = cohortInput();
  const r = buildReport(input);
  const html = await renderHtmlReport(r, delayDistribution(r, buildReportParts(input).pools));
  const page = await openPage("report-cohorts", html);
  const ids = CHARTS.map((c) => c.id);
  assert.ok(ids.includes("chart-frozen"));
  assert.deepEqual(Object.keys(page.charts).sort(), [...ids, "chart-cohort-delay"].sort());
  const c = page.charts["chart-cohort-delay"] as unknown as {
    canvas: boolean;
    series: number;
    points: number;
    cohorts: string[];
  };
  assert.deepEqual([c.canvas, c.series, c.cohorts], [true, 2, ["far", "unimpaired"]]);
  assert.equal(c.points, 24, "12 delay edges, a cumulative % for each cohort at each");
  for (const id of ["chart-delay-hist", "chart-delay-cdf", "chart-joins"]) {
    assert.ok(page.charts[id]?.canvas, `${id} drew`);
  }
  // the section, as the browser lays it out: columns in order, unimpaired last
  assert.match(page.text, /figure\s+far\s+unimpaired/);
  assert.match(page.text, /one-way delay p50\s+24\.0 ms\s+4\.0 ms/);
  assert.match(page.text, /emulated down \(server → viewer\): lost\s+24\s+—/);
  // viewers frozen per second: the whole run's, the active viewers, a line per cohort
  const frozen = page.charts["chart-frozen"] as unknown as {
    canvas: boolean;
    series: number;
    cohorts: string[];
  };
  assert.deepEqual([frozen.canvas, frozen.series, frozen.cohorts], [true, 4, ["far", "unimpaired"]]);
  // what each cohort's viewers saw, and the card
  assert.match(page.text, /frozen share p95\s+5\.00%\s+0\.00%/);
  assert.match(page.text, /What viewers saw\s/);
  // hovering the cohort chart shows a value per cohort in its legend, which names the cohorts
  const file = join(tmp.dir, "report-cohorts.html");
  const hovered = await openReport(browser as string, file, undefined, async (p) => {
    const over = p.locator("#chart-cohort-delay .u-over");
    await over.scrollIntoViewIfNeeded();
    const box = await over.boundingBox();
    assert.ok(box !== null, "the cohort chart to hover");
    await p.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2);
    const legend = p.locator("#chart-cohort-delay .u-legend");
    return {
      labels: (await legend.locator(".u-series th").allTextContents()).map((t) => t.trim()),
      values: await legend.locator(".u-value").allTextContents(),
    };
  });
  const { labels, values } = hovered.probed as { labels: string[]; values: string[] };
  assert.deepEqual(labels, ["delay (ms)", "far", "unimpaired"]);
  assert.ok(
    values.slice(1).every((v) => /^\d+\.\d$/.test(v)),
    `hover legend ${values.join(", ")}`,
  );
});

test("the run report with churn: the churn card as the browser lays it out, the charts still drawn", {
  skip,
}, async () => {
  const input = goldenChurnInput();
  const r = buildReport(input);
  const page = await openPage(
    "report-churn",
    await renderHtmlReport(r, delayDistribution(r, buildReportParts(input).pools)),
  );
  assert.match(page.text, /Churn\s+3 viewers in all; late joiners 1 \(1 joined\); joins 3; leaves 1 /);
  assert.match(page.text, /late joiners\s+n\s+p50\s+p95\s+p99\s+min\s+max/);
  assert.match(page.text, /join: first keyframe\s+1\s+412\.5 ms\s+412\.5 ms/);
  assert.match(page.text, /setup: ICE connected\s+1\s+21\.2 ms/);
  assert.ok(page.charts["chart-joins"]?.canvas, "the join chart drew");
});
