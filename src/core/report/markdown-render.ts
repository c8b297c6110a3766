// The Markdown report's "What viewers saw" section (docs/definitions.md#viewer-experience-pooled):
// the frozen share and the other per-viewer distributions, the pooled counts in one paragraph,
// and with cohorts one row per cohort beside the unimpaired viewers. Shown only with a valid
// verdict, as the aggregate is.

import { fmtFixed } from "../go-compat/fmt.ts";
import { DASH, esc, frameEndsText, summaryRows } from "./markdown-cells.ts";
import type { PooledRenderBlock } from "./render-types.ts";
import type { CohortReport, Report } from "./types.ts";

/** The pooled counts as one sentence. */
function countsText(b: PooledRenderBlock): string {
  const rate =
    b.freezesPerViewerMinute === undefined
      ? ""
      : ` (${fmtFixed(b.freezesPerViewerMinute, 2)} per viewer-minute)`;
  return (
    `Frames: ${b.framesShown} shown, ${b.framesNotDecodable} not decodable, ${b.framesLate} late, on ${b.viewers} viewers judged (reference finder: ${esc(frameEndsText(b.viewersByFinder))}). ` +
    `${b.freezes} freezes${rate}, ${fmtFixed(b.frozenSeconds, 1)} s frozen of ${fmtFixed(b.measuredSeconds, 1)} s judged, the longest ${fmtFixed(b.longestFreezeMs, 0)} ms; ` +
    `${b.pauses} pauses (${fmtFixed(b.pausedSeconds, 1)} s); ${b.recoveries} recoveries; ${b.plisSent} PLIs sent, ${b.plisAnswered} answered by a shown keyframe.`
  );
}

function cohortRow(c: CohortReport): string {
  const b = c.render;
  const ok = b?.available === true;
  const pct = (v: number | undefined) => (ok && v !== undefined ? `${fmtFixed(v, 2)}%` : "n/a");
  const cells = [
    `\`${esc(c.name)}\``,
    `${b?.viewers ?? 0}/${c.joined}`,
    pct(b?.frozenPercent.p50),
    pct(b?.frozenPercent.p95),
    ok ? String(b.freezes) : "n/a",
    ok && b.freezesPerViewerMinute !== undefined ? fmtFixed(b.freezesPerViewerMinute, 2) : "n/a",
    ok ? `${fmtFixed(b.frozenSeconds, 1)} s` : "n/a",
    ok ? `${fmtFixed(b.longestFreezeMs, 0)} ms` : "n/a",
    ok && b.endGapMs.n > 0 ? `${fmtFixed(b.endGapMs.max, 0)} ms` : "n/a",
  ];
  return `| ${cells.join(" | ")} |`;
}

function cohortLines(list: readonly CohortReport[] | undefined): string[] {
  if (list === undefined) return [];
  return [
    "| cohort | judged | frozen p50 | frozen p95 | freezes | per viewer-minute | frozen | longest | end gap max |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...list.map(cohortRow),
    "",
  ];
}

export function renderMarkdown(r: Report): string[] {
  const a = r.aggregate;
  const b = a.render;
  if (!a.valid || b === undefined) return [];
  const lines = ["## What viewers saw", ""];
  if (!b.available) {
    lines.push(`**What viewers saw: unavailable** ${DASH} ${esc(b.reason ?? "")}.`, "");
    return [...lines, ...cohortLines(a.cohorts)];
  }
  lines.push(
    "| figure | n | p50 | p95 | p99 | min | max |",
    "|---|---:|---:|---:|---:|---:|---:|",
    ...summaryRows(r, "render"),
    "",
    countsText(b),
    "",
  );
  if ((b.reason ?? "") !== "") lines.push(`What viewers saw ${esc(b.reason ?? "")}.`, "");
  return [...lines, ...cohortLines(a.cohorts)];
}
