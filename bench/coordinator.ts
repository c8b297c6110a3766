// bench:coordinator — can the coordinator of a many-host run keep up? Simulated agents (real wire
// frames, encoded before the clock starts) feed the real coordinator path: the frame reader, the
// shape checks, the agents engine, the per-second timeline and /metrics, then the final records
// through the report builder. Prints the main thread's CPU per simulated second (its headroom)
// and per viewer-second, and the time the final merge holds the main thread.
//   node bench/coordinator.ts [--agents 10] [--viewers 500] [--seconds 20] [--fps 30]
import { threadCpuUsage } from "node:process";
import { parseArgs } from "node:util";
import { loadClip } from "../src/core/clip/clip.ts";
import { monoNs } from "../src/core/clock/clock.ts";
import { clipIdentity, createHasher } from "../src/core/delay/fingerprint.ts";
import { SendLog } from "../src/core/delay/sendlog.ts";
import { buildReport } from "../src/core/report/build.ts";
import { RunMetrics } from "../src/main/observe/metrics.ts";
import { ResourceWatch } from "../src/main/observe/resources.ts";
import { reportInput } from "../src/main/run/report-input.ts";
import { Timeline } from "../src/main/run/timeline.ts";
import { dealIds, simAgents, simEngine } from "./sim-agents.ts";

const { values } = parseArgs({
  options: {
    agents: { type: "string", default: "10" },
    viewers: { type: "string", default: "500" },
    seconds: { type: "string", default: "20" },
    fps: { type: "string", default: "30" },
  },
});
const agentsN = Number(values.agents);
const perAgent = Number(values.viewers);
const seconds = Number(values.seconds);
const fps = Number(values.fps);
const viewers = agentsN * perAgent;

function cpuMs(): number {
  const u = threadCpuUsage();
  return (u.user + u.system) / 1000;
}

const prepStart = performance.now();
const agents = simAgents(
  { agents: agentsN, viewersPerAgent: perAgent, seconds, fps },
  dealIds(agentsN, viewers),
);
const { engine, tasks } = simEngine(agents, viewers);
const identity = clipIdentity(await createHasher(), loadClip("vp8"));
console.log(
  `${agentsN} agents × ${perAgent} viewers, ${seconds} s at ${fps} fps: frames prepared in ${Math.round(performance.now() - prepStart)} ms`,
);

const metrics = new RunMetrics({ viewersTarget: viewers, delaySources: ["fingerprint", "stamp"] });
const resources = new ResourceWatch(monoNs());
const timeline = new Timeline({
  shards: agentsN,
  resources,
  cpuCount: 1,
  onSecond: () => {},
  onTick: (_e, ticks) => {
    for (const t of ticks) metrics.applyTick(t);
  },
});
await engine.warmUp?.(agentsN);
const running = engine.run(tasks, new AbortController().signal, (t) => timeline.tick(t));

// one simulated second at a time: every agent's tick of that second, then a breath for the loop
const perSecondMs: number[] = [];
for (let s = 0; s < seconds; s++) {
  const c0 = cpuMs();
  for (const a of agents) a.deliver([a.ticks[s] as Buffer]);
  perSecondMs.push(cpuMs() - c0);
  await new Promise((r) => setImmediate(r));
}
const f0 = cpuMs();
const w0 = performance.now();
for (const a of agents) a.deliver(a.finals);
const result = await running;
const arrivalCpuMs = cpuMs() - f0;
const sendLog = SendLog.create(identity.fingerprints.length);
const input = engine.finishInput(
  reportInput({
    command: "run",
    interrupted: false,
    scenario: { whip: "http://h/w", whep: "http://h/e", viewers, rampSeconds: 1, holdSeconds: seconds },
    workers: agentsN,
    startedAtUnixNs: 0n,
    finishedAtUnixNs: BigInt(seconds) * 1_000_000_000n,
    publishing: true,
    publisherFailed: false,
    publisher: null,
    clock: { method: "monotonic", offsetMs: 0, uncertaintyMs: 0, stepDetected: false },
    sendLog,
    identity,
    duplicateFrames: 0,
    schedule: null,
    t0MonoNs: tasks[0]?.t0MonoNs ?? 0,
    autoLoopback: false,
    records: result.records,
    profiles: result.profiles,
    timeline: timeline.entries(),
    mainThread: { cpuSeconds: 1, eventLoopUtilisation: 0.1, eventLoopDelayMs: { p50: 1, p99: 2, max: 3 } },
    udp: null,
    resources: resources.finish(monoNs()),
  }),
);
const report = buildReport(input);
const finalCpuMs = cpuMs() - f0;
const finalWallMs = performance.now() - w0;

const joined = report.viewers?.filter((v) => v.joined).length ?? 0;
if (joined !== viewers || result.records.length !== viewers)
  throw new Error(`only ${joined} of ${viewers} viewers came through`);
const sorted = [...perSecondMs].sort((a, b) => a - b);
const mean = perSecondMs.reduce((a, b) => a + b, 0) / perSecondMs.length;
const p95 = sorted[Math.min(sorted.length - 1, Math.floor(0.95 * sorted.length))] ?? 0;
const totalMs = perSecondMs.reduce((a, b) => a + b, 0) + finalCpuMs;
const fmt = (v: number, d = 1) => v.toFixed(d);
console.log(
  `per simulated second (all agents' ticks): mean ${fmt(mean)} ms CPU, p95 ${fmt(p95)} ms, max ${fmt(sorted.at(-1) ?? 0)} ms`,
);
console.log(
  `main-thread headroom: ${fmt(100 - mean / 10)} % of each second free (mean), ${fmt(100 - p95 / 10)} % at p95`,
);
console.log(
  `final records arriving (frames, shape and histogram checks): ${fmt(arrivalCpuMs, 0)} ms CPU (${fmt((1000 * arrivalCpuMs) / viewers, 1)} µs per viewer)`,
);
console.log(
  `final records → report: ${fmt(finalCpuMs, 0)} ms CPU, ${fmt(finalWallMs, 0)} ms wall (${fmt((1000 * finalCpuMs) / viewers, 1)} µs per viewer)`,
);
console.log(
  `CPU per viewer-second: ${fmt((1000 * totalMs) / (viewers * seconds), 2)} µs (ticks ${fmt((1000 * mean) / viewers, 2)} µs, final merge included)`,
);
console.log(
  `delay p50 ${report.aggregate.oneWayDelay[0]?.ms?.p50} ms over ${joined} viewers (a check that the merge ran)`,
);
