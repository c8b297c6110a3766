// The HTML report: one self-contained page beside the JSON and the Markdown. The charting library
// (uPlot, MIT), its stylesheet and the page's own script are inlined; a Content-Security-Policy
// forbids every fetch, so the page reads the same offline. Pure: the caller hands in the texts.

import { thresholdsHtml } from "../thresholds/render.ts";
import type { DelayDistribution } from "./distribution.ts";
import { chartData } from "./html-data.ts";
import { escapeHtml, headerFacts, titleOf, verdictSection, viewerTable } from "./html-sections.ts";
import type { Report } from "./types.ts";

export interface HtmlAssets {
  /** uPlot's minified IIFE build (defines the global `uPlot`) */
  chartJs: string;
  chartCss: string;
  /** the licence text of the charting library, kept with it */
  chartLicense: string;
  /** the page script that draws the charts from the embedded data */
  pageJs: string;
}

/** The charts, in page order: id, title, what the axes hold. */
export const CHARTS = [
  {
    id: "chart-timeline",
    title: "Viewers and packets per second",
    note: "active viewers (left), packets/s (right)",
  },
  {
    id: "chart-client",
    title: "Client CPU and event-loop delay per second",
    note: "process CPU, % of all cores (left); worst shard thread's p99 event-loop delay, ms (right)",
  },
  {
    id: "chart-delay-hist",
    title: "One-way delay distribution",
    note: "% of each series' samples per bin (log-spaced bins, 20 a decade), pooled over joined viewers",
  },
  {
    id: "chart-delay-cdf",
    title: "One-way delay CDF",
    note: "cumulative % of samples at or below each delay",
  },
  {
    id: "chart-joins",
    title: "Join time per viewer, in start order",
    note: "WHEP POST → first complete keyframe, ms; viewers that did not join are left out and counted in the title",
  },
] as const;

const STYLE = `
:root{--fg:#1d232a;--muted:#5b6670;--bg:#fff;--card:#f5f7f9;--ok:#1b7f3b;--warn:#a15c00;--bad:#b3261e;--line:#d7dde3}
*{box-sizing:border-box}body{margin:0;padding:24px;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
h1{margin:0 0 12px;font-size:22px}h2{margin:0 0 8px;font-size:18px}h3{margin:14px 0 6px;font-size:15px}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:14px 18px;margin:0 0 18px}
.valid{border-left:6px solid var(--ok)}.novalid{border-left:6px solid var(--bad)}
.verdict{font-size:17px;font-weight:600;margin:0 0 6px}.banner.warn{background:#fff4e0;border:1px solid var(--warn);padding:8px 12px;border-radius:6px}
li.ok::marker{color:var(--ok)}li.warn::marker{color:var(--warn)}ul{margin:4px 0;padding-left:20px}
details summary{cursor:pointer;font-weight:600;margin-top:10px}details li{color:var(--muted)}
table{border-collapse:collapse}.facts th{text-align:left;padding:2px 14px 2px 0;color:var(--muted);font-weight:500;vertical-align:top}.facts td{padding:2px 0}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(560px,1fr));gap:18px;margin-bottom:18px}
.chart{background:var(--bg);border:1px solid var(--line);border-radius:8px;padding:10px 12px}.chart h3{margin:0}.chart .note{color:var(--muted);font-size:12px;margin:2px 0 6px}
.nodata{color:var(--muted);font-style:italic;padding:30px 0}
.viewers{width:100%;font-size:13px}.viewers th,.viewers td{border-bottom:1px solid var(--line);padding:4px 8px;text-align:left;white-space:nowrap}
.viewers td.num{text-align:right;font-variant-numeric:tabular-nums}.viewers tr.failed td{color:var(--bad)}
.wrap{overflow-x:auto}footer{color:var(--muted);font-size:12px;margin-top:18px}
`;

/** JSON safe inside a <script> element: no `<` can close it. */
function scriptJson(v: unknown): string {
  return JSON.stringify(v).replace(/</g, "\\u003c");
}

/** A script body that cannot close its element early. */
function scriptText(js: string): string {
  return js.replace(/<\/(script)/gi, "<\\/$1");
}

export function reportToHtml(r: Report, d: DelayDistribution | null, assets: HtmlAssets): string {
  const title = titleOf(r);
  // like the Markdown, a run without a verdict shows no delay figure (the JSON keeps them)
  const valid = r.aggregate.valid;
  const data = {
    charts: chartData(r, valid ? d : null),
    noDelayReason: valid
      ? (r.aggregate.oneWayDelay.find((b) => b.source === "fingerprint")?.reason ?? "no one-way delay figure")
      : "no verdict: the one-way delay figures stay in the JSON report",
  };
  const charts = CHARTS.map(
    (c) =>
      `<div class="chart"><h3>${escapeHtml(c.title)}</h3><p class="note">${escapeHtml(c.note)}</p><div id="${c.id}" data-chart></div></div>`,
  ).join("\n");
  const csp =
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} — whipbench report</title>
<style>${assets.chartCss}</style>
<style>${STYLE}</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
${verdictSection(r)}
${thresholdsHtml(r)}
<section class="card">${headerFacts(r)}</section>
<section class="charts">
${charts}
</section>
<section class="card"><h2>Viewers</h2><div class="wrap">${viewerTable(r)}</div></section>
<footer>whipbench ${escapeHtml(r.whipbenchVersion)}, schema ${escapeHtml(r.schema)}. Charts drawn by uPlot (MIT licence, inlined in this file).</footer>
<script type="application/json" id="whipbench-data">${scriptJson(data)}</script>
<script>/*
${scriptText(assets.chartLicense.replace(/\*\//g, "* /"))}
*/
${scriptText(assets.chartJs)}</script>
<script>${scriptText(assets.pageJs)}</script>
</body>
</html>
`;
}
