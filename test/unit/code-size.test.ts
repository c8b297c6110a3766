// Files and functions a reader can hold (docs/conventions.md): no file in src/ over 300 lines and
// no function over 100, measured with the TypeScript parser (a nested function counts on its own
// and inside its parent); and no comment line wider than the formatter keeps code (biome.json).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import ts from "typescript";
import { ROOT, sourceFiles } from "./repo-files.ts";

const MAX_FILE_LINES = 300;
const MAX_FUNCTION_LINES = 100;

interface Span {
  name: string;
  lines: number;
}

/**
 * The wrapper `(() => { … })();` at the top level of a browser script: the page script's own
 * scope (a classic script has no module scope), not a function a reader holds; what it wraps is
 * measured like any other code.
 */
function isScriptWrapper(node: ts.Node, sf: ts.SourceFile): boolean {
  if (!sf.fileName.endsWith(".browser.js") || !ts.isArrowFunction(node)) return false;
  let p: ts.Node = node.parent;
  while (ts.isParenthesizedExpression(p)) p = p.parent;
  return ts.isCallExpression(p) && ts.isExpressionStatement(p.parent) && p.parent.parent === sf;
}

/** Every function-like node of a source text with its length in lines. */
export function functionSpans(fileName: string, text: string): Span[] {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const out: Span[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && "body" in node && node.body !== undefined && !isScriptWrapper(node, sf)) {
      const start = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const end = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
      const named = "name" in node && node.name !== undefined ? node.name.getText(sf) : "";
      const name = named !== "" ? named : ts.isConstructorDeclaration(node) ? "constructor" : "(anonymous)";
      out.push({ name: `${name}:${start + 1}`, lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

test("the function measure counts the lines of declarations, methods and arrows", () => {
  const text = [
    "function a() {",
    "  const b = () => {",
    "    return 1;",
    "  };",
    "}",
    "class C {",
    "  m(): void {}",
    "}",
  ].join("\n");
  assert.deepEqual(functionSpans("x.ts", text), [
    { name: "a:1", lines: 5 },
    { name: "(anonymous):2", lines: 3 },
    { name: "m:7", lines: 1 },
  ]);
});

test("a browser script's top-level wrapper is its scope, not a function; what it wraps is measured", () => {
  const text = ["(() => {", "  const f = () => {", "    return 1;", "  };", "})();"].join("\n");
  assert.deepEqual(functionSpans("page.browser.js", text), [{ name: "(anonymous):2", lines: 3 }]);
  assert.deepEqual(functionSpans("page.ts", text), [
    { name: "(anonymous):1", lines: 5 },
    { name: "(anonymous):2", lines: 3 },
  ]);
});

test(`no file in src/ over ${MAX_FILE_LINES} lines`, () => {
  const long = sourceFiles("src")
    .map((f) => ({ f, lines: readFileSync(join(ROOT, f), "utf8").split("\n").length - 1 }))
    .filter((x) => x.lines > MAX_FILE_LINES)
    .map((x) => `${x.f}: ${x.lines} lines`);
  assert.deepEqual(long, []);
});

test(`no function in src/ over ${MAX_FUNCTION_LINES} lines`, () => {
  const long: string[] = [];
  for (const f of sourceFiles("src")) {
    for (const s of functionSpans(f, readFileSync(join(ROOT, f), "utf8"))) {
      if (s.lines > MAX_FUNCTION_LINES) long.push(`${f} ${s.name}: ${s.lines} lines`);
    }
  }
  assert.deepEqual(long, []);
});

/** The width biome keeps code lines within (biome.json's lineWidth); it does not wrap comments. */
const LINE_WIDTH = (
  JSON.parse(readFileSync(join(ROOT, "biome.json"), "utf8")) as { formatter: { lineWidth: number } }
).formatter.lineWidth;

/** Comment lines of `text` longer than `width` characters: `//` lines and the lines of a block comment. */
function longCommentLines(text: string, width: number): number[] {
  const out: number[] = [];
  text.split("\n").forEach((line, i) => {
    if (line.length > width && /^\s*(\/\/|\/\*|\*)/.test(line)) out.push(i + 1);
  });
  return out;
}

test("the comment width rule finds a long comment line and leaves long code alone", () => {
  const long = `// ${"x".repeat(LINE_WIDTH)}`;
  const code = `const s = "${"x".repeat(LINE_WIDTH)}";`;
  assert.deepEqual(
    longCommentLines([long, code, ` * ${"y".repeat(LINE_WIDTH)}`].join("\n"), LINE_WIDTH),
    [1, 3],
  );
});

test("no comment line in src/ wider than the formatter keeps code", () => {
  const long: string[] = [];
  for (const f of sourceFiles("src")) {
    for (const n of longCommentLines(readFileSync(join(ROOT, f), "utf8"), LINE_WIDTH)) long.push(`${f}:${n}`);
  }
  assert.deepEqual(long, []);
});
