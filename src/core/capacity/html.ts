// The capacity report as an HTML page in the shared page shell (report/html-page.ts, as the run
// report: style, uPlot, a CSP that forbids every fetch; docs/definitions.md#capacity-report): the
// result, a chart per figure against viewers with the threshold drawn as a line and the knee
// marked (html-capacity.browser.js draws them), then the steps and the method.

import { type HtmlAssets, htmlPage } from "../report/html-page.ts";
import { escapeHtml } from "../report/html-sections.ts";
import { serverCells } from "./markdown.ts";
import type { CapacityReport, CapacityStep, StepFigures } from "./types.ts";

export interface Chart {
  title: string;
  points: { viewers: number; value: number; outcome: CapacityStep["outcome"] }[];
  /** the threshold's value, drawn as a horizontal line */
  line?: number;
}

type NumericFigure = Exclude<keyof StepFigures, "stampSource">;

const HEADLINES: { key: NumericFigure; title: string }[] = [
  { key: "oneWayDelayP99Ms", title: "one-way delay p99, ms" },
  { key: "lossPercent", title: "loss, %" },
  { key: "joinP95Ms", title: "join p95, ms" },
  { key: "frozenP95Percent", title: "frozen share p95 over viewers, %" },
  { key: "freezesPerViewerMinute", title: "freezes per viewer-minute" },
  { key: "receiveLagP99Ms", title: "client receive lag p99, ms" },
];

/**
 * One chart per threshold (its observed value per step, the threshold as a line), then the headline
 * figures and the server's CPU.
 */
export function capacityCharts(r: CapacityReport): Chart[] {
  const charts: Chart[] = [];
  r.thresholds.forEach((t, i) => {
    const points = r.steps.flatMap((s) => {
      const v = s.thresholds[i]?.observed;
      return v === undefined ? [] : [{ viewers: s.viewers, value: v, outcome: s.outcome }];
    });
    charts.push({ title: `${t.figure} ${t.condition}`, points, line: t.value });
  });
  for (const h of HEADLINES) {
    const points = r.steps.flatMap((s) => {
      const v = s.figures[h.key];
      return v === undefined ? [] : [{ viewers: s.viewers, value: v, outcome: s.outcome }];
    });
    if (points.length > 0) charts.push({ title: h.title, points });
  }
  const cpu = r.steps.flatMap((s) => {
    const c = s.server?.cpuCores;
    return c !== undefined && "mean" in c ? [{ viewers: s.viewers, value: c.mean, outcome: s.outcome }] : [];
  });
  if (cpu.length > 0) charts.push({ title: "server CPU, cores", points: cpu });
  return charts;
}

/** The charts as the page script draws them: each with its element id. */
export function capacityChartData(r: CapacityReport): (Chart & { id: string })[] {
  return capacityCharts(r).map((c, i) => ({ id: `chart-capacity-${i}`, ...c }));
}

function stepsTable(r: CapacityReport): string {
  const head = [
    "#",
    "viewers",
    "outcome",
    "joined",
    "delay p99 ms",
    "loss %",
    "server CPU cores",
    "server RSS MiB",
    "failed thresholds",
  ];
  const rows = r.steps.map((s) => {
    const [cpu, rss] = serverCells(s);
    const failed = s.thresholds
      .filter((t) => !t.pass)
      .map((t) => t.figure)
      .join(", ");
    const cells = [
      String(s.index),
      String(s.viewers),
      s.outcome,
      `${s.figures.joined}/${s.viewers}`,
      s.figures.oneWayDelayP99Ms?.toFixed(1) ?? "—",
      s.figures.lossPercent?.toFixed(3) ?? "—",
      cpu,
      rss,
      failed || "—",
    ];
    return `<tr>${cells.map((c) => `<td>${escapeHtml(c)}</td>`).join("")}</tr>`;
  });
  return `<table class="data"><thead><tr>${head.map((h) => `<th>${escapeHtml(h)}</th>`).join("")}</tr></thead><tbody>${rows.join("")}</tbody></table>`;
}

export function capacityToHtml(r: CapacityReport, assets: HtmlAssets): string {
  const knee =
    r.result.limitedBy === "client" || r.result.limitedBy === "no-verdict" ? undefined : r.result.maxViewers;
  const title = `whipbench capacity${r.scenario.name ? ` — ${r.scenario.name}` : ""}`;
  const charts = capacityChartData(r);
  const chartDivs = charts
    .map(
      (c) =>
        `<div class="chart"><h3>${escapeHtml(c.title)}</h3><p class="note">per step, against its viewers: passing steps green, failing red, client-bound or no verdict grey${c.line !== undefined ? "; the threshold dashed" : ""}${knee !== undefined ? "; the knee a vertical line" : ""}</p><div id="${c.id}" data-chart></div></div>`,
    )
    .join("\n");
  const steps = `${r.result.steps} step${r.result.steps === 1 ? "" : "s"} in ${Math.round(r.result.wallSeconds)} s`;
  const cls = r.result.maxViewers !== undefined && knee !== undefined ? "valid" : "novalid";
  return htmlPage({
    title,
    heading: title,
    body: `<section class="card ${cls}" id="result"><p class="result">${escapeHtml(r.result.summary)}</p><p>limited by <code>${escapeHtml(r.result.limitedBy)}</code>; ${steps}${r.interrupted ? " (interrupted)" : ""}.</p></section>
<section class="charts">
${chartDivs}
</section>
<section class="card"><h2>Steps</h2><div class="wrap">${stepsTable(r)}</div></section>
<section class="card"><h2>Method</h2><ul>${r.method.map((m) => `<li>${escapeHtml(m)}</li>`).join("")}</ul></section>`,
    footer: `whipbench ${escapeHtml(r.whipbenchVersion)}, schema ${escapeHtml(r.schema)}.`,
    data: { knee: knee ?? null, charts },
    assets,
  });
}
