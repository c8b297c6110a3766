// The figure registry (src/core/figures/registry.ts, docs/architecture.md#adding-a-figure): every
// declared figure has its report key in test/e2e/report-keys.ts, its docs/definitions.md section
// (naming it), its threshold names in the catalogue (and they parse), its /metrics family, its
// Markdown label in a fixture's Markdown and its HTML label in its HTML, or says why it has none;
// and the reverse: a threshold name, a compare row, an `aggregate` key or a /metrics family that no
// declaration covers fails. Each missing piece is named in the failure.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { COMPARE_FIGURES } from "../../src/core/compare/compare.ts";
import { VIEWER_HISTOGRAMS } from "../../src/core/figures/histograms.ts";
import {
  aggregateKey,
  FIGURE_REGISTRY,
  type FigureDecl,
  METRICS_NOT_IN_REGISTRY,
  NOT_IN_REGISTRY,
  type Shown,
  thresholdNames,
  valueAt,
} from "../../src/core/figures/registry.ts";
import { REFERENCE_FIGURES } from "../../src/core/reference/figures.ts";
import { buildReport, buildReportParts } from "../../src/core/report/build.ts";
import { delayDistribution } from "../../src/core/report/distribution.ts";
import { reportToHtml } from "../../src/core/report/html.ts";
import type { ReportInput } from "../../src/core/report/input.ts";
import { reportToMarkdown } from "../../src/core/report/markdown.ts";
import type { Report } from "../../src/core/report/types.ts";
import { FIGURES } from "../../src/core/thresholds/figures.ts";
import { parseThresholds } from "../../src/core/thresholds/parse.ts";
import { TICK_COUNTS } from "../../src/core/tick-counts.ts";
import { RunMetrics } from "../../src/main/observe/metrics.ts";
import { REFERENCE_METRIC_PREFIX } from "../../src/main/observe/metrics-reference.ts";
import { htmlAssets } from "../../src/main/output/html-report.ts";
import { REPORT_KEYS } from "../e2e/report-keys.ts";
import { goldenInput } from "./golden-fixtures.ts";
import { sectionTexts } from "./md-headings.ts";
import { parseExposition } from "./prom-text.ts";
import { hist, makeInput, makeScenario, makeViewer } from "./report-fixtures.ts";

/** What a declaration is checked against. */
interface World {
  reportKeys: ReadonlySet<string>;
  sections: ReadonlyMap<string, string>;
  figures: ReadonlyMap<string, { unit: string }>;
  families: ReadonlySet<string>;
  markdown: string;
  html: string;
  /** the fixtures' reports */
  reports: readonly Report[];
  /** the source text where a viewer's count can be counted (countingCode) */
  counting: string;
}

/** The golden run with a receive lag, and a simulcast run with a layer switch: every figure shown. */
function fixtures(): ReportInput[] {
  const viewers = [0, 1].map((i) => {
    const v = makeViewer(i, { keyMs: [10, 12], deltaMs: [2, 3, 4] });
    const layer = hist([30 + i, 40 + i]);
    const choice = {
      asks: [{ rid: "h", atNs: 2e9, status: 200 }],
      switches: [{ from: "l", to: "h", askedNs: 2e9, switchNs: 3e8, framesLost: 0 }],
    };
    const layers = { layerSamples: [2, 2], layerNs: [1e9, 2e9], layerFrames: [2, 2], layerExcluded: [0, 0] };
    return { ...v, record: { ...v.record, ...layers, layerDelayHists: [layer, layer], layerChoice: choice } };
  });
  const layerSwitch = { startRid: "l", atSeconds: 2, rid: "h" };
  const scenario = makeScenario(2, { simulcast: ["l", "h"], layerSwitch });
  return [goldenInput(), makeInput(viewers, { scenario })];
}

async function world(): Promise<World> {
  const assets = await htmlAssets();
  let markdown = "";
  let html = "";
  const reports: Report[] = [];
  for (const input of fixtures()) {
    const r = buildReport(input);
    r.client.receiveLagMs = { p50: 0.25, p99: 1.5, max: 3 };
    reports.push(r);
    markdown += reportToMarkdown(r);
    html += reportToHtml(r, delayDistribution(r, buildReportParts(input).pools), assets);
  }
  const entities: Record<string, string> = {
    "&#39;": "'",
    "&quot;": '"',
    "&lt;": "<",
    "&gt;": ">",
    "&amp;": "&",
  };
  html = html.replace(/&#39;|&quot;|&lt;|&gt;|&amp;/g, (e) => entities[e] ?? e);
  const m = new RunMetrics({
    viewersTarget: 3,
    cohorts: [{ name: "lossy", viewers: 1 }],
    layers: ["l", "m", "h"],
    reference: [{ cohort: "unimpaired", viewers: 2 }],
  });
  return {
    reportKeys: new Set(REPORT_KEYS.map((k) => k.replace(/^\+/, "").replace(/\?$/, ""))),
    sections: sectionTexts("docs/definitions.md"),
    figures: FIGURES,
    families: new Set(parseExposition(await m.text()).map((f) => f.name)),
    markdown,
    html,
    reports,
    counting: countingCode(),
  };
}

/** The name a definitions.md section must mention: the report key's last name that is not `ms`. */
function keyName(report: string): string {
  const names = report.split(".").map((n) => n.replace("[]", ""));
  return names.filter((n) => n !== "ms").at(-1) ?? report;
}

/** How a test names a declaration: its threshold name pattern, or its report key. */
function idOf(d: FigureDecl): string {
  if (d.threshold === false) return d.report;
  return `${d.name}${d.rids === true ? ".<rid>" : ""}${d.stats !== undefined ? ".<stat>" : ""}`;
}

function shownProblem(id: string, what: string, s: Shown, where: string, text: string): string[] {
  if (typeof s !== "string") return s.none.trim() === "" ? [`${id}: no ${what} and no reason why`] : [];
  return text.includes(s) ? [] : [`${id}: the ${what} "${s}" is not in ${where}`];
}

/** A Markdown summary row (or Packets item) that the renderer (markdown-cells.ts) could not print. */
function rowProblems(d: FigureDecl, id: string): string[] {
  if (d.row === undefined) return [];
  const out: string[] = [];
  const row = d.row;
  if (typeof d.markdown !== "string") out.push(`${id}: a ${row.table} row needs a Markdown label`);
  if (row.table === "aggregate.packets") {
    if (d.pool !== "sum" && d.pool !== "ofSums")
      out.push(`${id}: a ${row.table} item needs pool sum or ofSums`);
    const before = FIGURE_REGISTRY.filter((o) => o.row?.table === row.table && o.row.at < row.at);
    if (d.pool === "ofSums" && before.length === 0)
      out.push(`${id}: a ratio's ${row.table} item needs a count before it`);
  } else {
    if (d.stats !== "summary") out.push(`${id}: a ${row.table} row needs a summary (stats: "summary")`);
    if (!["ms", "%", "s"].includes(d.unit)) out.push(`${id}: a ${row.table} row needs a unit ms, % or s`);
  }
  const same = FIGURE_REGISTRY.filter((o) => o !== d && o.row?.table === row.table && o.row.at === row.at);
  for (const o of same) out.push(`${id}: ${o.name} is at ${row.at} of ${row.table} too`);
  return out;
}

/** The aggregate keys of the summed counts with a viewer source (a ratio divides two of them). */
function summedCounts(): Set<string> {
  const summed = FIGURE_REGISTRY.filter(
    (d) => d.pool === "sum" && d.viewer !== undefined && "key" in d.viewer,
  );
  return new Set(summed.map(aggregateKey));
}

/** What the aggregate (aggregate.ts pooledOverViewers) would not pool from a declaration's viewer source. */
function viewerProblems(d: FigureDecl, id: string): string[] {
  const top = /^aggregate\.[A-Za-z]+$/.test(d.report);
  if (d.pool === "perViewer" && top && d.viewer === undefined)
    return [`${id}: ${d.report} is a summary over the viewers with no viewer source to pool`];
  const v = d.viewer;
  if (v === undefined) return [];
  if (!top) return [`${id}: a viewer source needs its figure at aggregate.<key>`];
  const out: string[] = [];
  if ("part" in v) {
    if (d.pool !== "ofSums" || d.unit !== "%")
      out.push(`${id}: a ratio's viewer source needs pool ofSums, unit %`);
    const counts = summedCounts();
    for (const c of [v.part, ...v.of])
      if (!counts.has(c))
        out.push(`${id}: ${c} is no summed count with a viewer source (its ratio divides it)`);
  } else if (d.pool !== "perViewer" && d.pool !== "sum") {
    out.push(`${id}: a viewer key needs pool perViewer (a summary) or sum (a count)`);
  } else if (d.pool === "sum" && v.only !== undefined) {
    out.push(`${id}: a sum keeps every joined viewer (no \`only\`)`);
  }
  const same = FIGURE_REGISTRY.filter((o) => o !== d && o.viewer?.at === v.at);
  for (const o of same) out.push(`${id}: ${o.name} is at ${v.at} of the aggregate's pooled keys too`);
  return out;
}

/** A big stat (htmlBig) the card (html-render.ts bigStats) could not print, or prints twice. */
function bigProblems(d: FigureDecl, id: string, w: World): string[] {
  const big = d.htmlBig;
  if (big === undefined) return [];
  const out: string[] = [];
  const label = big.label ?? (typeof d.html === "string" ? d.html : undefined);
  if (label === undefined) out.push(`${id}: a big stat needs an HTML label (html or label)`);
  if ((big.stats !== undefined) !== (d.stats === "summary"))
    out.push(`${id}: a big stat names stats exactly when its figure is a summary`);
  const shownAll = label === undefined ? [] : (big.stats?.map((s) => `${label} ${s}`) ?? [label]);
  for (const shown of shownAll)
    if (!w.html.includes(`<div class="label">${shown}</div>`))
      out.push(`${id}: the fixtures' HTML has no big stat "${shown}"`);
  const same = FIGURE_REGISTRY.filter(
    (o) => o !== d && o.htmlBig?.card === big.card && o.htmlBig.at === big.at,
  );
  for (const o of same) out.push(`${id}: ${o.name} is big stat ${big.at} of ${big.card} too`);
  return out;
}

/** A summed count the viewer report does not carry: its key there and in report-keys.ts. */
function countProblems(d: FigureDecl, id: string, w: World): string[] {
  if (d.pool !== "sum" || d.viewer === undefined || !("key" in d.viewer)) return [];
  const key = d.viewer.key;
  const out: string[] = [];
  if (!w.reportKeys.has(`viewers[].${key}`))
    out.push(`${id}: report key viewers[].${key} is not in test/e2e/report-keys.ts`);
  const joined = w.reports.flatMap((r) => (r.viewers ?? []).filter((v) => v.joined));
  if (joined.some((v) => typeof valueAt(v, key) !== "number"))
    out.push(`${id}: a joined viewer has no count ${key}: where does the viewer count it?`);
  const counted = new RegExp(`\\.${key.split(".").at(-1) ?? key}(\\+\\+| \\+= )`);
  if (!counted.test(w.counting))
    out.push(
      `${id}: no code under src/ (but core/figures, core/report) counts ${key} (\`.${key}++\` or \`+=\`)`,
    );
  return out;
}

/** The code that can count what a viewer sees: src/ but the registry and the report built from it. */
function countingCode(): string {
  const files = readdirSync("src", { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"));
  const kept = files.filter((f) => !f.startsWith("core/figures/") && !f.startsWith("core/report/"));
  return kept.map((f) => readFileSync(join("src", f), "utf8")).join("\n");
}

/** Every piece a declaration lacks, named. */
function problemsOf(decls: readonly FigureDecl[], w: World): string[] {
  const out: string[] = [];
  for (const d of decls) {
    const id = idOf(d);
    if (!d.report.includes("[]") && w.reports.every((r) => valueAt(r, d.report) === undefined))
      out.push(`${id}: no fixture's report has ${d.report}: where does the report pool it?`);
    if (!w.reportKeys.has(d.report))
      out.push(`${id}: report key ${d.report} is not in test/e2e/report-keys.ts`);
    const section = w.sections.get(d.anchor);
    if (section === undefined) out.push(`${id}: docs/definitions.md has no heading #${d.anchor}`);
    else if (!section.includes(keyName(d.report)))
      out.push(`${id}: docs/definitions.md#${d.anchor} does not mention ${keyName(d.report)}`);
    for (const name of thresholdNames(d)) {
      const f = w.figures.get(name);
      if (f === undefined) out.push(`${id}: threshold name ${name} is not in core/thresholds/figures.ts`);
      else if (f.unit !== d.unit) out.push(`${id}: ${name}'s unit is "${f.unit}" there, "${d.unit}" here`);
      else {
        const amount = d.unit === "" ? "0" : `1${d.unit}`;
        try {
          parseThresholds({ [name]: `< ${amount}` });
        } catch (e) {
          out.push(`${id}: threshold ${name} does not parse: ${(e as Error).message}`);
        }
      }
    }
    if (typeof d.metric === "string" && !w.families.has(d.metric))
      out.push(`${id}: /metrics has no family ${d.metric}`);
    if (typeof d.metric !== "string")
      out.push(...shownProblem(id, "/metrics family", d.metric, "/metrics", ""));
    out.push(...shownProblem(id, "Markdown label", d.markdown, "the fixtures' Markdown", w.markdown));
    out.push(...shownProblem(id, "HTML label", d.html, "the fixtures' HTML", w.html));
    out.push(...rowProblems(d, id), ...viewerProblems(d, id), ...countProblems(d, id, w));
    out.push(...bigProblems(d, id, w));
  }
  return out;
}

/** What the report, the catalogue and /metrics carry that no declaration covers, named. */
function uncovered(decls: readonly FigureDecl[], w: World): string[] {
  const out: string[] = [];
  const named = new Set(decls.flatMap(thresholdNames));
  for (const name of w.figures.keys())
    if (!named.has(name)) out.push(`threshold figure ${name} is declared in no registry entry`);
  const tops = new Set(decls.map((d) => d.report.split(".")[1]?.replace("[]", "")));
  for (const key of w.reportKeys) {
    const m = /^aggregate\.([A-Za-z]+)$/.exec(key);
    if (m?.[1] !== undefined && !tops.has(m[1]) && NOT_IN_REGISTRY[m[1]] === undefined)
      out.push(`report key aggregate.${m[1]} is neither a registry figure nor in NOT_IN_REGISTRY`);
  }
  const listed = new Set([
    ...decls.flatMap((d) => (typeof d.metric === "string" ? [d.metric] : [])),
    ...TICK_COUNTS.flatMap((s) => ["cohort" in s ? s.cohort.metric : s.metric, s.metric]),
    ...REFERENCE_FIGURES.map((f) => `${REFERENCE_METRIC_PREFIX}${f.metric}`),
  ]);
  for (const f of w.families)
    if (!listed.has(f) && METRICS_NOT_IN_REGISTRY[f] === undefined)
      out.push(`/metrics family ${f} is neither a registry figure's nor in METRICS_NOT_IN_REGISTRY`);
  return out;
}

test("every registry figure has its report key, definitions.md section, threshold names, /metrics family and labels", async () => {
  const w = await world();
  assert.ok(FIGURE_REGISTRY.length >= 30, `only ${FIGURE_REGISTRY.length} figures declared`);
  assert.deepEqual(problemsOf(FIGURE_REGISTRY, w), []);
});

test("no threshold name, aggregate key or /metrics family is left out of the registry", async () => {
  const w = await world();
  assert.deepEqual(uncovered(FIGURE_REGISTRY, w), []);
  // the lists of exceptions hold no stale entry
  for (const k of Object.keys(NOT_IN_REGISTRY))
    assert.ok(w.reportKeys.has(`aggregate.${k}`), `aggregate.${k}`);
  for (const f of Object.keys(METRICS_NOT_IN_REGISTRY)) assert.ok(w.families.has(f), `/metrics family ${f}`);
  // compare's side-by-side rows name registry figures
  const named = new Set(FIGURE_REGISTRY.flatMap(thresholdNames));
  for (const f of COMPARE_FIGURES)
    assert.ok(named.has(f), `compare's row ${f} is declared in no registry entry`);
  // each per-viewer histogram pools into a declared figure
  for (const [key, feeds] of Object.entries(VIEWER_HISTOGRAMS))
    assert.ok(
      FIGURE_REGISTRY.some((d) => d.name === feeds),
      `${key} feeds ${feeds}, which is not declared`,
    );
});

test("a figure declared and not wired in, or wired in and not declared, is named with each missing piece", async () => {
  const w = await world();
  const newcomer: FigureDecl = {
    name: "newFigure",
    stats: "summary",
    unit: "ms",
    kind: "histogram",
    pool: "merge",
    report: "aggregate.newFigureMs",
    metric: "whipbench_new_figure_seconds",
    markdown: "new figure per viewer",
    html: { none: "" },
    anchor: "new-figure",
  };
  assert.deepEqual(problemsOf([newcomer], w), [
    "newFigure.<stat>: no fixture's report has aggregate.newFigureMs: where does the report pool it?",
    "newFigure.<stat>: report key aggregate.newFigureMs is not in test/e2e/report-keys.ts",
    "newFigure.<stat>: docs/definitions.md has no heading #new-figure",
    ...["min", "mean", "p50", "p95", "p99", "max"].map(
      (s) => `newFigure.<stat>: threshold name newFigure.${s} is not in core/thresholds/figures.ts`,
    ),
    "newFigure.<stat>: /metrics has no family whipbench_new_figure_seconds",
    'newFigure.<stat>: the Markdown label "new figure per viewer" is not in the fixtures\' Markdown',
    "newFigure.<stat>: no HTML label and no reason why",
  ]);
  const { stats: _, ...noStats } = newcomer;
  const row: FigureDecl = { ...noStats, unit: "", row: { table: "render", at: 0 } };
  assert.deepEqual(rowProblems(row, "newFigure"), [
    'newFigure: a render row needs a summary (stats: "summary")',
    "newFigure: a render row needs a unit ms, % or s",
    "newFigure: freezeShare is at 0 of render too",
  ]);
  const big: FigureDecl = {
    ...noStats,
    html: { none: "x" },
    htmlBig: { card: "render", at: 1, stats: ["p50"] },
  };
  assert.deepEqual(bigProblems(big, "newFigure", w), [
    "newFigure: a big stat needs an HTML label (html or label)",
    "newFigure: a big stat names stats exactly when its figure is a summary",
    "newFigure: freezes.perViewerMinute is big stat 1 of render too",
  ]);
  const unshown: FigureDecl = { ...noStats, html: "made-up", htmlBig: { card: "render", at: 9 } };
  assert.deepEqual(bigProblems(unshown, "newFigure", w), [
    'newFigure: the fixtures\' HTML has no big stat "made-up"',
  ]);
  const summary: FigureDecl = { ...newcomer, pool: "perViewer" };
  assert.deepEqual(viewerProblems(summary, "newFigure"), [
    "newFigure: aggregate.newFigureMs is a summary over the viewers with no viewer source to pool",
  ]);
  assert.deepEqual(viewerProblems({ ...summary, viewer: { key: "rtp.newMs", at: 0 } }, "newFigure"), [
    "newFigure: signalling is at 0 of the aggregate's pooled keys too",
  ]);
  const figures = new Map([...w.figures, ["madeUp.p50", { unit: "ms" }]]);
  const reportKeys = new Set([...w.reportKeys, "aggregate.madeUpMs"]);
  const families = new Set([...w.families, "whipbench_made_up_total"]);
  assert.deepEqual(uncovered(FIGURE_REGISTRY, { ...w, figures, reportKeys, families }), [
    "threshold figure madeUp.p50 is declared in no registry entry",
    "report key aggregate.madeUpMs is neither a registry figure nor in NOT_IN_REGISTRY",
    "/metrics family whipbench_made_up_total is neither a registry figure's nor in METRICS_NOT_IN_REGISTRY",
  ]);
});

test("a summed count or a ratio of counts declared and not wired in is named with each missing piece", async () => {
  const w = await world();
  const counter: FigureDecl = {
    name: "framesDropped",
    threshold: false,
    unit: "",
    kind: "counter",
    pool: "sum",
    report: "aggregate.framesDropped",
    metric: { none: "an end-of-run count" },
    markdown: "frames dropped",
    html: { none: "the HTML report leaves it to the Markdown report" },
    anchor: "aggregate",
    viewer: { key: "framesDropped", at: 99 },
    row: { table: "aggregate.packets", at: 99 },
  };
  const id = "aggregate.framesDropped";
  assert.deepEqual(problemsOf([counter], w), [
    `${id}: no fixture's report has aggregate.framesDropped: where does the report pool it?`,
    `${id}: report key aggregate.framesDropped is not in test/e2e/report-keys.ts`,
    `${id}: docs/definitions.md#aggregate does not mention framesDropped`,
    `${id}: the Markdown label "frames dropped" is not in the fixtures' Markdown`,
    `${id}: report key viewers[].framesDropped is not in test/e2e/report-keys.ts`,
    `${id}: a joined viewer has no count framesDropped: where does the viewer count it?`,
    `${id}: no code under src/ (but core/figures, core/report) counts framesDropped (\`.framesDropped++\` or \`+=\`)`,
  ]);
  assert.deepEqual(
    viewerProblems({ ...counter, viewer: { key: "rtp.lost", at: 6, only: "twoKeyframes" } }, id),
    [
      `${id}: a sum keeps every joined viewer (no \`only\`)`,
      `${id}: stalls is at 6 of the aggregate's pooled keys too`,
    ],
  );
  const ratio: FigureDecl = {
    ...counter,
    unit: "%",
    kind: "ratio",
    pool: "ofSums",
    viewer: { part: "framesDropped", of: ["packetsReceived", "jitterMs"], at: 98 },
    row: { table: "aggregate.packets", at: -1 },
  };
  assert.deepEqual(viewerProblems(ratio, id), [
    `${id}: framesDropped is no summed count with a viewer source (its ratio divides it)`,
    `${id}: jitterMs is no summed count with a viewer source (its ratio divides it)`,
  ]);
  assert.deepEqual(rowProblems({ ...ratio, pool: "max" }, id), [
    `${id}: a aggregate.packets item needs pool sum or ofSums`,
  ]);
  assert.deepEqual(rowProblems(ratio, id), [
    `${id}: a ratio's aggregate.packets item needs a count before it`,
  ]);
});
