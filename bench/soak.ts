// A churn soak against the built-in relay (docs/definitions.md#churn): viewers leave with a WHEP
// DELETE at their lifetimes' ends and late joiners take their places for the whole duration,
// while this process's own resources are sampled: RSS, the main thread's heap (after a full
// collection), open descriptors (/proc/self/fd) and threads (/proc/self/status). Nothing of the
// client may grow with the number of viewers that have come and gone, so the first sample after
// the first lifetimes and the last before the deadline should match.
//
//   node bench/soak.ts --seconds 1800 [--viewers 6] [--mean 8] [--min 4] [--workers 0]
import { readdirSync, readFileSync } from "node:fs";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { buildReport } from "../src/core/report/build.ts";
import { normaliseScenario, validateScenario } from "../src/core/scenario-file/scenario.ts";
import { memoryLogger } from "../src/main/observe/log.ts";
import { Relay } from "../src/main/relay/relay.ts";
import { type Engine, inThreadEngine } from "../src/main/run/engine.ts";
import { poolEngine } from "../src/main/run/pool-engine.ts";
import { run } from "../src/main/run/runner.ts";

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isFinite(v) || v < 0) throw new Error(`--${name} wants a number`);
  return v;
}

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

interface Sample {
  tS: number;
  rssMiB: number;
  heapMiB: number;
  fds: number;
  threads: number;
}

const began = performance.now();
function sample(): Sample {
  gc();
  const status = readFileSync("/proc/self/status", "utf8");
  return {
    tS: Math.round((performance.now() - began) / 1000),
    rssMiB: process.memoryUsage.rss() / 2 ** 20,
    heapMiB: process.memoryUsage().heapUsed / 2 ** 20,
    fds: readdirSync("/proc/self/fd").length,
    threads: Number(/^Threads:\s+(\d+)/m.exec(status)?.[1] ?? -1),
  };
}

function line(label: string, s: Sample): string {
  return `${label.padEnd(8)} t=${String(s.tS).padStart(5)} s  rss ${s.rssMiB.toFixed(1)} MiB  heap ${s.heapMiB.toFixed(1)} MiB  fds ${s.fds}  threads ${s.threads}`;
}

async function main(): Promise<void> {
  const seconds = flag("seconds", 1800);
  const workers = flag("workers", 0);
  const relay = new Relay({ ice: { loopbackOnly: true, includeLoopback: false } });
  const base = await relay.listen();
  const scenario = validateScenario(
    normaliseScenario({
      name: "soak",
      whip: `${base}/soak/whip`,
      whep: `${base}/soak/whep`,
      viewers: flag("viewers", 6),
      rampSeconds: 2,
      holdSeconds: seconds,
      warmupSeconds: 1,
      joinTimeoutSeconds: flag("min", 4),
      excludeFirstSeconds: 1,
      loopbackOnly: true,
      churn: { meanLifetimeSeconds: flag("mean", 8), minLifetimeSeconds: flag("min", 4), seed: 1 },
    }),
  );
  const engine: Engine = workers > 0 ? poolEngine({ workers }) : inThreadEngine();
  const samples: Sample[] = [];
  const before = sample();
  console.log(line("before", before));
  const every = setInterval(() => {
    const s = sample();
    samples.push(s);
    console.log(line("run", s));
  }, 15_000);
  const input = await run({
    command: "run",
    scenario,
    bearer: undefined,
    engine,
    log: memoryLogger(),
    interrupt: new AbortController().signal,
  });
  clearInterval(every);
  // legs the relay still holds once every viewer has stopped: sessions no DELETE reached
  const openLegs = relay.viewers("soak");
  await engine.close?.();
  await relay.close();
  const after = sample();
  const r = buildReport(input);
  const c = r.aggregate.churn;
  console.log(`verdict: ${r.aggregate.verdict}`);
  if (c !== undefined) {
    console.log(
      `churn: ${c.viewers} viewers (${c.lateJoiners} late joiners, ${c.lateJoins} joined), ${c.joins} joins, ${c.leaves} leaves; late join p50 ${c.lateJoinFirstKeyframeMs.p50} ms, p95 ${c.lateJoinFirstKeyframeMs.p95} ms; relay DELETEs ${relay.deletes}`,
    );
  }
  const failed = new Map<string, number>();
  for (const v of r.viewers ?? [])
    if (!v.joined) failed.set(v.errorKind ?? "?", (failed.get(v.errorKind ?? "?") ?? 0) + 1);
  console.log(
    `failed to join: ${[...failed].map(([k, n]) => `${k} ${n}`).join(", ") || "none"}; relay legs still open after the viewers stopped: ${openLegs}`,
  );
  // the first sample once every place has turned over at least once, and the last in the run
  const first = samples[1] ?? samples[0];
  const last = samples.at(-1);
  if (first !== undefined && last !== undefined) {
    console.log(line("start", first));
    console.log(line("end", last));
  }
  console.log(line("after", after));
}

await main();
