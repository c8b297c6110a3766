// The comparison for people (Markdown, HTML) and machines (a JSON object).

import { fmtFixed } from "../go-compat/fmt.ts";
import { escapeHtml } from "../report/html-sections.ts";
import { esc } from "../report/markdown-cells.ts";
import { formatFigure } from "../report/threshold-render.ts";
import type { FigureUnit, FigureValue } from "../scenario/threshold-types.ts";
import type { CompareRow, Comparison, GateResult } from "./compare.ts";

/** What a side is called in the output: its file name and its verdict. */
export interface Side {
  label: string;
  verdict: string;
}

function valueText(v: FigureValue, unit: FigureUnit): string {
  return "value" in v ? formatFigure(v.value, unit) : `unavailable: ${v.unavailable}`;
}

function signed(v: number, unit: FigureUnit): string {
  // a change of a percentage is in percentage points
  const text = unit === "%" ? `${fmtFixed(Math.abs(v), 3)} pp` : formatFigure(Math.abs(v), unit);
  return `${v < 0 ? "−" : "+"}${text}`;
}

function diffText(r: CompareRow): string {
  if (r.diff === undefined) return "—";
  const pct =
    r.diffPercent !== undefined
      ? ` (${r.diffPercent < 0 ? "−" : "+"}${fmtFixed(Math.abs(r.diffPercent), 1)}%)`
      : "";
  return `${signed(r.diff, r.unit)}${pct}`;
}

function intervalText(r: CompareRow): string {
  if (r.interval === undefined) return "—";
  const i = r.interval;
  return `${signed(i.lowMs, "ms")} … ${signed(i.highMs, "ms")}`;
}

function gateText(g: GateResult): string {
  if (g.observed === undefined) return `unavailable: ${g.unavailable ?? ""}`;
  if (g.kind === "relative") return `${g.observed < 0 ? "−" : "+"}${fmtFixed(Math.abs(g.observed), 1)}%`;
  return g.kind === "change" ? signed(g.observed, g.unit) : formatFigure(g.observed, g.unit);
}

/** The exit decision's words: "rankable", or "not rankable: <reason>". */
export function rankLine(c: Comparison): string {
  const fp = c.rankable.fingerprint;
  const st = c.rankable.stamp;
  const head = fp.ok ? "rankable on the fingerprint one-way delay" : `not rankable: ${fp.reason}`;
  const stamp = st.ok ? "stamp source rankable too" : `stamp source not rankable: ${st.reason}`;
  return `${head}; ${stamp}`;
}

export const INTERVAL_METHOD =
  "95% interval: percentile bootstrap over viewers (2000 resamples, fixed seed) of the difference in the mean per-viewer percentile; the table's figures are the pooled, exactly merged ones.";

export function compareMarkdown(c: Comparison, base: Side, next: Side): string {
  const lines = [
    "# whipbench compare",
    "",
    `- BASE: \`${esc(base.label)}\` — ${esc(base.verdict)}`,
    `- NEW: \`${esc(next.label)}\` — ${esc(next.verdict)}`,
    "",
    `**${esc(rankLine(c))}.**`,
    "",
    "| figure | BASE | NEW | NEW − BASE | 95% interval of the difference |",
    "|---|---|---|---|---|",
    ...c.rows.map(
      (r) =>
        `| \`${r.figure}\` | ${esc(valueText(r.base, r.unit))} | ${esc(valueText(r.next, r.unit))} | ${diffText(r)} | ${intervalText(r)} |`,
    ),
    "",
    INTERVAL_METHOD,
    "",
  ];
  if (c.gates.length > 0) {
    lines.push("## Gates (--fail-on)", "", "| result | condition | observed |", "|---|---|---|");
    for (const g of c.gates)
      lines.push(`| ${g.tripped ? "**FAIL**" : "pass"} | \`${esc(g.text)}\` | ${esc(gateText(g))} |`);
    lines.push("");
  }
  return `${lines.join("\n")}\n`;
}

export interface ComparedPair {
  c: Comparison;
  base: Side;
  next: Side;
}

function htmlSection(p: ComparedPair): string {
  const { c, base, next } = p;
  const td = (t: string) => `<td>${escapeHtml(t)}</td>`;
  const rows = c.rows
    .map(
      (r) =>
        `<tr><td><code>${escapeHtml(r.figure)}</code></td>${td(valueText(r.base, r.unit))}${td(valueText(r.next, r.unit))}${td(diffText(r))}${td(intervalText(r))}</tr>`,
    )
    .join("\n");
  const gates =
    c.gates.length === 0
      ? ""
      : `<h3>Gates (--fail-on)</h3><table><tr><th>result</th><th>condition</th><th>observed</th></tr>${c.gates
          .map(
            (g) =>
              `<tr><td>${g.tripped ? "<b>FAIL</b>" : "pass"}</td><td><code>${escapeHtml(g.text)}</code></td>${td(gateText(g))}</tr>`,
          )
          .join("")}</table>`;
  return `<section>
<h2>${escapeHtml(base.label)} → ${escapeHtml(next.label)}</h2>
<ul><li>BASE: <code>${escapeHtml(base.label)}</code> — ${escapeHtml(base.verdict)}</li><li>NEW: <code>${escapeHtml(next.label)}</code> — ${escapeHtml(next.verdict)}</li></ul>
<p><b>${escapeHtml(rankLine(c))}.</b></p>
<table><tr><th>figure</th><th>BASE</th><th>NEW</th><th>NEW − BASE</th><th>95% interval of the difference</th></tr>
${rows}
</table>
${gates}
</section>`;
}

/** One self-contained page with every comparison of a `compare` call. */
export function compareHtml(pairs: readonly ComparedPair[]): string {
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>whipbench compare</title>
<style>body{font:14px system-ui,sans-serif;margin:24px}table{border-collapse:collapse}td,th{padding:3px 10px;border-bottom:1px solid #ddd;text-align:left}</style>
</head><body>
<h1>whipbench compare</h1>
${pairs.map(htmlSection).join("\n")}
<p>${escapeHtml(INTERVAL_METHOD)}</p>
</body></html>
`;
}

/** The comparison as plain data (for --json). */
export function compareObject(c: Comparison, base: Side, next: Side): Record<string, unknown> {
  return {
    base,
    new: next,
    rankable: c.rankable,
    rows: c.rows,
    gates: c.gates,
    method: INTERVAL_METHOD,
  };
}
