// The kernel's receive stamp (src/net/kernel.ts through the intake, src/workers/receive/intake.ts): a
// thread held busy while datagrams arrive still gives each its arrival instant, within 0.2 ms of
// the sender's socket write on loopback, and an exact receive lag; forced off, the thread's own
// reading is used and the source is named. Real UDP sockets on 127.0.0.1; the sender is another
// thread of this process, on the same monotonic clock.
import assert from "node:assert/strict";
import { createSocket } from "node:dgram";
import { test } from "node:test";
import { Worker } from "node:worker_threads";
import { monoNs } from "../../src/core/clock/clock.ts";
import { enableRxStamps, kernelClock, offsetErrorNsNow, socketFd } from "../../src/net/kernel.ts";
import { Intake } from "../../src/workers/receive/intake.ts";
import { stage } from "./udp-helpers.ts";

const COUNT = 20;
const SPIN_NS = 20e6;

// the sender: a connected socket, so each send() writes synchronously; the instants around it
const SENDER = `
const { parentPort, workerData } = require("node:worker_threads");
const dgram = require("node:dgram");
const s = dgram.createSocket("udp4");
s.connect(workerData.port, "127.0.0.1", () => {
  parentPort.postMessage({ ready: true });
  parentPort.once("message", () => {
    const out = [];
    const now = () => Number(process.hrtime.bigint());
    for (let i = 0; i < ${COUNT}; i++) {
      const before = now();
      s.send(Buffer.from([0x80, i]));
      out.push([before, now()]);
      // 0.4 ms apart, without a timer: the burst fits inside the receiver's 20 ms
      while (now() < before + 400000) {}
    }
    s.close();
    parentPort.postMessage({ out });
  });
});
`;

function spin(ns: number): number {
  const until = monoNs() + ns;
  let now = monoNs();
  while (now < until) now = monoNs();
  return now;
}

interface Seen {
  i: number;
  at: number;
  lag: number;
}

/** Sends COUNT datagrams while this thread spins SPIN_NS, then pushes them through an intake. */
async function busyReceive(
  source: "kernel" | "thread",
): Promise<{ seen: Seen[]; sent: number[][]; spinEnd: number; intake: Intake }> {
  const rx = createSocket("udp4");
  await new Promise<void>((r) => rx.bind(0, "127.0.0.1", () => r()));
  const intake = new Intake();
  intake.beginRun(source);
  intake.stats.countFrom(0);
  const fd = intake.stampFd(socketFd(rx));
  const seen: Seen[] = [];
  intake.setTap((_port, data, at, lag) => seen.push({ i: data[1]!, at, lag }));
  rx.on("message", (d) =>
    intake.push(
      stage(() => {}),
      d,
      0,
      fd,
    ),
  );
  const w = new Worker(SENDER, { eval: true, workerData: { port: rx.address().port } });
  await new Promise((r) => w.once("message", r));
  const done = new Promise<{ out: number[][] }>((r) => w.once("message", r));
  w.postMessage("go");
  // the whole burst arrives while this thread cannot read its socket
  const spinEnd = spin(SPIN_NS);
  const { out } = await done;
  while (seen.length < COUNT) await new Promise((r) => setTimeout(r, 1));
  rx.close();
  await w.terminate();
  return { seen, sent: out, spinEnd, intake };
}

test("kernel stamps load here (Linux x86-64/arm64 with koffi), with a sub-µs offset reading", (t) => {
  if (process.platform !== "linux") return t.skip("kernel stamps are Linux-only");
  assert.deepEqual(kernelClock(), { ok: true });
  assert.ok(offsetErrorNsNow() < 5_000, `offset error ${offsetErrorNsNow()} ns`);
  assert.equal(socketFd(undefined), -1);
  assert.match(enableRxStamps(-1) ?? "", /descriptor/);
});

test("a thread busy 20 ms still stamps each datagram at its arrival (kernel stamp), with an exact lag", async (t) => {
  if (process.platform !== "linux") return t.skip("kernel stamps are Linux-only");
  const { seen, sent, spinEnd, intake } = await busyReceive("kernel");
  assert.equal(seen.length, COUNT);
  let arrivedDuringSpin = 0;
  for (const s of seen) {
    const [before, after] = sent[s.i]!;
    assert.ok(
      s.at >= before! - 20_000,
      `datagram ${s.i}: stamp ${(s.at - before!) / 1e3} µs before its send`,
    );
    assert.ok(s.at <= after! + 200_000, `datagram ${s.i}: stamp ${(s.at - after!) / 1e3} µs after its write`);
    // exact: the thread's reading − the stamp, and the thread read nothing before its spin ended
    assert.ok(s.lag >= spinEnd - s.at - 50_000, `datagram ${s.i}: lag ${s.lag / 1e6} ms`);
    if (after! < spinEnd - 1e6) arrivedDuringSpin++;
  }
  assert.ok(arrivedDuringSpin >= 5, `${arrivedDuringSpin} datagrams arrived while the thread was busy`);
  assert.deepEqual(intake.stats.sources(), { source: "kernel", kernelStamped: COUNT, threadStamped: 0 });
});

test("forced off (stampSource thread): the thread's own reading, and the source named with its reason", async () => {
  const { seen, spinEnd, intake } = await busyReceive("thread");
  for (const s of seen) assert.ok(s.at >= spinEnd, "stamped only once the thread read it");
  const src = intake.stats.sources();
  assert.equal(src.source, "thread");
  assert.equal(src.threadStamped, COUNT);
  assert.match(src.threadReason ?? "", /stampSource thread/);
});

test("a datagram without its socket is stamped by the thread and the source is mixed, with the reason", (t) => {
  if (process.platform !== "linux") return t.skip("kernel stamps are Linux-only");
  const intake = new Intake();
  intake.beginRun("kernel");
  intake.stats.countFrom(0);
  intake.push(
    stage(() => {}),
    Buffer.from([0x80]),
    0,
    -1,
  );
  assert.deepEqual(intake.stats.sources(), {
    source: "thread",
    kernelStamped: 0,
    threadStamped: 1,
    threadReason: "a datagram reached the thread without its socket",
  });
});
