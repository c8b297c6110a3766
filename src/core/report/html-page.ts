// The page shell every whipbench HTML page shares (the run report, the capacity report, the
// matrix): one stylesheet, the charting library (uPlot, MIT) with its stylesheet and licence, the
// page's own script and its data, all inlined; a Content-Security-Policy forbids every fetch, so
// a page reads the same offline. Pure: the caller hands in the texts.

import { escapeHtml } from "./html-sections.ts";

export interface HtmlAssets {
  /** uPlot's minified IIFE build (defines the global `uPlot`) */
  chartJs: string;
  chartCss: string;
  /** the licence text of the charting library, kept with it */
  chartLicense: string;
  /** the page script that draws the charts from the embedded data */
  pageJs: string;
}

/** The shared stylesheet: cards, tables, the chart grid (each page adds its own classes here). */
export const PAGE_STYLE = `
:root{--fg:#1d232a;--muted:#5b6670;--bg:#fff;--card:#f5f7f9;--ok:#1b7f3b;--warn:#a15c00;--bad:#b3261e;--line:#d7dde3}
*{box-sizing:border-box}
body{margin:0;padding:24px;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
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
.data{font-size:13px}.data th,.data td{border-bottom:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
.data td.num{text-align:right;font-variant-numeric:tabular-nums}.data td.dnf{background:#fff4e0}.data td.nc{color:var(--warn)}
.result{font-size:17px;font-weight:600;margin:0 0 6px}.muted{color:var(--muted)}
.stats{display:flex;flex-wrap:wrap;gap:24px;margin:6px 0 10px}.stat .label{color:var(--muted);font-size:12px}.stat .value{font-size:22px;font-weight:600;font-variant-numeric:tabular-nums}
.note{color:var(--muted);font-size:12px}
`;

/** JSON safe inside a <script> element: no `<` can close it. */
function scriptJson(v: unknown): string {
  return JSON.stringify(v).replace(/</g, "\\u003c");
}

/** A script body that cannot close its element early. */
function scriptText(js: string): string {
  return js.replace(/<\/(script)/gi, "<\\/$1");
}

export interface PageParts {
  /** the document title (escaped here) */
  title: string;
  /** the page's h1 (escaped here) */
  heading: string;
  /** the page's sections, already HTML */
  body: string;
  /** HTML before the charting library's credit */
  footer: string;
  /** what the page script reads from #whipbench-data */
  data: unknown;
  assets: HtmlAssets;
}

const CSP =
  "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

export function htmlPage(p: PageParts): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(p.title)}</title>
<style>${p.assets.chartCss}</style>
<style>${PAGE_STYLE}</style>
</head>
<body>
<h1>${escapeHtml(p.heading)}</h1>
${p.body}
<footer>${p.footer} Charts drawn by uPlot (MIT licence, inlined in this file).</footer>
<script type="application/json" id="whipbench-data">${scriptJson(p.data)}</script>
<script>/*
${scriptText(p.assets.chartLicense.replace(/\*\//g, "* /"))}
*/
${scriptText(p.assets.chartJs)}</script>
<script>${scriptText(p.assets.pageJs)}</script>
</body>
</html>
`;
}
