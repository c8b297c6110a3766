// The HTML report's reference viewers section (docs/definitions.md#reference-viewers): one column
// per group (the whole run first, then the cohort entries that had any), one row per figure beside
// the model's, then each group's agreement line. Shown only with a valid verdict; every value is
// escaped; absent without reference viewers.
import { escapeHtml } from "./html-sections.ts";
import {
  REFERENCE_HEADS,
  referenceCells,
  referenceCountText,
  referenceGroups,
  referenceSentence,
} from "./reference-rows.ts";
import type { Report } from "./types.ts";

export function referenceSection(r: Report): string {
  const groups = referenceGroups(r);
  if (groups.length === 0) return "";
  const head = `<section id="reference" class="card"><h2>Reference viewers (libwebrtc)</h2>`;
  if (!r.aggregate.valid) {
    return `${head}<p>No verdict: the reference viewers' figures stay in the JSON report and are not shown here as results.</p></section>`;
  }
  const cells = groups.map(referenceCells);
  const th = groups.map((g) => `<th scope="col" class="num">${escapeHtml(g.name)}</th>`).join("");
  const body = REFERENCE_HEADS.map(
    (label, i) =>
      `<tr><th scope="row">${escapeHtml(label)}</th>${cells.map((c) => `<td class="num">${escapeHtml(c[i] ?? "")}</td>`).join("")}</tr>`,
  ).join("");
  const lines = groups.map((g) => `<li>${escapeHtml(referenceSentence(g))}</li>`).join("");
  return `${head}<p class="note">${escapeHtml(referenceCountText(r))}</p><div class="wrap"><table class="data reference"><thead><tr><th>figure</th>${th}</tr></thead><tbody>${body}</tbody></table></div><ul>${lines}</ul></section>`;
}
