// Thresholds for people and CI: the report's Markdown and HTML sections, the short Markdown
// summary for a CI job summary (--summary-md), and JUnit XML (--junit), one testcase per threshold;
// what they print of a judged threshold (thresholds/evaluate.ts judges).

import { fmtFixed, fmtG } from "../go-compat/fmt.ts";
import type { FigureUnit, ThresholdResult } from "../scenario/threshold-types.ts";
import { escapeHtml } from "./html-sections.ts";
import { esc } from "./markdown-cells.ts";
import type { Report } from "./types.ts";

/** A figure's value for people: "12.3 ms", "1.250 s", "0.500%", "3". */
export function formatFigure(v: number, unit: FigureUnit): string {
  if (unit === "ms") return `${fmtFixed(v, 1)} ms`;
  if (unit === "s") return `${fmtFixed(v, 3)} s`;
  if (unit === "%") return `${fmtFixed(v, 3)}%`;
  return Number.isInteger(v) ? String(v) : fmtG(v);
}

/** The text of what stopped a run: "stopped at 4 s by oneWayDelay.p95 < 1ms (live 3.2 ms)". */
export function stopText(x: ThresholdResult): string | null {
  if (x.stoppedRun === undefined) return null;
  return `stopped at ${fmtG(x.stoppedRun.atS)} s by ${x.figure} ${x.condition} (live ${formatFigure(x.stoppedRun.liveObserved, x.unit as FigureUnit)})`;
}

/** The observed value, or "unavailable: <reason>". */
export function observedText(x: ThresholdResult): string {
  if (x.observed === undefined) return `unavailable: ${x.unavailable ?? "no figure"}`;
  return formatFigure(x.observed, x.unit as FigureUnit);
}

function tableRows(list: readonly ThresholdResult[]): string[] {
  return list.map((x) => {
    const stop = stopText(x);
    return `| ${x.pass ? "pass" : "**FAIL**"} | \`${esc(x.figure)}\` | \`${esc(x.condition)}\` | ${esc(observedText(x))}${stop !== null ? ` (${esc(stop)})` : ""} |`;
  });
}

/** The report's Markdown section (nothing when the scenario has no thresholds). */
export function thresholdsMarkdown(r: Report): string[] {
  const list = r.thresholds;
  if (list === undefined || list.length === 0) return [];
  const lines = ["## Thresholds", ""];
  if (!r.aggregate.valid)
    lines.push("The run has no verdict: the thresholds below do not decide it (exit 3).", "");
  lines.push("| result | figure | condition | observed |", "|---|---|---|---|", ...tableRows(list), "");
  return lines;
}

/** The report's HTML section (empty when the scenario has no thresholds). */
export function thresholdsHtml(r: Report): string {
  const list = r.thresholds;
  if (list === undefined || list.length === 0) return "";
  const rows = list
    .map((x) => {
      const stop = stopText(x);
      return `<tr class="${x.pass ? "ok" : "warn"}"><td>${x.pass ? "pass" : "<b>FAIL</b>"}</td><td><code>${escapeHtml(x.figure)}</code></td><td><code>${escapeHtml(x.condition)}</code></td><td>${escapeHtml(observedText(x))}${stop !== null ? ` — ${escapeHtml(stop)}` : ""}</td></tr>`;
    })
    .join("");
  const note = r.aggregate.valid ? "" : "<p>The run has no verdict: these thresholds do not decide it.</p>";
  return `<section id="thresholds" class="card"><h2>Thresholds</h2>${note}<table class="facts"><tr><th>result</th><th>figure</th><th>condition</th><th>observed</th></tr>${rows}</table></section>`;
}

/** A short Markdown summary for a CI job summary: title, verdict, the thresholds table. */
export function summaryMarkdown(r: Report): string {
  const name = r.scenario.name ?? `whipbench ${r.command}`;
  const lines = [`### whipbench: ${esc(name)}`, "", `**${esc(r.aggregate.verdict)}**`, ""];
  const list = r.thresholds ?? [];
  if (list.length > 0) {
    lines.push("| result | figure | condition | observed |", "|---|---|---|---|", ...tableRows(list), "");
  } else {
    lines.push("No thresholds in this scenario.", "");
  }
  return `${lines.join("\n")}\n`;
}

/** XML 1.0 text: the five entities escaped, characters XML cannot carry dropped. */
export function xmlEscape(text: string): string {
  return text
    .replace(/[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}

interface Case {
  name: string;
  failure: string | null;
}

/**
 * JUnit XML: one testsuite, a testcase "verdict" (fails when the run has no verdict), then one
 * testcase per threshold whose failure says what was observed and what was wanted.
 */
export function junitXml(r: Report): string {
  const cases: Case[] = [{ name: "verdict", failure: r.aggregate.valid ? null : r.aggregate.verdict }];
  for (const x of r.thresholds ?? []) {
    const stop = stopText(x);
    cases.push({
      name: `${x.figure} ${x.condition}`,
      failure: x.pass
        ? null
        : `observed ${observedText(x)}, wanted ${x.condition}${stop !== null ? `; ${stop}` : ""}`,
    });
  }
  const failures = cases.filter((c) => c.failure !== null).length;
  const suite = `whipbench ${r.scenario.name ?? r.command}`;
  const durationS = (Date.parse(r.finishedAt) - Date.parse(r.startedAt)) / 1000;
  const time = Number.isFinite(durationS) ? durationS.toFixed(3) : "0";
  const body = cases
    .map((c) => {
      const open = `    <testcase classname="whipbench.thresholds" name="${xmlEscape(c.name)}" time="0"`;
      if (c.failure === null) return `${open}/>`;
      return `${open}>\n      <failure type="threshold" message="${xmlEscape(c.failure)}">${xmlEscape(c.failure)}</failure>\n    </testcase>`;
    })
    .join("\n");
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites name="whipbench" tests="${cases.length}" failures="${failures}" errors="0" time="${time}">`,
    `  <testsuite name="${xmlEscape(suite)}" tests="${cases.length}" failures="${failures}" errors="0" skipped="0" timestamp="${xmlEscape(r.startedAt)}" time="${time}">`,
    body,
    "  </testsuite>",
    "</testsuites>",
    "",
  ].join("\n");
}
