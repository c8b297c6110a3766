// The Markdown report's churn section (docs/definitions.md#churn-figures): joins, leaves and the
// late joiners' setup and join, shown only with a valid verdict, as the aggregate is.

import { summaryRow } from "./markdown-cells.ts";
import type { Report } from "./types.ts";

export function churnMarkdown(r: Report): string[] {
  const c = r.aggregate.churn;
  if (!r.aggregate.valid || c === undefined) return [];
  return [
    "## Churn",
    "",
    `${c.viewers} viewers in all; late joiners ${c.lateJoiners} (${c.lateJoins} joined); joins ${c.joins}; leaves ${c.leaves} (a WHEP DELETE at a lifetime's end).`,
    "",
    "| late joiners | n | p50 | p95 | p99 | min | max |",
    "|---|---:|---:|---:|---:|---:|---:|",
    summaryRow("setup: signalling (POST → answer)", c.lateSignallingMs, "ms"),
    summaryRow("setup: ICE connected", c.lateIceConnectedMs, "ms"),
    summaryRow("join: first keyframe", c.lateJoinFirstKeyframeMs, "ms"),
    "",
  ];
}
