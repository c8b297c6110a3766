// bench:reference — what one libwebrtc reference viewer costs (docs/definitions.md#reference-viewers):
// the built-in relay in this process with the VP8 clip (640×360, 30 fps) published into it, and K
// reference viewers (src/main/reference/, each a process of its own) watching it for S seconds.
// Per reference viewer, read from /proc: the CPU it used loading libwebrtc before t0, its CPU over
// the watched seconds (% of one core), and its resident memory (VmRSS at the end, VmHWM peak).
// The relay and the publisher run in this process and are not counted. Flags: --viewers K (2),
// --seconds S (20).
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { loadClip } from "../src/core/clip/clip.ts";
import { takeWallAnchor } from "../src/core/clock/clock.ts";
import { memoryLogger } from "../src/main/observe/log.ts";
import { Publisher } from "../src/main/publisher/publisher.ts";
import { ReferenceViewers } from "../src/main/reference/reference-viewers.ts";
import { wrtcMissing } from "../src/main/reference/wrtc.ts";
import { Relay } from "../src/main/relay/relay.ts";

const { values } = parseArgs({
  options: { viewers: { type: "string", default: "2" }, seconds: { type: "string", default: "20" } },
});
const k = Number(values.viewers);
const seconds = Number(values.seconds);
const missing = wrtcMissing();
if (missing !== null) {
  console.error(`bench:reference: ${missing}`);
  process.exit(1);
}
/** USER_HZ: /proc/<pid>/stat counts CPU time in these ticks (100 on Linux). */
const TICKS = 100;

/** CPU seconds (user + system) of a process so far. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) / TICKS;
}

/** A line of /proc/<pid>/status in MiB (VmRSS, VmHWM). */
function memMiB(pid: number, key: string): number {
  const m = new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(m?.[1] ?? Number.NaN) / 1024;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ICE = { loopbackOnly: true, includeLoopback: false };
const relay = new Relay({ ice: ICE });
const base = await relay.listen();
const publisher = new Publisher({
  whip: `${base}/ref/whip`,
  bearer: undefined,
  clip: loadClip("vp8"),
  ice: ICE,
  noStamp: false,
  sendLog: null,
  anchor: takeWallAnchor(),
});
const stop = new AbortController();
await publisher.connect();
const streaming = publisher.stream(stop.signal);
await relay.ready("ref");
const log = memoryLogger();
const refs = ReferenceViewers.forRun({
  scenario: {
    whep: `${base}/ref/whep`,
    viewers: 1,
    rampSeconds: 0,
    holdSeconds: seconds,
    referenceViewers: k,
    loopbackOnly: true,
    codec: "vp8",
  },
  bearer: undefined,
  log,
});
if (refs === null) throw new Error("no reference viewers planned");
refs.prepare();
await sleep(4000); // their processes start and load libwebrtc, as during a run's warm-up
const pids = refs.processIds();
const loadCpu = pids.map(cpuSeconds);
const loadRss = pids.map((p) => memMiB(p, "VmRSS"));
refs.start(seconds * 1000, stop.signal);
await sleep(3000); // joined and decoding
const from = pids.map(cpuSeconds);
const t0 = performance.now();
await sleep((seconds - 4) * 1000);
const watchedS = (performance.now() - t0) / 1000;
const used = pids.map((p, i) => cpuSeconds(p) - (from[i] ?? 0));
const rss = pids.map((p) => memMiB(p, "VmRSS"));
const hwm = pids.map((p) => memMiB(p, "VmHWM"));
const results = await refs.finish();
stop.abort();
await streaming;
await publisher.close();
await relay.close();

console.log(
  `reference viewers: ${k}, watched ${watchedS.toFixed(1)} s of a ${seconds} s phase (VP8 640×360 30 fps)`,
);
console.log(
  "| viewer | CPU loading libwebrtc | CPU watching (% of a core) | RSS loaded | RSS watching | peak RSS | frames decoded | freezes |",
);
console.log("|---:|---:|---:|---:|---:|---:|---:|---:|");
for (const [i] of pids.entries()) {
  const r = results[i];
  console.log(
    `| ${i + 1} | ${(loadCpu[i] ?? 0).toFixed(2)} s | ${(((used[i] ?? 0) / watchedS) * 100).toFixed(1)} % | ${(loadRss[i] ?? 0).toFixed(0)} MiB | ${(rss[i] ?? 0).toFixed(0)} MiB | ${(hwm[i] ?? 0).toFixed(0)} MiB | ${r?.figures?.framesDecoded ?? r?.reason} | ${r?.figures?.freezes ?? "—"} |`,
  );
}
