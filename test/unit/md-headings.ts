// The headings of a Markdown file as GitHub anchors them, and the text of each section: shared by
// test/unit/doc-anchors.test.ts and test/unit/figure-registry.test.ts.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./repo-files.ts";

/** GitHub's heading anchor: lower case, punctuation but `-` dropped, spaces to `-`. */
export function slug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");
}

/** A Markdown file's lines outside fenced code blocks. */
export function prose(text: string): string[] {
  let fenced = false;
  return text.split("\n").filter((l) => {
    if (/^\s*```/.test(l)) fenced = !fenced;
    return !fenced && !/^\s*```/.test(l);
  });
}

/** The anchors of a Markdown file's headings, as GitHub numbers repeats (`x`, `x-1`, …). */
export function headingAnchors(file: string): Set<string> {
  return new Set(sectionTexts(file).keys());
}

/** Each heading's anchor and the text under it, down to the next heading of any level. */
export function sectionTexts(file: string): Map<string, string> {
  const out = new Map<string, string>();
  const seen = new Map<string, number>();
  let at = "";
  for (const l of prose(readFileSync(join(ROOT, file), "utf8"))) {
    if (/^#{1,6} /.test(l)) {
      const base = slug(l.replace(/^#+ /, "").trim());
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      at = n === 0 ? base : `${base}-${n}`;
      out.set(at, "");
    } else if (at !== "") out.set(at, `${out.get(at) ?? ""}${l}\n`);
  }
  return out;
}
