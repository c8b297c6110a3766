// cli/ only parses flags and calls a command's body (the convention atop src/main/cli/cli.ts): no
// file in src/main/cli touches the process or the machine itself (the environment, stdout,
// stderr, exit, signals, any node: module). A body that grows back into a cmd-*.ts writes its
// output, reads a file or a token, or opens a socket, and fails here. And no cmd-*.ts imports
// another: what two commands share lives in a body's room (`view` runs through run/, not cmd-run).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ROOT, sourceFiles } from "./repo-files.ts";

/** Code lines (comments dropped) of a file that do work a body does. */
export function bodyWork(text: string): string[] {
  const work = [
    /\bprocess\.(?:env|stdout|stderr|stdin|exit|on|once|argv)\b/,
    /^\s*(?:import|export)\b[^"';]*?\bfrom\s*["']node:/,
    /\bimport\(\s*["']node:/,
  ];
  return text
    .split("\n")
    .filter((l) => !/^\s*(?:\/\/|\/\*|\*)/.test(l))
    .filter((l) => work.some((re) => re.test(l)))
    .map((l) => l.trim());
}

test("the scanner sees a body's work and not a parser's", () => {
  const body = [
    'import { readFile } from "node:fs/promises";',
    "  const token = process.env[flags.tokenEnv];",
    "  process.stdout.write(md);",
    "// process.stdout is the body's",
    '  .option("--json", "print the comparison as JSON")',
    "  .action(async (flags: F) => setCode(await fCommand(flags)));",
  ].join("\n");
  assert.deepEqual(bodyWork(body), [
    'import { readFile } from "node:fs/promises";',
    "const token = process.env[flags.tokenEnv];",
    "process.stdout.write(md);",
  ]);
});

test("src/main/cli does no work of a command's body", () => {
  const files = sourceFiles("src/main/cli");
  assert.ok(files.filter((f) => /\/cmd-[a-z]+\.ts$/.test(f)).length >= 9, "the cmd files are read");
  const broken: string[] = [];
  for (const f of files)
    for (const l of bodyWork(readFileSync(join(ROOT, f), "utf8"))) broken.push(`${f}: ${l}`);
  assert.deepEqual(broken, []);
});

/** The cli/cmd-*.ts files a file imports. */
export function cmdImports(text: string): string[] {
  return [...text.matchAll(/^\s*(?:import|export)\b[^"';]*?\bfrom\s*["']\.\/(cmd-[a-z-]+\.ts)["']/gm)].map(
    (m) => m[1] ?? "",
  );
}

test("no cli/cmd-*.ts imports another", () => {
  assert.deepEqual(
    cmdImports('import { runAndReportHere } from "./cmd-run.ts";\nimport { intFlag } from "./flags.ts";'),
    ["cmd-run.ts"],
  );
  const broken: string[] = [];
  for (const f of sourceFiles("src/main/cli").filter((f) => /\/cmd-[a-z]+\.ts$/.test(f))) {
    for (const d of cmdImports(readFileSync(join(ROOT, f), "utf8"))) broken.push(`${f} → ${d}`);
  }
  assert.deepEqual(broken, []);
});
