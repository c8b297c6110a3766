// Ground truth on the wire (issue 32): the report's one-way delay against a packet capture of the
// same run through a real server (Janus, bench/servers/janus). Per row, dumpcap captures `lo` on
// the server's ICE port range while `whipbench run` (the checkout given, this one by default)
// publishes and N viewers watch on one worker thread; the server's own UDP ports are read from
// `ss` during the run, and bench/wire-frames.ts computes every frame's wire delay (the publisher's
// first packet of it on `lo` → the viewer's last packet of it) with the report's window (each
// viewer's first excludeFirstSeconds left out). It prints the report's pooled fingerprint delay
// p50/p95/p99, the wire's, and report − wire, with the report's send- and receive-stamp sources
// and the ceiling's verdict. Needs root (dumpcap), Debian's tshark package (dumpcap), and the
// Janus recipe installed (bench/servers/janus/install.sh); it starts the stack when not running.
// Other processes on the machine load it: the load average is printed with each row.
//
//   npm run bench:wire -- [--rows 10,50,200] [--ramp 10] [--hold 25] [--checkout DIR] [--keep DIR]
//   npm run bench:wire -- --analyze DIR      # a kept row again (lo.pcap, janus-ports.txt, report)
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { fmtFixed } from "../src/core/go-compat/fmt.ts";
import { readPcap, wireDelays } from "./wire-frames.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const RECIPE = join(ROOT, "bench/servers/janus");

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1]! : fallback;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function quantile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** The server's UDP ports now (ss, by the Janus PID the recipe wrote). */
function janusPorts(pid: string, into: Set<number>): void {
  const out = spawnSync("ss", ["-uanp"], { encoding: "utf8" }).stdout ?? "";
  for (const line of out.split("\n")) {
    if (!line.includes(`pid=${pid},`)) continue;
    const local = line.trim().split(/\s+/)[3] ?? "";
    const port = Number(local.slice(local.lastIndexOf(":") + 1));
    if (Number.isInteger(port) && port > 0) into.add(port);
  }
}

interface ReportFigures {
  ms: { p50: number; p95: number; p99: number };
  samples: number;
  sendStamps: string;
  receiveStamps: string;
  nearCeiling: boolean;
  evidence: string[];
  sendLagP50: number | null;
}

function reportFigures(dir: string): ReportFigures {
  const file = readdirSync(dir).find((f) => f.startsWith("whipbench-") && f.endsWith(".json"));
  if (file === undefined) throw new Error(`no report in ${dir}`);
  const r = JSON.parse(readFileSync(join(dir, file), "utf8"));
  const block = r.aggregate.oneWayDelay.find((b: { source: string }) => b.source === "fingerprint");
  const c = r.client ?? {};
  return {
    ms: block.ms,
    samples: block.samples,
    sendStamps: c.sendStampSource ?? "handover (no key)",
    receiveStamps: c.stampSource ?? "-",
    nearCeiling: c.ceiling?.nearCeiling === true,
    evidence: c.ceiling?.evidence ?? [],
    sendLagP50: c.publisherSendLagMs?.p50 ?? null,
  };
}

function analyze(dir: string, excludeS: number): string {
  const ports = new Set(
    readFileSync(join(dir, "janus-ports.txt"), "utf8")
      .split("\n")
      .map((l) => Number(l.slice(l.lastIndexOf(":") + 1)))
      .filter((p) => p > 0),
  );
  const w = wireDelays(readPcap(readFileSync(join(dir, "lo.pcap"))), ports, excludeS * 1e9);
  const wire = w.delaysNs.map((d) => d / 1e6).sort((a, b) => a - b);
  const r = reportFigures(dir);
  const q = [50, 95, 99].map((p) => quantile(wire, p));
  const rep = [r.ms.p50, r.ms.p95, r.ms.p99];
  const f = (v: number) => fmtFixed(v, 2);
  const diff = rep.map((v, i) => `${v - q[i]! >= 0 ? "+" : ""}${f(v - q[i]!)}`);
  return [
    `report ${rep.map(f).join(" / ")} (${r.samples} frames)`,
    `wire ${q.map(f).join(" / ")} (${wire.length} frames, ${w.viewers} viewers${w.unpaired > 0 ? `, ${w.unpaired} streams unpaired` : ""})`,
    `report − wire ${diff.join(" / ")}`,
    `send stamps ${r.sendStamps}, receive stamps ${r.receiveStamps}, send lag p50 ${r.sendLagP50 ?? "-"} ms`,
    `ceiling ${r.nearCeiling ? `near: ${r.evidence.join("; ")}` : "quiet"}`,
  ].join(" | ");
}

function start(cmd: string, args: string[], opts: { cwd?: string; out?: string } = {}): ChildProcess {
  return spawn(cmd, args, { cwd: opts.cwd ?? ROOT, stdio: ["ignore", "pipe", "pipe"] });
}

async function row(
  viewers: number,
  dir: string,
  checkout: string,
  rampS: number,
  holdS: number,
): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const scenario = join(dir, "scenario.json");
  writeFileSync(
    scenario,
    JSON.stringify({
      name: `janus-vp8-${viewers}`,
      whip: "http://127.0.0.1:7080/whip/endpoint/vp8",
      whep: "http://127.0.0.1:7090/whep/endpoint/vp8",
      codec: "vp8",
      viewers,
      rampSeconds: rampS,
      holdSeconds: holdS,
      warmupSeconds: 2,
      joinTimeoutSeconds: 20,
      loopbackOnly: true,
    }),
  );
  const pid = readFileSync(join(RECIPE, "run/janus.pid"), "utf8").trim();
  const cap = start("dumpcap", [
    "-q",
    "-P",
    "-i",
    "lo",
    "-B",
    "64",
    "-f",
    "udp portrange 20000-40000",
    "-w",
    join(dir, "lo.pcap"),
  ]);
  await sleep(1500);
  const ports = new Set<number>();
  const poll = setInterval(() => janusPorts(pid, ports), 1000);
  const load0 = loadavg()[0]!;
  const run = start(
    join(checkout, "node_modules/.bin/node"),
    [
      join(checkout, "bin/whipbench.js"),
      "run",
      scenario,
      "--workers",
      "1",
      "--out",
      dir,
      "--quiet",
      "--no-html",
    ],
    { cwd: checkout },
  );
  let log = "";
  run.stdout?.on("data", (b: Buffer) => (log += b.toString()));
  run.stderr?.on("data", (b: Buffer) => (log += b.toString()));
  const code = await new Promise<number>((r) => run.on("close", (c) => r(c ?? 1)));
  clearInterval(poll);
  await sleep(500);
  cap.kill("SIGTERM");
  await new Promise((r) => cap.on("close", r));
  writeFileSync(join(dir, "janus-ports.txt"), `${[...ports].join("\n")}\n`);
  writeFileSync(join(dir, "run.log"), log);
  const load = `load ${fmtFixed(load0, 1)}→${fmtFixed(loadavg()[0]!, 1)}`;
  if (code !== 0 && code !== 3) {
    console.log(`${viewers} viewers: whipbench exited ${code} (${dir}/run.log) | ${load}`);
    return;
  }
  console.log(`${viewers} viewers/thread | ${analyze(dir, 5)} | ${load}`);
}

async function main(): Promise<void> {
  const again = arg("analyze", "");
  if (again !== "") {
    console.log(analyze(again, Number(arg("exclude", "5"))));
    return;
  }
  if (process.getuid?.() !== 0) throw new Error("bench:wire captures lo with dumpcap: run it as root");
  if (spawnSync("dumpcap", ["-v"]).error) throw new Error("dumpcap not found: apt-get install -y tshark");
  const status = spawnSync("bash", [join(RECIPE, "status.sh")]);
  const started = status.status !== 0;
  if (started && spawnSync("bash", [join(RECIPE, "start.sh")], { stdio: "inherit" }).status !== 0) {
    throw new Error("the Janus stack did not start (bench/servers/janus)");
  }
  const keep = arg("keep", "");
  const base = keep !== "" ? keep : mkdtempSync(join(tmpdir(), "whipbench-wire-"));
  const checkout = arg("checkout", ROOT);
  try {
    // a folder per row, so two rows of the same size each read their own report
    for (const [i, n] of arg("rows", "10,50,200").split(",").map(Number).entries()) {
      await row(
        n,
        join(base, `${i + 1}-v${n}`),
        checkout,
        Number(arg("ramp", "10")),
        Number(arg("hold", "25")),
      );
    }
  } finally {
    if (keep === "") rmSync(base, { recursive: true, force: true });
    if (started) spawnSync("bash", [join(RECIPE, "stop.sh")], { stdio: "inherit" });
  }
}

await main();
