// The repository's own files, for the tests that read the source (imports, sizes, doc anchors).
import { readdirSync } from "node:fs";
import { join } from "node:path";

export const ROOT = join(import.meta.dirname, "..", "..");

/** Files under `dir` (relative to the repository root) whose names match `ext`, recursively. */
export function sourceFiles(dir: string, ext: RegExp = /\.(ts|js)$/): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) out.push(...sourceFiles(rel, ext));
    else if (ext.test(e.name)) out.push(rel);
  }
  return out;
}
