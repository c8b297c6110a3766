// Density benchmark: one publisher and N viewers over W workers, through the built-in relay in
// its own process, for a list of N and W. Prints,
// per row: viewers, workers, packets/s received and µs of viewer-thread CPU per received packet
// over the hold (setup excluded; the whole-run figure, setup included, beside it), viewers per
// core, RSS per viewer (whole-process peak, and marginal between rows of the same W), the
// worst worker event-loop delay p99 (over the run, and per hold second: median and worst),
// client-side loss, kernel UDP drops, join and setup tails, and whether the ceiling guard fired
// (a row that missed joins says, on stderr, how many of each error kind and text). Every row
// runs once per receive path (--paths, default both: werift's receive path and the lean one,
// src/workers/receive), one after the other in this process against the same relay, and a ratio
// line follows each row: werift ÷ lean µs/packet.
// `arena-own` and `arena-shared` in --paths are the arena path with viewerSockets own or shared.
// --profiles browser,minimal runs each row and path once per viewer profile (the scenario's
// viewerProfile, docs/definitions.md#viewer-profile) and adds a ratio line: browser ÷ minimal.
//
//   npm run bench:density -- [--rows 50x1,100x1,200x1,200x2] [--ramp 10] [--hold 15] [--paths werift,lean]
//                            [--profiles browser,minimal] [--out DIR] [--help]
//
// Rows are NxW (W = 0 runs the viewers in the main thread). The relay child process is started
// and stopped by the benchmark itself (its PID only).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fmtFixed } from "../src/core/go-compat/fmt.ts";
import { buildReport } from "../src/core/report/build.ts";
import { reportToJson } from "../src/core/report/json.ts";
import { lossCell } from "../src/core/report/reasons.ts";
import type { Report } from "../src/core/report/types.ts";
import { VIEWER_PROFILES, type ViewerProfile } from "../src/core/scenario/defaults.ts";
import { normaliseScenario, type Scenario, validateScenario } from "../src/core/scenario-file/scenario.ts";
import { memoryLogger } from "../src/main/observe/log.ts";
import { inThreadEngine } from "../src/main/run/engine.ts";
import { poolEngine } from "../src/main/run/pool-engine.ts";
import { run } from "../src/main/run/runner.ts";
import { median } from "./median.ts";
import { pathLabel } from "./path-label.ts";
import { receivePathEngine } from "./receive-path-engine.ts";
import { startRelay, stopRelay } from "./relay-child.ts";

interface Row {
  viewers: number;
  workers: number;
}

const USAGE = `npm run bench:density -- [--rows 50x1,100x1,200x1,200x2] [--ramp 10] [--hold 15]
    [--paths werift,lean] [--profiles browser,minimal] [--out DIR] [--port 18889]
  --rows      NxW: N viewers over W worker threads (W = 0: the main thread), one row each
  --paths     receive paths (the scenario's receivePath; arena-own, arena-shared), each row once per path
  --profiles  viewer profiles (the scenario's viewerProfile), each row and path once per profile;
              absent: the scenario's default only
Prints µs of viewer-thread CPU per received packet over the hold, viewers per core and more per row.
`;
if (process.argv.includes("--help") || process.argv.includes("-h")) {
  process.stdout.write(USAGE);
  process.exit(0);
}

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

const rows: Row[] = arg("rows", "50x1,100x1,200x1,200x2")
  .split(",")
  .map((r) => {
    const [n, w] = r.split("x").map(Number);
    return { viewers: n ?? 0, workers: w ?? 0 };
  });
const rampSeconds = Number(arg("ramp", "10"));
/** keep each row's report JSON here (empty: not kept) */
const outDir = arg("out", "");
if (outDir !== "") mkdirSync(outDir, { recursive: true });
const holdSeconds = Number(arg("hold", "15"));
const PORT = Number(arg("port", "18889"));
// a path, or arena-own / arena-shared (bench/path-label.ts), checked here
const paths = arg("paths", "werift,lean").split(",");
for (const p of paths) pathLabel(p, "--paths");
/** the viewer profiles to run (undefined: the scenario's default, unnamed in the table) */
const profileNames = arg("profiles", "")
  .split(",")
  .filter((p) => p !== "");
for (const p of profileNames) {
  if ((VIEWER_PROFILES as readonly string[]).includes(p)) continue;
  process.stderr.write(`--profiles: unknown viewerProfile ${p} (want ${VIEWER_PROFILES.join(" or ")})\n`);
  process.exit(2);
}
const profiles: (ViewerProfile | undefined)[] = profileNames.map((p) => p as ViewerProfile);
if (profiles.length === 0) profiles.push(undefined);

/** Worker-thread CPU and packets over the hold only (setup excluded): the steady state. */
interface Steady {
  cpuSeconds: number;
  packets: number;
  seconds: number;
  /** per hold second: the worst viewer thread's event-loop delay p99 in that second, ms */
  eldP99: number[];
}

async function measure(
  row: Row,
  index: number,
  label: string,
  viewerProfile: ViewerProfile | undefined,
): Promise<{ report: Report; steady: Steady }> {
  const keys = pathLabel(label, "--paths");
  const path = keys.receivePath;
  const base = `http://127.0.0.1:${PORT}/density${index}`;
  const s: Scenario = normaliseScenario({
    name: `density-${row.viewers}x${row.workers}`,
    whip: `${base}/whip`,
    whep: `${base}/whep`,
    codec: "vp8",
    viewers: row.viewers,
    rampSeconds,
    holdSeconds,
    warmupSeconds: 2,
    excludeFirstSeconds: 2,
    loopbackOnly: true,
    ...keys,
    ...(viewerProfile === undefined ? {} : { viewerProfile }),
  });
  validateScenario(s);
  const inner = row.workers === 0 ? inThreadEngine() : poolEngine({ workers: row.workers });
  // the scenario key reaches the shards once the runner copies it; the engine makes sure of it
  const engine = receivePathEngine(inner, [path]);
  const steady: Steady = { cpuSeconds: 0, packets: 0, seconds: 0, eldP99: [] };
  // seconds fully inside the hold: after the last viewer started and joined (+2 s), before the end
  const from = rampSeconds + 2;
  const to = rampSeconds + holdSeconds - 1;
  const input = await run({
    command: "run",
    scenario: s,
    bearer: undefined,
    engine,
    log: memoryLogger(),
    interrupt: new AbortController().signal,
    onTick: (entry, ticks) => {
      if (!entry || entry.t <= from || entry.t > to) return;
      steady.seconds++;
      for (const t of ticks) {
        steady.cpuSeconds += t.thread.cpuSeconds;
        steady.packets += t.packets;
      }
      // a second without a thread's figures has no delay to report (not 0)
      if (ticks.length > 0) steady.eldP99.push(Math.max(...ticks.map((t) => t.thread.eventLoopDelayMs.p99)));
    },
  });
  return { report: buildReport(input), steady };
}

function line(cells: string[]): string {
  return `| ${cells.join(" | ")} |`;
}

const header = [
  "path",
  "viewers",
  "workers",
  "packets/s",
  "µs worker CPU/packet, hold (whole run)",
  "viewers/core",
  "peak RSS/viewer",
  "marginal RSS/viewer",
  "worst worker ELD p99: run (hold: median/max second)",
  "loss",
  "kernel UDP drops",
  "join p50/p99",
  "setup p99 (> 1 s)",
  "ceiling",
];

const relay = await startRelay(PORT);
const out: string[] = [line(header), line(header.map(() => "---:"))];
const lastRssByWorkers = new Map<string, { viewers: number; rss: number }>();
/** The viewers that did not join, counted by error kind and text (empty when all joined). */
function missedJoins(r: Report): string {
  const by = new Map<string, number>();
  for (const v of r.viewers ?? []) {
    if (v.joined) continue;
    const key = `${v.errorKind ?? "?"} (${v.error ?? ""})`;
    by.set(key, (by.get(key) ?? 0) + 1);
  }
  return [...by].map(([k, n]) => `${n} ${k}`).join("; ");
}

/** A ratio line of µs per packet, where both sides of it ran. */
function ratio(name: string, row: Row, a: number | undefined, b: number | undefined): void {
  if (a === undefined || b === undefined) return;
  out.push(`| ${name} | ${row.viewers} | ${row.workers} | | ${fmtFixed(a / b, 2)}× CPU per packet |`);
  process.stderr.write(`${out[out.length - 1]}\n`);
}

/** werift ÷ lean per profile, browser ÷ minimal per path. */
function ratioLines(row: Row, perCell: Map<string, number>): void {
  for (const profile of profiles) {
    const at = (path: string) => perCell.get(`${path}|${profile ?? ""}`);
    ratio(
      profile === undefined ? "werift ÷ lean" : `werift ÷ lean (${profile})`,
      row,
      at("werift"),
      at("lean"),
    );
  }
  for (const path of paths)
    ratio(`${path}: browser ÷ minimal`, row, perCell.get(`${path}|browser`), perCell.get(`${path}|minimal`));
}

let index = 0;
try {
  for (const row of rows) {
    /** µs per packet by path and profile */
    const perCell = new Map<string, number>();
    const cells = paths.flatMap((path) => profiles.map((profile) => ({ path, profile })));
    for (const { path, profile } of cells) {
      const label = profile === undefined ? path : `${path}/${profile}`;
      const { report: r, steady } = await measure(row, index++, path, profile);
      if (outDir !== "")
        writeFileSync(
          join(outDir, `density-${row.viewers}x${row.workers}-${label.replace("/", "-")}.json`),
          reportToJson(r),
        );
      const ws = r.client.workers ?? [];
      const perPacket = steady.packets > 0 ? (steady.cpuSeconds * 1e6) / steady.packets : Number.NaN;
      const coresUsed = steady.seconds > 0 ? steady.cpuSeconds / steady.seconds : Number.NaN;
      const pps = steady.seconds > 0 ? steady.packets / steady.seconds : Number.NaN;
      const runPerPacket =
        (ws.reduce((a, w) => a + w.cpuSeconds, 0) * 1e6) / (ws.reduce((a, w) => a + w.packets, 0) || 1);
      const rss = r.client.resources?.peakRssBytes ?? 0;
      const prev = lastRssByWorkers.get(`${label}/${row.workers}`);
      const marginal =
        prev && row.viewers > prev.viewers ? (rss - prev.rss) / (row.viewers - prev.viewers) : Number.NaN;
      lastRssByWorkers.set(`${label}/${row.workers}`, { viewers: row.viewers, rss });
      perCell.set(`${path}|${profile ?? ""}`, perPacket);
      const eld = Math.max(...ws.map((w) => w.eventLoopDelayMs.p99));
      const holdEldText =
        steady.eldP99.length > 0
          ? `${fmtFixed(median(steady.eldP99), 1)}/${fmtFixed(Math.max(...steady.eldP99), 1)}`
          : "—";
      const udp = r.client.resources?.udpReceiveErrors;
      const joins = r.aggregate.joinFirstKeyframeMs;
      const setups = (r.viewers ?? []).map((v) => v.iceConnectedMs ?? Number.NaN).filter(Number.isFinite);
      setups.sort((a, b) => a - b);
      const setupP99 = setups[Math.max(0, Math.ceil(0.99 * setups.length) - 1)] ?? Number.NaN;
      out.push(
        line([
          label,
          String(row.viewers),
          String(row.workers),
          fmtFixed(pps, 0),
          `${fmtFixed(perPacket, 1)} (run ${fmtFixed(runPerPacket, 1)})`,
          fmtFixed(coresUsed > 0 ? r.aggregate.joined / coresUsed : Number.NaN, 0),
          `${fmtFixed(rss / row.viewers / 1024, 0)} KB`,
          Number.isFinite(marginal) ? `${fmtFixed(marginal / 1024, 0)} KB` : "—",
          `${fmtFixed(eld, 1)} ms (${holdEldText} ms)`,
          lossCell(r.aggregate.lossPercentTotal, 3),
          udp ? String(udp.rcvbufErrors + udp.inErrors) : "n/a",
          `${fmtFixed(joins.p50, 0)}/${fmtFixed(joins.p99, 0)} ms`,
          `${fmtFixed(setupP99, 0)} ms (${setups.filter((x) => x > 1000).length})`,
          `${r.client.ceiling?.nearCeiling ? "fired" : "quiet"} (${r.aggregate.joined}/${row.viewers} joined)`,
        ]),
      );
      process.stderr.write(`${out[out.length - 1]}\n`);
      const missed = missedJoins(r);
      if (missed !== "")
        process.stderr.write(`  ${label} ${row.viewers}x${row.workers} missed joins: ${missed}\n`);
    }
    ratioLines(row, perCell);
  }
} finally {
  await stopRelay(relay);
}
process.stdout.write(`${out.join("\n")}\n`);
