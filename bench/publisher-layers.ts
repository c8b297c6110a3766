// What a simulcast layer costs the publisher (issue 41): the publisher in this process against
// `whipbench relay` in a child process (its CPU is not counted), publishing for `seconds` each way
// in turn, `rounds` times: the codec's own clip (one encoding, no simulcast), the simulcast path
// with one layer (h) and with all three (l, m, h) (docs/definitions.md#simulcast-publisher), and
// no publisher at all (this process idle: the floor every row includes). Each publisher connects
// afresh to a stream of its own; this process's CPU (user + system, process.cpuUsage) is read from
// its 2nd second of streaming to its last, so the connection setup is left out. One publisher of
// each kind runs first, unmeasured, to warm the JIT. Printed per configuration: packets and kbit/s
// sent, CPU ms per second (median over the rounds, and each round), and above the idle floor, µs
// per packet sent.
//
//   node bench/publisher-layers.ts [--seconds 10] [--rounds 3] [--codec vp8|h264]
import { parseArgs } from "node:util";
import { loadClip } from "../src/core/clip/clip.ts";
import { loadSimulcastClips } from "../src/core/clip/simulcast.ts";
import { takeWallAnchor } from "../src/core/clock/clock.ts";
import { Publisher, type PublisherOptions } from "../src/main/publisher/publisher.ts";
import type { IceOptions } from "../src/net/rtc.ts";
import { median } from "./median.ts";
import { startRelay, stopRelay } from "./relay-child.ts";

const { values: args } = parseArgs({
  options: {
    seconds: { type: "string", default: "10" },
    rounds: { type: "string", default: "3" },
    codec: { type: "string", default: "vp8" },
  },
});
const SECONDS = Number(args.seconds);
const ROUNDS = Number(args.rounds);
const CODEC = args.codec === "h264" ? "h264" : "vp8"; // checked below
if (!(SECONDS >= 4 && SECONDS <= 120) || !(Number.isInteger(ROUNDS) && ROUNDS >= 1 && ROUNDS <= 10)) {
  console.error("publisher-layers: --seconds 4..120, --rounds 1..10");
  process.exit(2);
}
if (args.codec !== "vp8" && args.codec !== "h264") {
  console.error("publisher-layers: --codec vp8 or h264");
  process.exit(2);
}
const ICE: IceOptions = { loopbackOnly: true, includeLoopback: false };
// away from the Janus recipe's ports (18088, 18188) and its ICE and RTP ranges (20000–41999)
const PORT = 47000 + (process.pid % 2000);
const WARM_MS = 2000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Config {
  name: string;
  /** null: no publisher (the idle floor) */
  media: (() => Pick<PublisherOptions, "clip" | "simulcast">) | null;
}
const CONFIGS: Config[] = [
  { name: "no publisher (idle floor)", media: null },
  { name: `${CODEC} clip, no simulcast`, media: () => ({ clip: loadClip(CODEC) }) },
  { name: "simulcast, 1 layer (h)", media: () => layers(["h"]) },
  { name: "simulcast, 3 layers (l, m, h)", media: () => layers(["l", "m", "h"]) },
];
function layers(rids: string[]): Pick<PublisherOptions, "clip" | "simulcast"> {
  const s = loadSimulcastClips(CODEC, rids);
  return { clip: s.combined, simulcast: s };
}

interface Sample {
  cpuMsPerS: number;
  /** the system part of cpuMsPerS (the kernel's work for this process: sends, stamps, timers) */
  sysMsPerS: number;
  packetsPerS: number;
  kbitPerS: number;
}

/** This process's CPU per second over the measured window (SECONDS less the warm-up). */
async function window(): Promise<Pick<Sample, "cpuMsPerS" | "sysMsPerS">> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await sleep(SECONDS * 1000 - WARM_MS);
  const cpu = process.cpuUsage(c0);
  const s = (performance.now() - t0) / 1000;
  return { cpuMsPerS: (cpu.user + cpu.system) / 1000 / s, sysMsPerS: cpu.system / 1000 / s };
}

/** One publisher for SECONDS on its own stream: CPU over the window, packets and bytes over its sending. */
async function publishOnce(config: Config, stream: string): Promise<Sample> {
  if (config.media === null) return { ...(await window()), packetsPerS: 0, kbitPerS: 0 };
  const publisher = new Publisher({
    whip: `http://127.0.0.1:${PORT}/${stream}/whip`,
    bearer: undefined,
    ice: ICE,
    noStamp: false,
    sendLog: null,
    anchor: takeWallAnchor(),
    ...config.media(),
  });
  const stop = new AbortController();
  try {
    await publisher.connect();
    const streaming = publisher.stream(stop.signal);
    await sleep(WARM_MS);
    const cpu = await window();
    stop.abort();
    const r = await streaming;
    if (r.error !== undefined) throw new Error(`${config.name}: ${r.error}`);
    const sending = r.sendingNs / 1e9;
    return {
      ...cpu,
      packetsPerS: r.packetsSent / sending,
      kbitPerS: (r.bytesSent * 8) / 1000 / sending,
    };
  } finally {
    stop.abort();
    await publisher.close();
  }
}

const relay = await startRelay(PORT);
const samples: Sample[][] = CONFIGS.map(() => []);
try {
  for (const [i, config] of CONFIGS.entries()) await publishOnce(config, `warm${i}`);
  // the configurations alternate within each round, so a change in the machine's load falls on all
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, config] of CONFIGS.entries()) {
      samples[i]?.push(await publishOnce(config, `c${i}r${round}`));
    }
  }
} finally {
  await stopRelay(relay);
}

console.log(
  `publisher cost per layer, ${CODEC}, ${SECONDS} s per publisher (CPU from its 2nd second), ` +
    `${ROUNDS} rounds alternating; relay in a child process, not counted`,
);
console.log(
  "| configuration | packets/s | kbit/s | CPU ms per s, median (each round) | of which system | " +
    "µs per packet above idle |",
);
console.log("|---|---:|---:|---|---:|---:|");
const idle = median((samples[0] ?? []).map((x) => x.cpuMsPerS));
const above: number[] = [];
for (const [i, config] of CONFIGS.entries()) {
  const xs = samples[i] ?? [];
  const cpu = median(xs.map((x) => x.cpuMsPerS));
  const pps = median(xs.map((x) => x.packetsPerS));
  const kbit = median(xs.map((x) => x.kbitPerS));
  const sys = median(xs.map((x) => x.sysMsPerS));
  above.push(cpu - idle);
  const each = xs.map((x) => x.cpuMsPerS.toFixed(1)).join(", ");
  const perPacket = pps > 0 ? (((cpu - idle) * 1000) / pps).toFixed(1) : "— (no packets)";
  console.log(
    `| ${config.name} | ${pps.toFixed(1)} | ${kbit.toFixed(0)} | ${cpu.toFixed(1)} (${each}) | ` +
      `${sys.toFixed(1)} | ${perPacket} |`,
  );
}
const [, plain, one, three] = above as [number, number, number, number];
console.log(
  `above the idle floor: 3 layers against 1 (h) ${(three / one).toFixed(2)}×, ` +
    `${((three - one) / 2).toFixed(1)} ms per s per added layer; ` +
    `1 simulcast layer against the plain clip ${(one / plain).toFixed(2)}×`,
);
