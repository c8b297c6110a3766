// A viewer thread's garbage collection against its receive lag: one publisher and N viewers on
// one worker thread, through the built-in relay in its own process, run alternately with the
// viewer threads' young generation at V8's default and at the engine's own size
// (VIEWER_YOUNG_GENERATION_MB), in the same process against the same relay. Prints per run: the
// thread's receive lag p50/p99/max over the measured window, the worst per-second receive lag,
// µs of viewer-thread CPU per received packet, and whether the client's ceiling guard fired.
// Both arms run with V8's memory reducer off, as the engine switches it off before its first pool.
//
//   npm run bench:viewer-gc -- [--viewers 30] [--rounds 3] [--hold 12] [--young default,6]
//
// To see the collections themselves, run it under `--trace-gc`: the viewer thread's lines carry
// its own isolate address. The relay child process is started and stopped by the benchmark
// itself (its PID only).
import { fmtFixed } from "../src/core/go-compat/fmt.ts";
import { buildReport } from "../src/core/report/build.ts";
import { normaliseScenario, validateScenario } from "../src/core/scenario-file/scenario.ts";
import { memoryLogger } from "../src/main/observe/log.ts";
import { poolEngine, VIEWER_YOUNG_GENERATION_MB } from "../src/main/run/pool-engine.ts";
import { run } from "../src/main/run/runner.ts";
import { median } from "./median.ts";
import { startRelay, stopRelay } from "./relay-child.ts";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

const viewers = Number(arg("viewers", "30"));
const rounds = Number(arg("rounds", "3"));
const holdSeconds = Number(arg("hold", "12"));
const PORT = Number(arg("port", "18893"));
const sizes: (number | null)[] = arg("young", `default,${VIEWER_YOUNG_GENERATION_MB}`)
  .split(",")
  .map((v) => (v === "default" ? null : Number(v)));

interface Row {
  lagP50: number;
  lagP99: number;
  lagMax: number;
  worstSecond: number;
  usPerPacket: number;
  near: boolean;
}

async function measure(young: number | null, index: number): Promise<Row> {
  const base = `http://127.0.0.1:${PORT}/gc${index}`;
  const s = normaliseScenario({
    name: `viewer-gc-${viewers}`,
    whip: `${base}/whip`,
    whep: `${base}/whep`,
    codec: "vp8",
    viewers,
    rampSeconds: 2,
    holdSeconds,
    excludeFirstSeconds: 3,
    loopbackOnly: true,
  });
  validateScenario(s);
  const input = await run({
    command: "run",
    scenario: s,
    bearer: undefined,
    engine: poolEngine({ workers: 1, youngGenerationMb: young }),
    log: memoryLogger(),
    interrupt: new AbortController().signal,
  });
  const r = buildReport(input);
  const lag = r.client.receiveLagMs;
  const w = r.client.workers?.[0];
  // the per-second figure from the measured window on (ramp + exclusion), to the end of the hold
  const seconds = (r.timeline ?? []).filter((t) => t.t > 5 && t.receiveLagMs !== undefined);
  return {
    lagP50: lag?.p50 ?? Number.NaN,
    lagP99: lag?.p99 ?? Number.NaN,
    lagMax: lag?.max ?? Number.NaN,
    // no second with a receive lag: unavailable (NaN), not 0
    worstSecond:
      seconds.length === 0 ? Number.NaN : Math.max(...seconds.map((t) => t.receiveLagMs ?? Number.NaN)),
    usPerPacket: w?.usPerPacket ?? Number.NaN,
    near: r.client.ceiling?.nearCeiling === true,
  };
}

const label = (y: number | null) => (y === null ? "V8 default" : `${y} MB`);
const relay = await startRelay(PORT);
const results = new Map<number | null, Row[]>(sizes.map((y) => [y, []]));
try {
  console.log(
    `${viewers} viewers on one worker thread, hold ${holdSeconds} s, ${rounds} rounds, sizes alternating`,
  );
  console.log(
    "| young generation | receive lag p50 / p99 / max ms | worst second p99 ms | µs/packet | near ceiling |",
  );
  console.log("|---|---:|---:|---:|---|");
  let index = 0;
  for (let round = 0; round < rounds; round++) {
    for (const y of sizes) {
      const row = await measure(y, index++);
      results.get(y)?.push(row);
      console.log(
        `| ${label(y)} | ${fmtFixed(row.lagP50, 2)} / ${fmtFixed(row.lagP99, 2)} / ${fmtFixed(row.lagMax, 2)} | ${fmtFixed(row.worstSecond, 2)} | ${fmtFixed(row.usPerPacket, 1)} | ${row.near ? "yes" : "no"} |`,
      );
    }
  }
  for (const [y, rows] of results) {
    const p99 = median(rows.map((r) => r.lagP99));
    const max = median(rows.map((r) => r.lagMax));
    const us = median(rows.map((r) => r.usPerPacket));
    console.log(
      `${label(y)}: median receive lag p99 ${fmtFixed(p99, 2)} ms, max ${fmtFixed(max, 2)} ms, ${fmtFixed(us, 1)} µs/packet; near its ceiling in ${rows.filter((r) => r.near).length} of ${rows.length}`,
    );
  }
} finally {
  await stopRelay(relay);
}
