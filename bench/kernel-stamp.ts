// What a kernel receive stamp costs the lean path per datagram (src/net/kernel.ts): one
// ioctl(SIOCGSTAMPNS) through koffi, moved onto the monotonic clock, against the monotonic reading
// the thread's own stamp takes, on a loopback socket that received a datagram. Rounds alternate.
//
//   npm run bench:kernel-stamp -- [--calls 200000] [--rounds 5]
import { createSocket } from "node:dgram";
import { monoNs } from "../src/core/clock/clock.ts";
import { enableRxStamps, kernelClock, rxStampMonoNs, socketFd } from "../src/net/kernel.ts";
import { median } from "./median.ts";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

const calls = Number(arg("calls", "200000"));
const rounds = Number(arg("rounds", "5"));
const k = kernelClock();
if (!k.ok) {
  process.stdout.write(`kernel stamps unavailable here: ${k.reason}\n`);
  process.exit(0);
}
const rx = createSocket("udp4");
const tx = createSocket("udp4");
await new Promise<void>((r) => rx.bind(0, "127.0.0.1", () => r()));
const fd = socketFd(rx);
enableRxStamps(fd);
const got = new Promise((r) => rx.once("message", r));
tx.send(Buffer.from([0x80]), rx.address().port, "127.0.0.1");
await got;

const perCall = (fn: () => void): number => {
  const t0 = process.cpuUsage();
  for (let i = 0; i < calls; i++) fn();
  const t1 = process.cpuUsage(t0);
  return ((t1.user + t1.system) * 1000) / calls;
};
let sink = 0;
const thread: number[] = [];
const kernel: number[] = [];
for (let r = 0; r < rounds; r++) {
  thread.push(
    perCall(() => {
      sink += monoNs();
    }),
  );
  kernel.push(
    perCall(() => {
      const now = monoNs();
      sink += rxStampMonoNs(fd, now);
    }),
  );
}
rx.close();
tx.close();
// the readings are used, so the loops are not optimised away
if (sink === 0) process.stdout.write("no reading taken\n");
const f = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(", ");
process.stdout.write(
  `| stamp | ns of CPU per datagram, each round | median |\n| --- | --- | ---: |\n` +
    `| thread (monoNs) | ${f(thread)} | ${median(thread).toFixed(0)} |\n` +
    `| kernel (monoNs + ioctl SIOCGSTAMPNS through koffi) | ${f(kernel)} | ${median(kernel).toFixed(0)} |\n` +
    `extra per datagram: ${(median(kernel) - median(thread)).toFixed(0)} ns\n`,
);
