// The Markdown report's cohort table (docs/definitions.md#cohort-figures): one row per cohort and
// one for the unimpaired viewers, shown only with a valid verdict, as the aggregate is.

import type { LinkCounts } from "../link/types.ts";
import { esc, ms1OrNa } from "./markdown-cells.ts";
import { lossCell } from "./reasons.ts";
import type { CohortReport, Report } from "./types.ts";

function linkText(c: LinkCounts | undefined): string {
  if (c === undefined) return "—";
  return `${c.delayed} delayed, ${c.droppedLoss} lost, ${c.droppedQueue} queue-dropped of ${c.datagrams}`;
}

function row(c: CohortReport): string {
  const fp = c.oneWayDelay.find((b) => b.source === "fingerprint");
  const ok = fp?.available === true;
  const cells = [
    `\`${esc(c.name)}\``,
    `${c.joined}/${c.viewers}`,
    ok ? ms1OrNa(fp.ms?.p50) : "n/a",
    ok ? ms1OrNa(fp.ms?.p95) : "n/a",
    ok ? ms1OrNa(fp.keyframes.ms?.p50) : "n/a",
    ok ? ms1OrNa(fp.deltaFrames.ms?.p50) : "n/a",
    c.joinFirstKeyframeMs.n > 0 ? ms1OrNa(c.joinFirstKeyframeMs.p50) : "n/a",
    lossCell(c.lossPercentTotal, 3),
    `${c.nacksSent}`,
    `${c.lateCompletedFrames}`,
    `${c.incompleteFrames}`,
    `${c.stalls}`,
    linkText(c.link?.down),
    linkText(c.link?.up),
  ];
  return `| ${cells.join(" | ")} |`;
}

export function cohortsMarkdown(r: Report): string[] {
  const list = r.aggregate.cohorts;
  if (!r.aggregate.valid || list === undefined) return [];
  return [
    "## Cohorts",
    "",
    "| cohort | joined | delay p50 | delay p95 | keyframes p50 | delta p50 | join p50 | loss after repair | NACKs | late frames | incomplete | stalls | emulated down | emulated up |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|",
    ...list.map(row),
    "",
  ];
}
