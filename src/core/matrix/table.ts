// The matrix table (docs/definitions.md#matrix-ranking): a row per server, a column per scenario;
// each cell the chosen figure as the median over its comparable repeats (with their range) and
// how many of its repeats were comparable, "not comparable" when none was, DNF with its reason
// when no repeat has a figure, and links to each repeat's report. The Markdown; the HTML page is
// html.ts.

import { esc } from "../report/markdown-cells.ts";
import { formatFigure } from "../report/threshold-render.ts";
import type { FigureUnit, FigureValue } from "../scenario/threshold-types.ts";
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
  /** may this repeat be ranked (docs/definitions.md#matrix-ranking) */
  comparable: boolean;
  notComparableReason?: string;
}

/** A repeat that gave the figure but may not be ranked. */
export interface NotComparable {
  repeat: number;
  value: number;
  reason: string;
}

export interface CellSummary {
  text: string;
  dnf: boolean;
  runs: RunOutcome[];
  /** repeats whose figure is comparable, and of how many */
  comparable: number;
  repeats: number;
  /** over the comparable repeats only; absent when none was */
  median?: number;
  min?: number;
  max?: number;
  /** the comparable repeats' figures, in repeat order */
  values: { repeat: number; value: number }[];
  notComparable: NotComparable[];
}

function median(sorted: readonly number[]): number {
  const n = sorted.length;
  const mid = Math.floor(n / 2);
  return n % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

function figureOf(r: RunOutcome): number | undefined {
  return r.valid && r.value !== undefined && "value" in r.value ? r.value.value : undefined;
}

function dnfReason(r: RunOutcome): string {
  if (!r.valid) return r.verdict;
  return r.value !== undefined && "unavailable" in r.value
    ? `unavailable: ${r.value.unavailable}`
    : r.verdict;
}

export function summariseCell(runs: readonly RunOutcome[], unit: FigureUnit): CellSummary {
  const sorted = [...runs].sort((a, b) => a.repeat - b.repeat);
  const values: { repeat: number; value: number }[] = [];
  const notComparable: NotComparable[] = [];
  let reason = "";
  for (const r of sorted) {
    const v = figureOf(r);
    if (v === undefined) reason ||= dnfReason(r);
    else if (r.comparable) values.push({ repeat: r.repeat, value: v });
    else
      notComparable.push({ repeat: r.repeat, value: v, reason: r.notComparableReason ?? "not comparable" });
  }
  const base = { runs: sorted, comparable: values.length, repeats: runs.length, values, notComparable };
  if (runs.length === 0) return { ...base, text: "not run", dnf: true };
  const missing = runs.length - values.length - notComparable.length;
  if (values.length === 0 && notComparable.length === 0)
    return { ...base, text: `DNF: ${reason}`, dnf: true };
  const dnfNote = missing > 0 ? `, ${missing} DNF` : "";
  if (values.length === 0) {
    return { ...base, text: `not comparable (0 of ${runs.length} repeats${dnfNote})`, dnf: false };
  }
  const fmt = (v: number) => formatFigure(v, unit);
  const ordered = values.map((v) => v.value).sort((a, b) => a - b);
  const [lo, hi] = [ordered[0] ?? 0, ordered[ordered.length - 1] ?? 0];
  const mid = median(ordered);
  const range = ordered.length > 1 ? `${fmt(lo)} – ${fmt(hi)}; ` : "";
  const text = `${fmt(mid)} (${range}${values.length} of ${runs.length} comparable${dnfNote})`;
  return { ...base, text, dnf: false, median: mid, min: lo, max: hi };
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

/** The rule every cell follows, stated above the table (Markdown and HTML). */
export function matrixRule(m: Matrix): string {
  const n = `${m.repeats} repeat${m.repeats === 1 ? "" : "s"}`;
  return (
    `Each cell: ${m.figure}, the median over its comparable repeats of ${n} (their range first in brackets) and how many were comparable. ` +
    "Only comparable repeats are ranked: a repeat is comparable when its run has a verdict and its figure may be ranked " +
    "(a one-way delay figure: its block is comparable, i.e. the clock measured within 1 ms, no clock step and the client not near its own ceiling; " +
    "any other figure: the client was not near its own ceiling). " +
    "A cell without a comparable repeat says not comparable instead of a figure; DNF: no repeat gave the figure."
  );
}

/**
 * The repeats that gave a figure but may not be ranked, one line each (server × scenario rN: value,
 * reason).
 */
export function notComparableLines(m: Matrix, cells: CellSummary[][], unit: FigureUnit): string[] {
  const out: string[] = [];
  for (const [i, s] of m.servers.entries()) {
    for (const [j, sc] of m.scenarios.entries()) {
      for (const n of cells[i]?.[j]?.notComparable ?? []) {
        out.push(
          `${s.name} × ${sc.name} r${n.repeat}: ${formatFigure(n.value, unit)}, not ranked: ${n.reason}`,
        );
      }
    }
  }
  return out;
}

function mdLinks(c: CellSummary): string {
  const links = c.runs
    .filter((r) => r.reportMd !== undefined)
    .map((r) => `[r${r.repeat}](${encodeURI(r.reportMd ?? "")})`);
  return links.length > 0 ? ` · ${links.join(" ")}` : "";
}

export function matrixMarkdown(m: Matrix, cells: CellSummary[][], unit: FigureUnit): string {
  const lines = [
    `# ${esc(m.name ?? "whipbench matrix")}`,
    "",
    esc(matrixRule(m)).replace(m.figure, `\`${m.figure}\``),
    "",
    `| | ${m.scenarios.map((s) => esc(s.name)).join(" | ")} |`,
    `|---|${m.scenarios.map(() => "---").join("|")}|`,
  ];
  for (const [i, s] of m.servers.entries()) {
    const row = (cells[i] ?? []).map((c) => `${esc(c.text)}${mdLinks(c)}`);
    lines.push(`| ${esc(s.name)} | ${row.join(" | ")} |`);
  }
  const apart = notComparableLines(m, cells, unit);
  if (apart.length > 0)
    lines.push("", "Not comparable, so not ranked:", "", ...apart.map((l) => `- ${esc(l)}`));
  return `${lines.join("\n")}\n`;
}
