// The Markdown report's "Reference viewers" section (docs/definitions.md#reference-viewers): a row
// per group beside the model's figures for it, then each group's agreement line or why it has
// none. Shown only with a valid verdict, as the aggregate is; absent without reference viewers.
import { esc } from "./markdown-cells.ts";
import {
  REFERENCE_HEADS,
  referenceCells,
  referenceCountText,
  referenceGroups,
  referenceSentence,
} from "./reference-rows.ts";
import type { Report } from "./types.ts";

export function referenceMarkdown(r: Report): string[] {
  const groups = referenceGroups(r);
  if (!r.aggregate.valid || groups.length === 0) return [];
  return [
    "## Reference viewers (libwebrtc)",
    "",
    referenceCountText(r),
    "",
    `| group | ${REFERENCE_HEADS.join(" | ")} |`,
    `|---|${REFERENCE_HEADS.map(() => "---:").join("|")}|`,
    ...groups.map((g) => `| \`${esc(g.name)}\` | ${referenceCells(g).map(esc).join(" | ")} |`),
    "",
    ...groups.map((g) => `- ${esc(referenceSentence(g))}`),
    "",
  ];
}
