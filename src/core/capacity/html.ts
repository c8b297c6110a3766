// The capacity report as one self-contained HTML page (docs/definitions.md#capacity-report): the
// result, a chart per figure against viewers (inline SVG, no script, a CSP that forbids every
// fetch) with the threshold drawn as a line and the knee marked, then the Markdown's tables.

import { fmtG } from "../go-compat/fmt.ts";
import { escapeHtml } from "../report/html-sections.ts";
import { serverCells } from "./markdown.ts";
import type { CapacityReport, CapacityStep, StepFigures } from "./types.ts";

export interface Chart {
  title: string;
  points: { viewers: number; value: number; outcome: CapacityStep["outcome"] }[];
  /** the threshold's value, drawn as a horizontal line */
  line?: number;
}

const HEADLINES: { key: keyof StepFigures; title: string }[] = [
  { key: "oneWayDelayP99Ms", title: "one-way delay p99, ms" },
  { key: "lossPercent", title: "loss, %" },
  { key: "joinP95Ms", title: "join p95, ms" },
  { key: "receiveLagP99Ms", title: "client receive lag p99, ms" },
];

/** One chart per threshold (its observed value per step, the threshold as a line), then the headline figures and the server's CPU. */
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

const W = 420;
const H = 220;
const PAD = { l: 52, r: 12, t: 12, b: 34 };
const COLOUR: Record<CapacityStep["outcome"], string> = {
  pass: "#2a7",
  fail: "#c33",
  client: "#888",
  "no-verdict": "#888",
};

export function chartSvg(c: Chart, knee: number | undefined): string {
  const xs = c.points.map((p) => p.viewers);
  const ys = c.points.map((p) => p.value).concat(c.line !== undefined ? [c.line] : []);
  const xMax = Math.max(1, ...xs, knee ?? 0) * 1.05;
  // an all-zero figure (no loss anywhere) still gets a readable axis
  const top = Math.max(0, ...ys);
  const yMax = top > 0 ? top * 1.1 : 1;
  const x = (v: number) => PAD.l + (v / xMax) * (W - PAD.l - PAD.r);
  const y = (v: number) => H - PAD.b - (v / yMax) * (H - PAD.t - PAD.b);
  const sorted = [...c.points].sort((a, b) => a.viewers - b.viewers);
  const path = sorted.map((p) => `${fmt(x(p.viewers))},${fmt(y(p.value))}`).join(" ");
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${escapeHtml(c.title)}">`,
    `<line x1="${PAD.l}" y1="${H - PAD.b}" x2="${W - PAD.r}" y2="${H - PAD.b}" stroke="#444"/>`,
    `<line x1="${PAD.l}" y1="${PAD.t}" x2="${PAD.l}" y2="${H - PAD.b}" stroke="#444"/>`,
    `<text x="${PAD.l - 4}" y="${PAD.t + 8}" text-anchor="end" font-size="10">${fmtG(round(yMax))}</text>`,
    `<text x="${PAD.l - 4}" y="${H - PAD.b}" text-anchor="end" font-size="10">0</text>`,
    `<text x="${W - PAD.r}" y="${H - 6}" text-anchor="end" font-size="10">viewers (max ${fmtG(Math.round(xMax / 1.05))})</text>`,
  ];
  if (c.line !== undefined) {
    parts.push(
      `<line class="threshold" x1="${PAD.l}" y1="${fmt(y(c.line))}" x2="${W - PAD.r}" y2="${fmt(y(c.line))}" stroke="#c33" stroke-dasharray="5 3"/>`,
    );
  }
  if (knee !== undefined) {
    parts.push(
      `<line class="knee" x1="${fmt(x(knee))}" y1="${PAD.t}" x2="${fmt(x(knee))}" y2="${H - PAD.b}" stroke="#36c" stroke-dasharray="2 2"/>`,
      `<text x="${fmt(x(knee) + 3)}" y="${PAD.t + 10}" font-size="10" fill="#36c">knee ${knee}</text>`,
    );
  }
  for (const v of new Set(xs)) {
    parts.push(`<text x="${fmt(x(v))}" y="${H - PAD.b + 12}" text-anchor="middle" font-size="9">${v}</text>`);
  }
  if (sorted.length > 1) parts.push(`<polyline points="${path}" fill="none" stroke="#555"/>`);
  for (const p of sorted) {
    parts.push(
      `<circle class="step ${p.outcome}" cx="${fmt(x(p.viewers))}" cy="${fmt(y(p.value))}" r="3.5" fill="${COLOUR[p.outcome]}"><title>${p.viewers} viewers: ${fmtG(round(p.value))} (${p.outcome})</title></circle>`,
    );
  }
  parts.push("</svg>");
  return parts.join("");
}

function fmt(v: number): string {
  return v.toFixed(1);
}

function round(v: number): number {
  return Number(v.toPrecision(4));
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
  return `<table><thead><tr>${head.map((h) => `<th>${escapeHtml(h)}</th>`).join("")}</tr></thead><tbody>${rows.join("")}</tbody></table>`;
}

export function capacityToHtml(r: CapacityReport): string {
  const knee =
    r.result.limitedBy === "client" || r.result.limitedBy === "no-verdict" ? undefined : r.result.maxViewers;
  const title = `whipbench capacity${r.scenario.name ? ` — ${r.scenario.name}` : ""}`;
  const charts = capacityCharts(r)
    .map((c) => `<figure><figcaption>${escapeHtml(c.title)}</figcaption>${chartSvg(c, knee)}</figure>`)
    .join("\n");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{font-family:sans-serif;margin:1.5em;max-width:1400px}figure{display:inline-block;margin:0 1em 1em 0}figcaption{font-size:.9em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;font-size:.85em}</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
<p id="result"><strong>${escapeHtml(r.result.summary)}</strong> — limited by <code>${escapeHtml(r.result.limitedBy)}</code>; ${r.result.steps} step${r.result.steps === 1 ? "" : "s"} in ${Math.round(r.result.wallSeconds)} s${r.interrupted ? " (interrupted)" : ""}.</p>
<section id="charts">
${charts}
</section>
<h2>Steps</h2>
${stepsTable(r)}
<h2>Method</h2>
<ul>${r.method.map((m) => `<li>${escapeHtml(m)}</li>`).join("")}</ul>
</body>
</html>
`;
}
