// The import rules of docs/architecture.md, read from the source: no import circle anywhere in
// src/ (type-only imports included), src/core imports nothing from the other rooms, src/workers
// nothing from src/main, and src/main reaches into src/workers only through the shard entry,
// the protocol and the worker entry file that piscina loads; src/main/cli is the top floor, which
// nothing else in src/ imports; src/main/observe imports no other room of src/main, and no two
// rooms of src/main import each other, directly or round a circle, nor any two sibling folders
// anywhere in src/ (a folder's own files are left out: they are its base).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { test } from "node:test";
import { ROOT, sourceFiles } from "./repo-files.ts";

/** Relative module specifiers of one file: static imports and re-exports, dynamic imports, `new URL(…, import.meta.url)`. */
export function specifiers(text: string): string[] {
  const out: string[] = [];
  const patterns = [
    /^\s*(?:import|export)\b[^"';]*?\bfrom\s*["']([^"']+)["']/gm,
    /^\s*import\s*["']([^"']+)["']/gm,
    /\bimport\(\s*["']([^"']+)["']\s*\)/g,
    /\bnew URL\(\s*["']([^"']+\.(?:ts|js))["']\s*,\s*import\.meta\.url\s*\)/g,
  ];
  for (const re of patterns) for (const m of text.matchAll(re)) if (m[1]?.startsWith(".")) out.push(m[1]);
  return out;
}

/** file → the src files it imports (paths relative to the repository root). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const f of sourceFiles("src")) {
    const text = readFileSync(join(ROOT, f), "utf8");
    const deps = specifiers(text)
      .map((s) => relative(ROOT, normalize(join(ROOT, dirname(f), s))))
      .filter((d) => d.startsWith("src/") && /\.(ts|js)$/.test(d));
    graph.set(f, deps);
  }
  return graph;
}

/** Strongly connected components of more than one file, or a file importing itself (Tarjan). */
export function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
      }
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string | undefined;
      do {
        w = stack.pop();
        if (w === undefined) break;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

/** The files of src/workers that src/main may import. */
const MAIN_MAY_USE_FROM_WORKERS = new Set([
  "src/workers/shard.ts",
  "src/workers/protocol.ts",
  "src/workers/worker-entry.ts",
]);

function room(f: string): string {
  return f.split("/")[1] ?? "";
}

const graph = importGraph();

test("the import scanner sees static, type-only, multi-line, dynamic and URL imports", () => {
  const text = [
    'import { a } from "./a.ts";',
    'import type { B } from "../b.ts";',
    "import {\n  c,\n  d,\n} from './c.ts';",
    'export { e } from "./e.ts";',
    'import "./side.ts";',
    'const m = await import("./lazy.ts");',
    'const W = new URL("../w/entry.ts", import.meta.url);',
    'import { readFileSync } from "node:fs";',
  ].join("\n");
  assert.deepEqual(specifiers(text).sort(), [
    "../b.ts",
    "../w/entry.ts",
    "./a.ts",
    "./c.ts",
    "./e.ts",
    "./lazy.ts",
    "./side.ts",
  ]);
  assert.ok(graph.size > 100, `only ${graph.size} files read`);
});

test("the circle finder finds a circle and only a circle", () => {
  const g = new Map([
    ["a", ["b"]],
    ["b", ["c"]],
    ["c", ["a"]],
    ["d", ["a"]],
    ["e", ["e"]],
  ]);
  assert.deepEqual(circles(g), [["a", "b", "c"], ["e"]]);
  assert.deepEqual(
    circles(
      new Map([
        ["a", ["b"]],
        ["b", []],
      ]),
    ),
    [],
  );
});

/** Packages src/core may use: pure computation, and reading its own files (clips). */
const CORE_PACKAGES = new Set(["hdr-histogram-js", "xxhash-wasm", "node:crypto", "node:fs", "node:url"]);

function packages(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/^\s*(?:import|export)\b[^"';]*?\bfrom\s*["']([^"'.][^"']*)["']/gm)) {
    if (m[1] !== undefined) out.push(m[1]);
  }
  return out;
}

test("src/core uses no sockets, timers, threads or werift: only the packages it is allowed", () => {
  const used: string[] = [];
  for (const f of sourceFiles("src/core")) {
    for (const p of packages(readFileSync(join(ROOT, f), "utf8"))) {
      if (!CORE_PACKAGES.has(p)) used.push(`${f}: ${p}`);
    }
  }
  assert.deepEqual(used, []);
  assert.deepEqual(packages('import { RTCPeerConnection } from "werift";\nimport { x } from "./y.ts";'), [
    "werift",
  ]);
});

test("no import circle in src/", () => {
  assert.deepEqual(circles(graph), []);
});

test("one-way imports between the rooms", () => {
  const broken: string[] = [];
  for (const [f, deps] of graph) {
    for (const d of deps) {
      const from = room(f);
      const to = room(d);
      if (from === to) continue;
      if (from === "core") broken.push(`${f} → ${d}: src/core imports nothing from the other rooms`);
      if (from === "workers" && to === "main") broken.push(`${f} → ${d}: workers never import main`);
      if (from === "net" && (to === "main" || to === "workers"))
        broken.push(`${f} → ${d}: net uses core only`);
      if (from === "main" && to === "workers" && !MAIN_MAY_USE_FROM_WORKERS.has(d)) {
        broken.push(`${f} → ${d}: main uses only the shard entry and the protocol from workers`);
      }
    }
  }
  assert.deepEqual(broken, []);
});

/**
 * The packages only one seam module may import in src/: werift (and the tweetnacl it patches),
 * koffi, libwebrtc for Node (@roamhq/wrtc, an optional dependency).
 */
const SEAMS: readonly { pkg: string; seam: (f: string) => boolean; where: string }[] = [
  {
    pkg: "werift",
    seam: (f) => f.startsWith("src/net/werift/"),
    where: "src/net/werift/ (public API: api.ts)",
  },
  { pkg: "tweetnacl", seam: (f) => f === "src/net/werift/patches.ts", where: "src/net/werift/patches.ts" },
  { pkg: "koffi", seam: (f) => f === "src/net/koffi.ts", where: "src/net/koffi.ts" },
  {
    pkg: "@roamhq/wrtc",
    seam: (f) => f === "src/main/reference/wrtc.ts",
    where: "src/main/reference/wrtc.ts",
  },
];

/** Package names a file loads: imports and re-exports, `import(…)` and `require(…)`-style calls of a literal. */
function loads(text: string): string[] {
  const out = packages(text);
  for (const m of text.matchAll(
    /\b(?:import|require|createRequire\([^)]*\))\(\s*["']([^"'.][^"']*)["']\s*\)/g,
  )) {
    if (m[1] !== undefined) out.push(m[1]);
  }
  return out.map((p) => (p.startsWith("@") ? p.split("/").slice(0, 2).join("/") : (p.split("/")[0] ?? p)));
}

/**
 * werift's internals as the seam reaches them: private members and the methods and fields it
 * patches (src/net/werift/*.ts name each in their purpose lines). Outside the seam none of them
 * may be read or written, nor a werift class's prototype.
 */
const WERIFT_INTERNALS = [
  "protocols",
  "iceTransport",
  "iceTransports",
  "dtlsTransports",
  "startSrtp",
  "srtpStarted",
  "srtpProfiles",
  "applyStunTurnServersFromOptions",
  "stunServer",
  "flight",
  "onData",
  "execute",
  "handleFragmentHandshake",
  "onHandleHandshakes",
  "decryptPacket",
  "transmit",
  "nominated",
];

/** Code lines of a file (comment lines dropped) that reach a werift internal. */
function internalReaches(text: string): string[] {
  const names = WERIFT_INTERNALS.join("|");
  const member = new RegExp(`(?:\\.|\\?\\.)(?:${names})\\b|[{;,]\\s*(?:${names})\\??:`);
  const proto = /\b(?:Connection|RTC\w+|Rtp\w+|Rtcp\w+|Srtp\w+|Dtls\w+|CipherContext)\.prototype\b/;
  return text
    .split("\n")
    .filter((l) => !/^\s*(?:\/\/|\/\*|\*)/.test(l))
    .filter((l) => member.test(l) || proto.test(l));
}

test("werift, tweetnacl, koffi and @roamhq/wrtc are each loaded in src/ by their seam only", () => {
  const broken: string[] = [];
  for (const f of sourceFiles("src")) {
    for (const p of loads(readFileSync(join(ROOT, f), "utf8"))) {
      const rule = SEAMS.find((s) => s.pkg === p);
      if (rule !== undefined && !rule.seam(f)) broken.push(`${f}: ${p} (only ${rule.where})`);
    }
  }
  assert.deepEqual(broken, []);
  // the scanner sees each way a package is loaded
  assert.deepEqual(loads('import { A } from "werift";\nconst k = createRequire(import.meta.url)("koffi");'), [
    "werift",
    "koffi",
  ]);
  assert.deepEqual(loads('const m = await import("werift/nonstandard");\nrequire("koffi")'), [
    "werift",
    "koffi",
  ]);
  // the three native modules reach koffi through the seam
  for (const f of ["src/net/kernel.ts", "src/net/batch-read.ts", "src/net/srtp/openssl.ts"]) {
    assert.ok(graph.get(f)?.includes("src/net/koffi.ts"), `${f} loads koffi through src/net/koffi.ts`);
  }
});

test("werift's internals are reached in src/ only through src/net/werift/", () => {
  const broken: string[] = [];
  for (const f of sourceFiles("src")) {
    if (f.startsWith("src/net/werift/")) continue;
    for (const line of internalReaches(readFileSync(join(ROOT, f), "utf8")))
      broken.push(`${f}: ${line.trim()}`);
  }
  assert.deepEqual(broken, []);
  // the scanner sees a member access, a key of a cast's shape and a prototype; not comments or names
  const sample = [
    "const p = conn?.protocols;",
    "const d = tr.dtlsTransport as unknown as { srtpProfiles?: unknown };",
    "const proto = RTCDtlsTransport.prototype;",
    "// werift's .iceTransport.connection",
    "function f(onData: Handler) {}",
    "const x = Object.prototype;",
  ].join("\n");
  assert.deepEqual(internalReaches(sample), [
    "const p = conn?.protocols;",
    "const d = tr.dtlsTransport as unknown as { srtpProfiles?: unknown };",
    "const proto = RTCDtlsTransport.prototype;",
  ]);
  // the seam itself reaches each internal it lists
  const seam = sourceFiles("src/net/werift")
    .map((f) => readFileSync(join(ROOT, f), "utf8"))
    .join("\n");
  for (const name of WERIFT_INTERNALS)
    assert.ok(
      internalReaches(seam).some((l) => l.includes(name)),
      name,
    );
});

/** Imports of src/main/cli from outside it: the command line is the top floor, no library. */
export function cliImportsFromBelow(g: ReadonlyMap<string, readonly string[]>): string[] {
  const broken: string[] = [];
  for (const [f, deps] of g) {
    if (f.startsWith("src/main/cli/")) continue;
    for (const d of deps) if (d.startsWith("src/main/cli/")) broken.push(`${f} → ${d}`);
  }
  return broken;
}

test("nothing outside src/main/cli imports src/main/cli", () => {
  assert.deepEqual(
    cliImportsFromBelow(
      new Map([
        ["src/main/cli/cli.ts", ["src/main/cli/cmd-run.ts", "src/main/run/runner.ts"]],
        ["src/main/run/runner.ts", ["src/main/cli/flags.ts"]],
      ]),
    ),
    ["src/main/run/runner.ts → src/main/cli/flags.ts"],
  );
  assert.ok([...graph.keys()].filter((f) => f.startsWith("src/main/cli/")).length >= 10);
  assert.deepEqual(cliImportsFromBelow(graph), []);
});

/**
 * Imports from src/main/observe into another room of src/main: observe/ (logs, progress, metrics,
 * the server watch) is read by the rooms that run things and reads none of them back, so no two
 * rooms import each other through it.
 */
export function observeImportsBack(g: ReadonlyMap<string, readonly string[]>): string[] {
  const broken: string[] = [];
  for (const [f, deps] of g) {
    if (!f.startsWith("src/main/observe/")) continue;
    for (const d of deps)
      if (d.startsWith("src/main/") && !d.startsWith("src/main/observe/")) broken.push(`${f} → ${d}`);
  }
  return broken;
}

test("src/main/observe imports no other room of src/main", () => {
  assert.deepEqual(
    observeImportsBack(
      new Map([
        [
          "src/main/observe/progress.ts",
          ["src/main/run/run-lag.ts", "src/main/observe/log.ts", "src/core/x.ts"],
        ],
        ["src/main/run/runner.ts", ["src/main/observe/progress.ts"]],
      ]),
    ),
    ["src/main/observe/progress.ts → src/main/run/run-lag.ts"],
  );
  assert.ok([...graph.keys()].filter((f) => f.startsWith("src/main/observe/")).length >= 10);
  assert.deepEqual(observeImportsBack(graph), []);
});

/**
 * The sibling folders of src/ (at any depth) and the siblings each imports: an import from a file
 * under folder A to a file under its sibling B (A and B in the same parent) is an edge A → B. A
 * file directly in the parent is the parent's base, not a folder: its imports and those to it are
 * no edge.
 */
export function siblingFolders(g: ReadonlyMap<string, readonly string[]>): Map<string, string[]> {
  const out = new Map<string, Set<string>>();
  for (const [f, deps] of g) {
    const a = f.split("/");
    for (const d of deps) {
      const b = d.split("/");
      let i = 0;
      while (i < a.length - 1 && i < b.length - 1 && a[i] === b[i]) i++;
      if (i >= a.length - 1 || i >= b.length - 1) continue;
      const from = a.slice(0, i + 1).join("/");
      const to = out.get(from) ?? new Set<string>();
      to.add(b.slice(0, i + 1).join("/"));
      out.set(from, to);
    }
  }
  return new Map([...out].map(([k, v]) => [k, [...v]]));
}

test("no two sibling folders anywhere in src/ import each other, directly or round a circle", () => {
  const sample = siblingFolders(
    new Map([
      ["src/core/report/markdown.ts", ["src/core/thresholds/render.ts", "src/core/errors.ts"]],
      ["src/core/thresholds/evaluate.ts", ["src/core/report/types.ts"]],
      ["src/core/types.ts", ["src/core/delay/counters.ts"]],
      ["src/core/delay/counters.ts", ["src/core/types.ts"]],
      ["src/main/run/deep/a.ts", ["src/main/output/b.ts"]],
      ["src/main/output/b.ts", ["src/main/run/c.ts", "src/core/report/types.ts"]],
    ]),
  );
  assert.deepEqual(circles(sample), [
    ["src/core/report", "src/core/thresholds"],
    ["src/main/output", "src/main/run"],
  ]);
  const folders = siblingFolders(graph);
  assert.ok(folders.size >= 25, `only ${folders.size} folders read`);
  // the rooms of src/main are siblings: none imports another round a circle
  assert.ok([...folders.keys()].filter((f) => f.startsWith("src/main/")).length >= 10);
  assert.deepEqual(circles(folders), []);
});

// Tests may use bench/'s helpers (peer pairs, impaired links, synthetic records), so a bench never
// imports from test/: a helper both need lives in bench/. One bench still does, named with why.

/** bench files that still import test/ helpers, each with the helpers' reason. */
const KNOWN: Readonly<Record<string, string>> = {
  "bench/janus-lossy.ts":
    "the Janus namespace and impairer harness (test/janus/netns-janus.ts, test/netem/impairer.ts) has not moved",
};

/** `bench/x.ts → test/y.ts` for each import of a bench file that reaches into test/. */
export function benchIntoTest(files: readonly string[], read: (f: string) => string): string[] {
  const out: string[] = [];
  for (const f of files) {
    for (const s of specifiers(read(f))) {
      const to = relative(ROOT, normalize(join(ROOT, dirname(f), s)));
      if (to.startsWith("test/")) out.push(`${f} → ${to}`);
    }
  }
  return out;
}

test("bench/ imports nothing from test/ (but the benches named with a reason)", () => {
  const bench = sourceFiles("bench").filter((f) => KNOWN[f] === undefined);
  assert.deepEqual(
    benchIntoTest(bench, (f) => readFileSync(join(ROOT, f), "utf8")),
    [],
  );
  for (const f of Object.keys(KNOWN))
    assert.ok(
      benchIntoTest([f], (x) => readFileSync(join(ROOT, x), "utf8")).length > 0,
      `${f} no longer imports test/: take it off the list`,
    );
});

test("the check sees a bench reaching into test/", () => {
  const text =
    'import { plainPipeline } from "../test/unit/plain-pipeline.ts";\nimport { m } from "./median.ts";';
  assert.deepEqual(
    benchIntoTest(["bench/x.ts"], () => text),
    ["bench/x.ts → test/unit/plain-pipeline.ts"],
  );
});
