// Every `docs/definitions.md#<anchor>` a comment or test cites names a heading of that page, and no
// file under src/ cites a section sign (the reference's spec is not in this repository).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ROOT, sourceFiles } from "./repo-files.ts";

const filesUnder = (dir: string): string[] => sourceFiles(dir, /\.(ts|js|md)$/);

/** GitHub's heading anchor: lower case, punctuation but `-` dropped, spaces to `-`. */
function slug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");
}

test("every docs/definitions.md anchor cited in src, test and bench exists", () => {
  const doc = readFileSync(join(ROOT, "docs/definitions.md"), "utf8");
  const anchors = new Set(
    doc
      .split("\n")
      .filter((l) => /^#{1,6} /.test(l))
      .map((l) => slug(l.replace(/^#+ /, ""))),
  );
  assert.ok(anchors.has("join-time"));
  const missing: string[] = [];
  let cited = 0;
  for (const f of [
    ...filesUnder("src"),
    ...filesUnder("test"),
    ...filesUnder("bench"),
    ...filesUnder("docs"),
  ]) {
    for (const m of readFileSync(join(ROOT, f), "utf8").matchAll(/definitions\.md#([a-z0-9-]+)/g)) {
      cited++;
      if (!anchors.has(m[1] ?? "")) missing.push(`${f}: #${m[1]}`);
    }
  }
  assert.deepEqual(missing, []);
  assert.ok(cited > 100, `only ${cited} citations found`);
});

test("no file under src/ cites a section sign", () => {
  const hits = filesUnder("src").filter((f) => readFileSync(join(ROOT, f), "utf8").includes("\u00a7"));
  assert.deepEqual(hits, []);
});
