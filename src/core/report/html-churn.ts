// The HTML report's churn card (docs/definitions.md#churn-figures): the counts of viewers, late
// joiners, joins and leaves, and the late joiners' setup and join as summaries, with the same
// texts as the Markdown's churn section; figures only with a valid verdict. Every value is escaped.

import { fmtFixed } from "../go-compat/fmt.ts";
import { escapeHtml } from "./html-sections.ts";
import { CHURN_ROWS, churnCountsText } from "./markdown-churn.ts";
import type { Report } from "./types.ts";

const DASH = "—";
const STATS = ["p50", "p95", "p99", "min", "max"] as const;

/** The churn card; empty without churn. */
export function churnSection(r: Report): string {
  const c = r.aggregate.churn;
  if (c === undefined) return "";
  const head = `<section id="churn" class="card"><h2>Churn</h2>`;
  if (!r.aggregate.valid) {
    return `${head}<p>No verdict: the churn figures stay in the JSON report and are not shown here as results.</p></section>`;
  }
  const th = ["late joiners", "n", ...STATS]
    .map((h, i) => `<th scope="col"${i > 0 ? ' class="num"' : ""}>${h}</th>`)
    .join("");
  const body = CHURN_ROWS.map(([label, pick]) => {
    const s = pick(c);
    const cells = [String(s.n), ...STATS.map((k) => (s.n > 0 ? `${fmtFixed(s[k], 1)} ms` : DASH))];
    return `<tr><th scope="row">${escapeHtml(label)}</th>${cells.map((v) => `<td class="num">${escapeHtml(v)}</td>`).join("")}</tr>`;
  }).join("");
  return `${head}<p>${escapeHtml(churnCountsText(c))}</p><div class="wrap"><table class="data churn"><thead><tr>${th}</tr></thead><tbody>${body}</tbody></table></div></section>`;
}
