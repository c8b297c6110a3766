// What the arena reader's wake-up costs a viewer thread when nothing arrives: N loopback sockets
// registered with the thread's reader (src/workers/receive/arena-reader.ts: an epoll set libuv watches,
// src/workers/receive/arena-pace.ts), against the same N sockets read by libuv (dgram), alternating.
// Prints the thread's CPU per second (µs/s, and % of a core): libuv over S seconds, the reader
// over its first 2 s and then over S seconds.
//
//   npm run bench:arena-idle -- [--sockets 50,200] [--seconds 5] [--rounds 3]
import { createSocket, type Socket } from "node:dgram";
import { fmtFixed } from "../src/core/go-compat/fmt.ts";
import { viewerThread } from "../src/workers/thread.ts";
import { median } from "./median.ts";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}
const counts = arg("sockets", "50,200").split(",").map(Number);
const seconds = Number(arg("seconds", "5"));
const rounds = Number(arg("rounds", "3"));

const reader = viewerThread().arena();
if (typeof reader === "string") {
  process.stdout.write(`the arena path cannot run here: ${reader}\n`);
  process.exit(0);
}

async function bound(n: number): Promise<Socket[]> {
  return Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<Socket>((resolve) => {
          const s = createSocket("udp4");
          s.on("message", () => {});
          s.bind(0, "127.0.0.1", () => resolve(s));
        }),
    ),
  );
}

/** Thread CPU µs per second over `s` seconds of doing nothing else. */
async function idleCpu(s = seconds): Promise<number> {
  const c0 = process.threadCpuUsage();
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, s * 1000));
  const c1 = process.threadCpuUsage(c0);
  return (c1.user + c1.system) / ((performance.now() - t0) / 1000);
}

const lines = [
  `idle viewer thread, ${seconds} s per window, medians of ${rounds} rounds`,
  "",
  "| sockets | read by | thread CPU µs/s | % of a core |",
  "| ---: | --- | ---: | ---: |",
];
for (const n of counts) {
  const libuv: number[] = [];
  const arena: number[] = [];
  const backingOff: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const a = await bound(n);
    libuv.push(await idleCpu());
    for (const s of a) s.close();
    const b = await bound(n);
    const removals = b.map((s) => reader.add(s, { receive: () => {} }, () => {}));
    if (removals.some((x) => typeof x === "string"))
      throw new Error(`registration failed: ${removals.find((x) => typeof x === "string")}`);
    if (reader.registered !== n) throw new Error(`${reader.registered} of ${n} sockets registered`);
    backingOff.push(await idleCpu(2));
    if (!reader.pace.watching)
      throw new Error(`after 2 s idle the reader still polls (${reader.pace.wakeReason ?? "a timer runs"})`);
    arena.push(await idleCpu());
    for (const x of removals) if (typeof x !== "string") x();
    for (const s of b) s.close();
  }
  for (const [what, xs] of [
    ["libuv (dgram)", libuv],
    ["arena reader, first 2 s", backingOff],
    ["arena reader, idle (asleep until a socket is ready)", arena],
  ] as const) {
    const m = median(xs);
    lines.push(`| ${n} | ${what} | ${fmtFixed(m, 0)} | ${fmtFixed(m / 1e4, 2)} |`);
  }
}
process.stdout.write(`${lines.join("\n")}\n`);
