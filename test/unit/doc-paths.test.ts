// Every source path the README and docs/ name exists: `src/…` anywhere in the text, and a path
// in backticks relative to src/ (`core/…`, `main/…`, `workers/…`, `net/…`), ending in `.ts` (a
// file) or `/` (a folder). A `*` in a name matches any run of characters. Files move (issue 34
// moved the receive chain and the publisher); the docs must move with them.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ROOT, sourceFiles } from "./repo-files.ts";

const PAGES = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

const SOURCES = new Set(sourceFiles("src", /\.ts$/));

/** The source paths a page names, each relative to the repository root. */
function namedPaths(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(/(?<![\w./-])src\/[\w./*-]*[\w*/]/g)) out.add(m[0]);
  for (const m of text.matchAll(/`((?:core|main|workers|net)\/[\w./*-]*?(?:\.ts|\/))`/g))
    out.add(`src/${m[1]}`);
  return [...out].filter((p) => p.endsWith(".ts") || p.endsWith("/"));
}

function exists(path: string): boolean {
  if (!path.includes("*")) return existsSync(join(ROOT, path));
  const re = new RegExp(`^${path.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*")}$`);
  return [...SOURCES].some((f) => re.test(f));
}

test("every source path the README and docs/ name exists", () => {
  const missing: string[] = [];
  let named = 0;
  for (const page of PAGES) {
    for (const path of namedPaths(readFileSync(join(ROOT, page), "utf8"))) {
      named++;
      if (!exists(path)) missing.push(`${page}: ${path}`);
    }
  }
  assert.deepEqual(missing, []);
  assert.ok(named > 50, `only ${named} source paths found`);
});
