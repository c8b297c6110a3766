// Memory per viewer, exactly: the live JS heap and off-heap buffers a viewer keeps during the
// hold, from two runs that differ only in their number of viewers, each in a fresh process,
// after full garbage collections; and what that memory is, by V8 heap-snapshot category.
//
//   npm run bench:heap -- [--viewers 20,120] [--path lean|werift|arena|arena-own|arena-shared] [--buffer-pool 1024] [--top 25]
//
// Each run: the built-in relay in its own child process (started and stopped by its PID), one
// publisher and the viewers in this thread (--workers 0, so that one heap holds them all; the
// viewer code is the same in a worker, and this thread takes the Buffer pool slab size a viewer
// worker sets, src/workers/buffer-pool.ts, unless --buffer-pool says otherwise), ramp 5 s, then 7 s into the hold two gc() calls,
// process.memoryUsage() and a heap snapshot. Per viewer = (second run − first run) ÷ (their
// difference in viewers), so the publisher, the code and the relay's client side cancel out.
// RSS is printed beside it, but it also holds freed pages the allocator keeps, so it is noisy.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { writeHeapSnapshot } from "node:v8";
import { fmtFixed } from "../src/core/go-compat/fmt.ts";
import { normaliseScenario, validateScenario } from "../src/core/scenario-file/scenario.ts";
import { memoryLogger } from "../src/main/observe/log.ts";
import { inThreadEngine } from "../src/main/run/engine.ts";
import { run } from "../src/main/run/runner.ts";
import { useViewerBufferPool, VIEWER_BUFFER_POOL_BYTES } from "../src/workers/buffer-pool.ts";
import { pathLabel } from "./path-label.ts";
import { receivePathEngine } from "./receive-path-engine.ts";
import { startRelay, stopRelay } from "./relay-child.ts";

const { values: args } = parseArgs({
  options: {
    viewers: { type: "string", default: "20,120" },
    path: { type: "string", default: "lean" },
    top: { type: "string", default: "25" },
    port: { type: "string", default: "18979" },
    "buffer-pool": { type: "string", default: String(VIEWER_BUFFER_POOL_BYTES) },
    // internal: one measured run, in a child process with --expose-gc
    child: { type: "string" },
    out: { type: "string" },
  },
});
const label = args.path;
const labelKeys = pathLabel(label, "--path");
const path = labelKeys.receivePath;

interface Measured {
  viewers: number;
  joined: number;
  heapUsed: number;
  arrayBuffers: number;
  external: number;
  rss: number;
  /** bytes by heap-snapshot category */
  categories: Record<string, number>;
}

/** Self sizes of a V8 heap snapshot, by category: the constructor for objects, the node type otherwise. */
function categorise(file: string): Record<string, number> {
  const s = JSON.parse(readFileSync(file, "utf8")) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
    nodes: number[];
    strings: string[];
  };
  const fields = s.snapshot.meta.node_fields;
  const types = s.snapshot.meta.node_types[0];
  const width = fields.length;
  const ti = fields.indexOf("type");
  const ni = fields.indexOf("name");
  const si = fields.indexOf("self_size");
  const out: Record<string, number> = {};
  for (let i = 0; i < s.nodes.length; i += width) {
    const type = types[s.nodes[i + ti] as number] ?? "?";
    const name = s.strings[s.nodes[i + ni] as number] ?? "?";
    let key: string;
    if (type === "object" || type === "native")
      key = name === "system / JSArrayBufferData" ? "(buffer contents)" : name;
    else if (type === "closure") key = "(closures)";
    else if (type.includes("string")) key = "(strings)";
    else if (type === "array") key = "(arrays: elements and properties)";
    else if (type === "code") key = "(code)";
    else if (type === "hidden") key = `(V8 internal: ${name.replace("system / ", "")})`;
    else key = `(${type})`;
    out[key] = (out[key] ?? 0) + (s.nodes[i + si] as number);
  }
  return out;
}

async function measureChild(viewers: number, outFile: string): Promise<void> {
  useViewerBufferPool(Number(args["buffer-pool"]));
  const gc = globalThis.gc as () => void;
  const port = Number(args.port);
  const relay = await startRelay(port);
  const base = `http://127.0.0.1:${port}/heap${viewers}`;
  const scenario = normaliseScenario({
    name: `heap-${viewers}`,
    whip: `${base}/whip`,
    whep: `${base}/whep`,
    codec: "vp8",
    viewers,
    rampSeconds: 5,
    holdSeconds: 10,
    warmupSeconds: 1,
    excludeFirstSeconds: 1,
    loopbackOnly: true,
    ...labelKeys,
  });
  validateScenario(scenario);
  const dir = mkdtempSync(join(tmpdir(), "whipbench-heap-"));
  let m: Omit<Measured, "joined" | "categories"> | null = null;
  let snapshot = "";
  try {
    const input = await run({
      command: "run",
      scenario,
      bearer: undefined,
      engine: receivePathEngine(inThreadEngine(), [path]),
      log: memoryLogger(),
      interrupt: new AbortController().signal,
      onTick: (entry) => {
        // 1 s warmup + 5 s ramp + 7 s: every viewer has joined and is receiving
        if (m !== null || !entry || entry.t < 13) return;
        gc();
        gc();
        const u = process.memoryUsage();
        m = { viewers, heapUsed: u.heapUsed, arrayBuffers: u.arrayBuffers, external: u.external, rss: u.rss };
        snapshot = writeHeapSnapshot(join(dir, "hold.heapsnapshot"));
      },
    });
    if (m === null) throw new Error("the run ended before the hold was measured");
    const joined = input.viewers.filter((v) => v.record.joined).length;
    const result: Measured = {
      ...(m as Omit<Measured, "joined" | "categories">),
      joined,
      categories: categorise(snapshot),
    };
    writeFileSync(outFile, JSON.stringify(result));
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await stopRelay(relay);
  }
}

if (args.child !== undefined) {
  await measureChild(Number(args.child), args.out ?? "");
  process.exit(0);
}

const counts = args.viewers.split(",").map(Number);
if (counts.length !== 2 || !counts.every((n) => Number.isInteger(n) && n > 0) || counts[0]! >= counts[1]!)
  throw new Error("--viewers: two viewer counts, the smaller first (e.g. 20,120)");
const self = fileURLToPath(import.meta.url);
const work = mkdtempSync(join(tmpdir(), "whipbench-heap-"));
const runs: Measured[] = [];
try {
  for (const n of counts) {
    const outFile = join(work, `${n}.json`);
    const r = spawnSync(
      process.execPath,
      [
        "--expose-gc",
        self,
        ...["--child", String(n), "--out", outFile, "--path", label, "--port", args.port],
        ...["--buffer-pool", args["buffer-pool"]],
      ],
      { stdio: "inherit" },
    );
    if (r.status !== 0) throw new Error(`the ${n}-viewer run failed (exit ${r.status})`);
    const m = JSON.parse(readFileSync(outFile, "utf8")) as Measured;
    if (m.joined !== n) throw new Error(`the ${n}-viewer run: only ${m.joined} viewers joined`);
    runs.push(m);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
const [a, b] = runs as [Measured, Measured];
const dn = b.viewers - a.viewers;
const kb = (bytes: number): string => fmtFixed(bytes / dn / 1024, 1);
const lines = [
  `receive path ${label}, Buffer pool slabs of ${args["buffer-pool"]} B; ${a.viewers} and ${b.viewers} viewers, all joined; per viewer = difference ÷ ${dn}`,
  "",
  "| per viewer | KB |",
  "| --- | ---: |",
  `| JS heap (heapUsed) | ${kb(b.heapUsed - a.heapUsed)} |`,
  `| buffer contents (arrayBuffers) | ${kb(b.arrayBuffers - a.arrayBuffers)} |`,
  `| **heap + buffers** | **${kb(b.heapUsed + b.arrayBuffers - a.heapUsed - a.arrayBuffers)}** |`,
  `| RSS (noisy: includes freed pages) | ${kb(b.rss - a.rss)} |`,
  "",
  "| heap-snapshot category | KB per viewer |",
  "| --- | ---: |",
];
const keys = new Set([...Object.keys(a.categories), ...Object.keys(b.categories)]);
const rows = [...keys]
  .map((k) => [k, (b.categories[k] ?? 0) - (a.categories[k] ?? 0)] as const)
  .sort((x, y) => y[1] - x[1]);
const top = Number(args.top);
for (const [k, d] of rows.slice(0, top)) lines.push(`| ${k} | ${kb(d)} |`);
const rest = rows.slice(top).reduce((s, [, d]) => s + d, 0);
lines.push(`| (the other ${Math.max(0, rows.length - top)} categories) | ${kb(rest)} |`);
lines.push(`| **snapshot total** | **${kb(rows.reduce((s, [, d]) => s + d, 0))}** |`);
process.stdout.write(`${lines.join("\n")}\n`);
