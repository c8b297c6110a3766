// The matrix as an HTML page in the shared page shell (report/html-page.ts): the rule, the table
// (each cell's text and links to its repeats' reports), a chart per scenario drawing each
// server's figure — its comparable repeats, their median and range, and the not-comparable
// repeats apart — and the list of repeats that were not ranked. Pure: the caller hands in the
// page's texts (the chart library and script).

import { type HtmlAssets, htmlPage } from "../report/html-page.ts";
import { escapeHtml } from "../report/html-sections.ts";
import type { FigureUnit } from "../scenario/threshold-types.ts";
import type { Matrix } from "./parse.ts";
import { type CellSummary, matrixRule, notComparableLines } from "./table.ts";

/** What the page script draws for one scenario: a point set per server, in the table's order. */
export interface MatrixChartData {
  id: string;
  scenario: string;
  servers: {
    name: string;
    comparable: { repeat: number; value: number }[];
    notComparable: { repeat: number; value: number; reason: string }[];
    median?: number;
    min?: number;
    max?: number;
  }[];
}

export function matrixChartData(m: Matrix, cells: CellSummary[][]): MatrixChartData[] {
  return m.scenarios.map((sc, j) => ({
    id: `chart-scenario-${j}`,
    scenario: sc.name,
    servers: m.servers.map((s, i) => {
      const c = cells[i]?.[j];
      return {
        name: s.name,
        comparable: c?.values ?? [],
        notComparable: c?.notComparable ?? [],
        ...(c?.median !== undefined
          ? { median: c.median, min: c.min ?? c.median, max: c.max ?? c.median }
          : {}),
      };
    }),
  }));
}

function cellHtml(c: CellSummary): string {
  const links = c.runs
    .filter((r) => r.reportHtml !== undefined || r.reportMd !== undefined)
    .map((r) => `<a href="${escapeHtml(encodeURI(r.reportHtml ?? r.reportMd ?? ""))}">r${r.repeat}</a>`)
    .join(" ");
  const cls = c.dnf ? "dnf" : c.comparable === 0 ? "nc" : "ok";
  return `<td class="${cls}">${escapeHtml(c.text)}${links !== "" ? `<br><small>${links}</small>` : ""}</td>`;
}

function tableHtml(m: Matrix, cells: CellSummary[][]): string {
  const head = m.scenarios.map((s) => `<th>${escapeHtml(s.name)}</th>`).join("");
  const rows = m.servers
    .map((s, i) => `<tr><th>${escapeHtml(s.name)}</th>${(cells[i] ?? []).map(cellHtml).join("")}</tr>`)
    .join("\n");
  return `<table class="data matrix"><tr><th></th>${head}</tr>\n${rows}\n</table>`;
}

export function matrixHtml(m: Matrix, cells: CellSummary[][], unit: FigureUnit, assets: HtmlAssets): string {
  const title = m.name ?? "whipbench matrix";
  const charts = matrixChartData(m, cells);
  const chartDivs = charts
    .map(
      (c) =>
        `<div class="chart"><h3>${escapeHtml(c.scenario)}</h3><p class="note">${escapeHtml(m.figure)} per server: comparable repeats (blue), their median (black) and range (bar); not-comparable repeats apart, to the right (orange, not ranked)</p><div id="${c.id}" data-chart></div></div>`,
    )
    .join("\n");
  const apart = notComparableLines(m, cells, unit);
  const apartHtml =
    apart.length === 0
      ? ""
      : `<section class="card"><h2>Not comparable, so not ranked</h2><ul>${apart.map((l) => `<li>${escapeHtml(l)}</li>`).join("")}</ul></section>`;
  return htmlPage({
    title: `${title} — whipbench matrix`,
    heading: title,
    body: `<section class="card"><p id="rule">${escapeHtml(matrixRule(m))}</p><div class="wrap">${tableHtml(m, cells)}</div></section>
<section class="charts">
${chartDivs}
</section>
${apartHtml}`,
    footer: "whipbench matrix.",
    data: { figure: m.figure, unit, charts },
    assets,
  });
}
