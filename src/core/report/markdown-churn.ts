// The Markdown report's churn section (docs/definitions.md#churn-figures): joins, leaves and the
// late joiners' setup and join, shown only with a valid verdict, as the aggregate is. The counts'
// sentence and the rows' labels are shared with the HTML report's churn card (html-churn.ts).

import type { Summary } from "../types.ts";
import type { ChurnReport } from "./churn-types.ts";
import { summaryRow } from "./markdown-cells.ts";
import type { Report } from "./types.ts";

/** The late joiners' summaries, in table order: a row label and the summary it shows. */
export const CHURN_ROWS: readonly (readonly [label: string, pick: (c: ChurnReport) => Summary])[] = [
  ["setup: signalling (POST → answer)", (c) => c.lateSignallingMs],
  ["setup: ICE connected", (c) => c.lateIceConnectedMs],
  ["join: first keyframe", (c) => c.lateJoinFirstKeyframeMs],
];

/** The churn counts as one sentence. */
export function churnCountsText(c: ChurnReport): string {
  return `${c.viewers} viewers in all; late joiners ${c.lateJoiners} (${c.lateJoins} joined); joins ${c.joins}; leaves ${c.leaves} (a WHEP DELETE at a lifetime's end).`;
}

export function churnMarkdown(r: Report): string[] {
  const c = r.aggregate.churn;
  if (!r.aggregate.valid || c === undefined) return [];
  return [
    "## Churn",
    "",
    churnCountsText(c),
    "",
    "| late joiners | n | p50 | p95 | p99 | min | max |",
    "|---|---:|---:|---:|---:|---:|---:|",
    ...CHURN_ROWS.map(([label, pick]) => summaryRow(label, pick(c), "ms")),
    "",
  ];
}
