// Every `docs/definitions.md#<anchor>` a comment or test cites names a heading of that page, no
// file under src/ cites a section sign (the reference's spec is not in this repository), and
// every relative link of the README and docs/ reaches a file and, with `#anchor`, its heading.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { test } from "node:test";
import { headingAnchors, prose, slug } from "./md-headings.ts";
import { ROOT, sourceFiles } from "./repo-files.ts";

const filesUnder = (dir: string): string[] => sourceFiles(dir, /\.(ts|js|md)$/);

test("every docs/definitions.md anchor cited in src, test and bench exists", () => {
  const anchors = headingAnchors("docs/definitions.md");
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

/** The pages whose links are checked: the README, the benchmarks' and every page of docs/. */
const PAGES = [
  "README.md",
  "bench/README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

test("every relative link of the README, bench/README.md and docs/ reaches a file and its heading", () => {
  const broken: string[] = [];
  let links = 0;
  for (const page of PAGES) {
    // inline code is not a link: `[x](y)` in backticks is left alone
    const text = prose(readFileSync(join(ROOT, page), "utf8"))
      .join("\n")
      .replace(/`[^`\n]*`/g, "");
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1] ?? "";
      if (/^[a-z]+:/i.test(target)) continue; // https:, mailto:
      links++;
      const [path = "", anchor] = target.split("#");
      const file = path === "" ? page : normalize(join(dirname(page), path));
      if (file.startsWith("..") || !existsSync(join(ROOT, file))) {
        broken.push(`${page}: ${target} (no ${file})`);
      } else if (anchor !== undefined && !file.endsWith(".md")) {
        broken.push(`${page}: ${target} (an anchor into a file that is not Markdown)`);
      } else if (anchor !== undefined && !headingAnchors(file).has(anchor)) {
        broken.push(`${page}: ${target} (no heading #${anchor} in ${file})`);
      }
    }
  }
  assert.deepEqual(broken, []);
  assert.ok(links > 100, `only ${links} relative links found`);
});

test("definitions.md's contents list every ## and ### heading, in order", () => {
  const lines = prose(readFileSync(join(ROOT, "docs/definitions.md"), "utf8"));
  const at = lines.indexOf("## Contents");
  assert.ok(at >= 0, "definitions.md has a Contents section");
  const end = lines.findIndex((l, i) => i > at && /^## /.test(l));
  const listed = lines
    .slice(at + 1, end)
    .join("\n")
    .matchAll(/\[[^\]]+\]\(#([a-z0-9-]+)\)/g);
  const headings = lines
    .slice(end)
    .filter((l) => /^#{2,3} /.test(l))
    .map((l) => slug(l.replace(/^#+ /, "").trim()));
  assert.deepEqual(
    [...listed].map((m) => m[1]),
    headings,
  );
});
