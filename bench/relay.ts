// Relay benchmark (docs/definitions.md#built-in-relay): `whipbench relay` in a process of its own,
// once per send path (--paths, default werift then native: today's path and the native fan-out,
// in the same run, against the same client), N viewers on one viewer thread (arena path, shared
// socket: the cheapest client) per row. Over the hold only (setup excluded), the relay process's
// CPU (/proc/<pid>/stat) divided by the packets the viewers received gives µs of relay CPU per
// forwarded packet; viewers per relay core follows at the packets per second each viewer got.
// Client-side loss, kernel UDP drops and the ceiling verdict sit beside each row. A first table
// measures the send path alone in this process (bench/relay-fanout.ts), where the client's own
// state cannot move the figure: --legs (default 200,400) legs, one 3-packet frame per round.
//
//   npm run bench:relay -- [--legs 200,400] [--rows 100,200] [--paths werift,native,native+1] [--ramp 8] [--hold 12] [--rounds 1]
//
// `native+N`: the native send path in N relay threads (`whipbench relay --workers N`).
//
// The relay child is started and stopped by the benchmark itself (its PID only). Linux only (/proc).
import { readFileSync } from "node:fs";
import { fmtFixed } from "../src/core/go-compat/fmt.ts";
import { buildReport } from "../src/core/report/build.ts";
import { lossCell } from "../src/core/report/reasons.ts";
import { normaliseScenario, validateScenario } from "../src/core/scenario-file/scenario.ts";
import { memoryLogger } from "../src/main/observe/log.ts";
import { poolEngine } from "../src/main/run/pool-engine.ts";
import { run } from "../src/main/run/runner.ts";
import { median } from "./median.ts";
import { pathLabel } from "./path-label.ts";
import { receivePathEngine } from "./receive-path-engine.ts";
import { startRelay, stopRelay } from "./relay-child.ts";
import { fanoutCost } from "./relay-fanout.ts";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

const rows = arg("rows", "100,200")
  .split(",")
  .filter((x) => x !== "")
  .map(Number);
const paths = arg("paths", "werift,native").split(",");
/** `werift`, `native` (the main thread) or `native+N` (N relay threads): the relay's arguments. */
function relayArgs(p: string): string[] {
  if (p === "werift" || p === "native") return ["--send", p];
  const m = /^native\+(\d+)$/.exec(p);
  if (m === null) throw new Error(`--paths: unknown send path ${p}`);
  return ["--send", "native", "--workers", m[1]!];
}
for (const p of paths) relayArgs(p);
const rampSeconds = Number(arg("ramp", "8"));
const holdSeconds = Number(arg("hold", "12"));
const rounds = Number(arg("rounds", "1"));
const PORT = Number(arg("port", "18899"));

/** utime + stime of a process, seconds (/proc/<pid>/stat fields 14 and 15, at 100 ticks a second). */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) / 100;
}

interface Row {
  path: string;
  viewers: number;
  usPerPacket: number;
  relayCores: number;
  ppsPerViewer: number;
  /** null where no packet was expected */
  loss: number | null;
  drops: string;
  ceiling: string;
  sendLine: string;
}

async function measure(path: string, viewers: number, index: number): Promise<Row> {
  const lines: string[] = [];
  const relay = await startRelay(PORT, relayArgs(path), lines);
  const pid = relay.pid ?? -1;
  try {
    const base = `http://127.0.0.1:${PORT}/relay${index}`;
    const s = normaliseScenario({
      name: `relay-${path}-${viewers}`,
      whip: `${base}/whip`,
      whep: `${base}/whep`,
      codec: "vp8",
      viewers,
      rampSeconds,
      holdSeconds,
      warmupSeconds: 2,
      excludeFirstSeconds: 2,
      loopbackOnly: true,
      ...pathLabel("arena-shared", "arena-shared"),
    });
    validateScenario(s);
    const engine = receivePathEngine(poolEngine({ workers: 1 }), ["arena"]);
    const from = rampSeconds + 2;
    const to = rampSeconds + holdSeconds - 1;
    let cpuFrom = Number.NaN;
    let cpuTo = Number.NaN;
    let packets = 0;
    let seconds = 0;
    const input = await run({
      command: "run",
      scenario: s,
      bearer: undefined,
      engine,
      log: memoryLogger(),
      interrupt: new AbortController().signal,
      onTick: (entry, ticks) => {
        if (!entry) return;
        if (entry.t === from) cpuFrom = cpuSeconds(pid);
        if (entry.t <= from || entry.t > to) return;
        seconds++;
        for (const t of ticks) packets += t.packets;
        if (entry.t === to) cpuTo = cpuSeconds(pid);
      },
    });
    const r = buildReport(input);
    const cpu = cpuTo - cpuFrom;
    const udp = r.client.resources?.udpReceiveErrors;
    return {
      path,
      viewers,
      usPerPacket: packets > 0 ? (cpu * 1e6) / packets : Number.NaN,
      relayCores: seconds > 0 ? cpu / seconds : Number.NaN,
      ppsPerViewer: seconds > 0 ? packets / seconds / viewers : Number.NaN,
      loss: r.aggregate.lossPercentTotal,
      drops: udp ? String(udp.rcvbufErrors + udp.inErrors) : "n/a",
      ceiling: `${r.client.ceiling?.nearCeiling ? "fired" : "quiet"} (${r.aggregate.joined}/${viewers} joined)`,
      sendLine: lines.find((l) => l.includes("send path")) ?? "(no send path line)",
    };
  } finally {
    await stopRelay(relay);
  }
}

const line = (cells: string[]): string => `| ${cells.join(" | ")} |`;

const fanout = [
  line(["legs", "µs CPU / forwarded packet: native", "werift (floor)", "werift ÷ native"]),
  line(["---:", "---:", "---:", "---:"]),
];
for (const legs of arg("legs", "200,400")
  .split(",")
  .filter((x) => x !== "")
  .map(Number)) {
  const c = await fanoutCost(legs, 3, 40);
  fanout.push(
    line([
      String(legs),
      fmtFixed(c.native, 2),
      fmtFixed(c.werift, 2),
      `${fmtFixed(c.werift / c.native, 2)}×`,
    ]),
  );
  process.stderr.write(`${fanout[fanout.length - 1]}\n`);
}
process.stdout.write(
  `send path alone (this process, 3 packets of 1 100 B per leg per round, 40 rounds):\n${fanout.join("\n")}\n\n`,
);

const header = [
  "send path",
  "viewers",
  "µs relay CPU / forwarded packet (hold)",
  "relay cores used",
  "viewers / relay core at 69 packets/s",
  "loss",
  "kernel UDP drops",
  "ceiling",
];
const out = [line(header), line(header.map(() => "---:"))];
const perPath = new Map<string, number[]>();
let index = 0;
for (let round = 0; round < rounds; round++) {
  for (const viewers of rows) {
    for (const path of paths) {
      const r = await measure(path, viewers, index++);
      process.stderr.write(`  ${r.sendLine}\n`);
      const key = `${path}/${viewers}`;
      perPath.set(key, [...(perPath.get(key) ?? []), r.usPerPacket]);
      out.push(
        line([
          path,
          String(viewers),
          fmtFixed(r.usPerPacket, 1),
          fmtFixed(r.relayCores, 2),
          fmtFixed(1e6 / (r.usPerPacket * 69), 0),
          lossCell(r.loss, 3),
          r.drops,
          r.ceiling,
        ]),
      );
      process.stderr.write(`${out[out.length - 1]}\n`);
    }
  }
}
for (const viewers of rows) {
  const w = median(perPath.get(`werift/${viewers}`) ?? []);
  const n = median(perPath.get(`native/${viewers}`) ?? []);
  if (Number.isFinite(w) && Number.isFinite(n))
    out.push(
      `| werift ÷ native | ${viewers} | ${fmtFixed(w / n, 2)}× relay CPU per packet (median of ${rounds}) |`,
    );
}
process.stdout.write(`${out.join("\n")}\n`);
