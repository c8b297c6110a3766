// How a viewer thread should wake for its datagrams (docs/definitions.md#receive-paths): the
// thread's CPU per datagram, and its wake-ups per second, when one socket (the viewers' shared
// socket) gets bursts of V datagrams of 1 200 B, 70 bursts a second (a relay forwarding a ~70
// packet/s stream to V viewers), sent by a child process one every G µs (--gap-us: the built-in
// relay's fan-out spends ~55 µs per leg; 0: back to back). Ways of waking, alternating, each read
// with the same epoll set and recvmmsg arena (src/net/batch-read.ts):
// - poll: epoll_wait(0) from a 1 ms setInterval (the arena reader up to 0633f58);
// - ready: libuv watches the epoll set (src/net/ready-wake.ts), a wake per readiness;
// - hybrid: ready, but after a wake that read something, 1 ms polls until one finds nothing;
// - async: epoll_wait(-1) as a koffi async call on a libuv threadpool thread, re-armed per wake;
// - reader: the arena reader's own pacing (src/workers/receive/arena-pace.ts), which is `ready`.
// Then what the thread's event-loop delay monitor costs it while nothing else happens: its timer
// wakes the thread at its resolution (src/net/thread-profile.ts), idle thread CPU per second.
//
//   npm run bench:arena-wake -- [--viewers 25,200] [--gap-us 50] [--seconds 4] [--rounds 2] [--modes poll,ready,hybrid,async,reader]
import { spawn } from "node:child_process";
import { createSocket } from "node:dgram";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { fmtFixed } from "../src/core/go-compat/fmt.ts";
import { batchReads, DatagramArena, ReadySet, stopLibuvReading } from "../src/net/batch-read.ts";
import { socketFd } from "../src/net/kernel.ts";
import { koffi } from "../src/net/koffi.ts";
import { readyWake } from "../src/net/ready-wake.ts";
import { ArenaPace } from "../src/workers/receive/arena-pace.ts";
import { median } from "./median.ts";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}
const viewerCounts = arg("viewers", "25,200").split(",").map(Number);
const seconds = Number(arg("seconds", "4"));
const rounds = Number(arg("rounds", "2"));
const modes = arg("modes", "poll,ready,hybrid,async,reader").split(",");
const gapUs = Number(arg("gap-us", "50"));
const BURSTS_PER_S = 70;

const ok = batchReads();
if (!ok.ok) {
  process.stdout.write(`batched reads cannot run here: ${ok.reason}\n`);
  process.exit(0);
}

const SENDER = `
const d = require("node:dgram").createSocket("udp4");
const [port, v, perS, ms, gap] = process.argv.slice(1).map(Number);
const buf = Buffer.alloc(1200, 0x80);
const end = Date.now() + ms;
const t = setInterval(() => {
  for (let i = 0; i < v; i++) {
    d.send(buf, port, "127.0.0.1");
    const until = performance.now() + gap / 1000;
    while (performance.now() < until) {}
  }
  if (Date.now() > end) { clearInterval(t); setTimeout(() => process.exit(0), 50); }
}, 1000 / perS);
`;

interface Result {
  usPerDatagram: number;
  wakesPerS: number;
}

async function once(mode: string, viewers: number): Promise<Result> {
  const arena = new DatagramArena();
  const set = new ReadySet();
  const rx = createSocket("udp4");
  await new Promise<void>((r) => rx.bind(0, "127.0.0.1", () => r()));
  rx.setRecvBufferSize(8 << 20);
  const fd = socketFd(rx);
  set.add(fd, 1);
  stopLibuvReading(rx);
  const ready = new Int32Array(8);
  let got = 0;
  let wakes = 0;
  const drain = (): number => {
    wakes++;
    let n = 0;
    if (set.ready(ready) > 0) {
      for (let k = arena.read(fd); k > 0; k = k === 32 ? arena.read(fd) : 0) n += k;
    }
    got += n;
    return n;
  };
  const stops: (() => void)[] = [];
  if (mode === "poll") {
    const t = setInterval(drain, 1);
    stops.push(() => clearInterval(t));
  } else if (mode === "ready" || mode === "hybrid") {
    let timer: NodeJS.Timeout | null = null;
    const w = await readyWake(set.fd, () => {
      if (drain() > 0 && mode === "hybrid" && typeof w !== "string") {
        w.pause();
        timer = setInterval(() => {
          if (drain() > 0) return;
          if (timer !== null) clearInterval(timer);
          timer = null;
          w.resume();
        }, 1);
      }
    });
    if (typeof w === "string") throw new Error(w);
    stops.push(() => {
      if (timer !== null) clearInterval(timer);
      w.close();
    });
  } else if (mode === "reader") {
    const pace: ArenaPace = new ArenaPace(set.fd, () => pace.polled(drain()));
    pace.added();
    stops.push(() => pace.close());
  } else if (mode === "async") {
    const k = koffi();
    if (typeof k === "string") throw new Error(k);
    type AsyncFn = { async(...a: unknown[]): void };
    const wait = k
      .load("libc.so.6")
      .func("int epoll_wait(int ep, void *evs, int max, int timeout)") as unknown as AsyncFn;
    const evs = Buffer.alloc(16 * 8);
    let on = true;
    const arm = (): void => {
      // a 100 ms timeout: the threadpool thread is released at the end
      wait.async(set.fd, evs, 8, 100, (err: unknown, r: number) => {
        if (err !== null && err !== undefined) throw err;
        if (r > 0) drain();
        if (on) arm();
      });
    };
    arm();
    stops.push(() => {
      on = false;
    });
  } else throw new Error(`unknown mode ${mode}`);
  const child = spawn(
    process.execPath,
    [
      "-e",
      SENDER,
      String(rx.address().port),
      String(viewers),
      String(BURSTS_PER_S),
      String(seconds * 1000),
      String(gapUs),
    ],
    { stdio: "ignore" },
  );
  await new Promise((r) => setTimeout(r, 300));
  const c0 = process.threadCpuUsage();
  const got0 = got;
  const w0 = wakes;
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, (seconds - 0.6) * 1000));
  const c = process.threadCpuUsage(c0);
  const s = (performance.now() - t0) / 1000;
  const res = { usPerDatagram: (c.user + c.system) / Math.max(1, got - got0), wakesPerS: (wakes - w0) / s };
  await new Promise((r) => child.once("exit", r));
  for (const f of stops) f();
  set.remove(fd);
  rx.close();
  await new Promise((r) => setTimeout(r, 150));
  return res;
}

const lines = [
  `one shared socket, bursts of V datagrams × ${BURSTS_PER_S}/s from a child process, ${gapUs} µs apart; ${seconds} s per window, medians of ${rounds} rounds`,
  "",
  "| V | wake | µs of thread CPU per datagram | wakes/s |",
  "| ---: | --- | ---: | ---: |",
];
for (const v of viewerCounts) {
  const by = new Map<string, Result[]>();
  for (let r = 0; r < rounds; r++) {
    for (const m of modes) {
      const x = await once(m, v);
      by.set(m, [...(by.get(m) ?? []), x]);
    }
  }
  for (const m of modes) {
    const xs = by.get(m) ?? [];
    lines.push(
      `| ${v} | ${m} | ${fmtFixed(median(xs.map((x) => x.usPerDatagram)), 2)} | ${fmtFixed(median(xs.map((x) => x.wakesPerS)), 0)} |`,
    );
  }
}
lines.push(
  "",
  "| event-loop delay monitors (2, as a ThreadProfile) | idle thread CPU µs/s |",
  "| --- | ---: |",
);
for (const res of [0, 2, 10]) {
  const xs: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const hs =
      res === 0
        ? []
        : [monitorEventLoopDelay({ resolution: res }), monitorEventLoopDelay({ resolution: res })];
    for (const h of hs) h.enable();
    const c0 = process.threadCpuUsage();
    const t0 = performance.now();
    await new Promise((r) => setTimeout(r, 2000));
    const c = process.threadCpuUsage(c0);
    xs.push((c.user + c.system) / ((performance.now() - t0) / 1000));
    for (const h of hs) h.disable();
  }
  lines.push(`| ${res === 0 ? "none" : `every ${res} ms`} | ${fmtFixed(median(xs), 0)} |`);
}
process.stdout.write(`${lines.join("\n")}\n`);
process.exit(0);
