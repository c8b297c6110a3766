// The matrix table: a row per server, a column per scenario; each cell the chosen figure over the
// repeats (median, with the range), DNF with its reason when no repeat has a figure, and links to
// each repeat's report. Markdown and HTML.

import { escapeHtml } from "../report/html-sections.ts";
import { esc } from "../report/markdown-cells.ts";
import { formatFigure } from "../thresholds/evaluate.ts";
import type { FigureUnit, FigureValue } from "../thresholds/types.ts";
import type { Matrix } from "./parse.ts";

/** One repeat of one cell. */
export interface RunOutcome {
  server: string;
  scenario: string;
  repeat: number;
  /** report paths relative to the matrix's output directory; absent when the run wrote none */
  reportMd?: string;
  reportHtml?: string;
  valid: boolean;
  /** the verdict, or the error that kept the run from a report */
  verdict: string;
  value?: FigureValue;
  thresholdsFailed: boolean;
}

export interface CellSummary {
  text: string;
  dnf: boolean;
  runs: RunOutcome[];
}

function median(sorted: readonly number[]): number {
  const n = sorted.length;
  const mid = Math.floor(n / 2);
  return n % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

export function summariseCell(runs: readonly RunOutcome[], unit: FigureUnit): CellSummary {
  const values: number[] = [];
  let reason = "";
  for (const r of runs) {
    if (!r.valid) reason ||= r.verdict;
    else if (r.value !== undefined && "value" in r.value) values.push(r.value.value);
    else
      reason ||=
        r.value !== undefined && "unavailable" in r.value ? `unavailable: ${r.value.unavailable}` : r.verdict;
  }
  if (runs.length === 0) return { text: "not run", dnf: true, runs: [] };
  if (values.length === 0) return { text: `DNF: ${reason}`, dnf: true, runs: [...runs] };
  values.sort((a, b) => a - b);
  const fmt = (v: number) => formatFigure(v, unit);
  let text = fmt(median(values));
  if (values.length > 1) {
    text += ` (${fmt(values[0] ?? 0)} – ${fmt(values[values.length - 1] ?? 0)}, ${values.length} runs)`;
  }
  const missing = runs.length - values.length;
  if (missing > 0) text += `, ${missing} DNF`;
  return { text, dnf: false, runs: [...runs] };
}

export function cellsOf(m: Matrix, outcomes: readonly RunOutcome[], unit: FigureUnit): CellSummary[][] {
  return m.servers.map((s) =>
    m.scenarios.map((sc) =>
      summariseCell(
        outcomes.filter((o) => o.server === s.name && o.scenario === sc.name),
        unit,
      ),
    ),
  );
}

function mdLinks(c: CellSummary): string {
  const links = c.runs
    .filter((r) => r.reportMd !== undefined)
    .map((r) => `[r${r.repeat}](${encodeURI(r.reportMd ?? "")})`);
  return links.length > 0 ? ` · ${links.join(" ")}` : "";
}

export function matrixMarkdown(m: Matrix, cells: CellSummary[][]): string {
  const lines = [
    `# ${esc(m.name ?? "whipbench matrix")}`,
    "",
    `Each cell: \`${m.figure}\`, the median over ${m.repeats} repeat${m.repeats === 1 ? "" : "s"} (the range in brackets); DNF: no repeat gave the figure.`,
    "",
    `| | ${m.scenarios.map((s) => esc(s.name)).join(" | ")} |`,
    `|---|${m.scenarios.map(() => "---").join("|")}|`,
  ];
  for (const [i, s] of m.servers.entries()) {
    const row = (cells[i] ?? []).map((c) => `${esc(c.text)}${mdLinks(c)}`);
    lines.push(`| ${esc(s.name)} | ${row.join(" | ")} |`);
  }
  return `${lines.join("\n")}\n`;
}

export function matrixHtml(m: Matrix, cells: CellSummary[][]): string {
  const head = m.scenarios.map((s) => `<th>${escapeHtml(s.name)}</th>`).join("");
  const rows = m.servers
    .map((s, i) => {
      const tds = (cells[i] ?? [])
        .map((c) => {
          const links = c.runs
            .filter((r) => r.reportHtml !== undefined || r.reportMd !== undefined)
            .map(
              (r) => `<a href="${escapeHtml(encodeURI(r.reportHtml ?? r.reportMd ?? ""))}">r${r.repeat}</a>`,
            )
            .join(" ");
          return `<td class="${c.dnf ? "dnf" : "ok"}">${escapeHtml(c.text)}${links !== "" ? `<br><small>${links}</small>` : ""}</td>`;
        })
        .join("");
      return `<tr><th>${escapeHtml(s.name)}</th>${tds}</tr>`;
    })
    .join("\n");
  const title = m.name ?? "whipbench matrix";
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>${escapeHtml(title)}</title>
<style>body{font:14px system-ui,sans-serif;margin:24px}table{border-collapse:collapse}td,th{padding:4px 12px;border:1px solid #ddd;text-align:left;vertical-align:top}td.dnf{background:#fff4e0}</style>
</head><body>
<h1>${escapeHtml(title)}</h1>
<p>Each cell: <code>${escapeHtml(m.figure)}</code>, the median over ${m.repeats} repeat${m.repeats === 1 ? "" : "s"} (the range in brackets); DNF: no repeat gave the figure.</p>
<table><tr><th></th>${head}</tr>
${rows}
</table>
</body></html>
`;
}
