// The thread's intake (src/workers/receive/intake.ts): datagrams are stamped when they reach JavaScript,
// processed in bounded slices with the loop polling between them, and each gets a receive-lag
// bound that covers the time it really waited — checked on real UDP sockets on 127.0.0.1.
import assert from "node:assert/strict";
import { createSocket, type Socket } from "node:dgram";
import { test } from "node:test";
import { monoNs } from "../../src/core/clock/clock.ts";
import { Intake } from "../../src/workers/receive/intake.ts";
import { stage } from "./udp-helpers.ts";

function spin(ns: number): void {
  const until = monoNs() + ns;
  while (monoNs() < until) {
    // busy
  }
}

async function pair(): Promise<{ rx: Socket; tx: Socket; port: number; close(): void }> {
  const rx = createSocket("udp4");
  const tx = createSocket("udp4");
  await new Promise<void>((r) => rx.bind(0, "127.0.0.1", () => r()));
  await new Promise<void>((r) => tx.bind(0, "127.0.0.1", () => r()));
  return {
    rx,
    tx,
    port: rx.address().port,
    close() {
      rx.close();
      tx.close();
    },
  };
}

test("intake: order kept, stamps passed through, and work sliced so the loop polls between slices", async () => {
  const intake = new Intake(100_000);
  const seen: number[] = [];
  const stampsIn: number[] = [];
  const turns = new Set<number>();
  // a self-re-arming immediate counts the loop's turns (one check phase each)
  let turn = 0;
  let counting = true;
  const count = () => {
    turn++;
    if (counting) setImmediate(count);
  };
  setImmediate(count);
  const handler = (d: Buffer, at: number) => {
    seen.push(d[0]!);
    stampsIn.push(at);
    turns.add(turn);
    spin(40_000); // 40 µs of work per datagram: at most 3 fit a 100 µs slice
  };
  const before = monoNs();
  for (let i = 0; i < 30; i++) intake.push(stage(handler), Buffer.from([i]), 0);
  const after = monoNs();
  assert.equal(seen.length, 0, "nothing is processed inside push");
  while (seen.length < 30) await new Promise((r) => setImmediate(r));
  counting = false;
  assert.deepEqual(
    seen,
    Array.from({ length: 30 }, (_, i) => i),
  );
  for (const t of stampsIn) assert.ok(t >= before && t <= after);
  assert.ok(turns.size >= 8, `30 × 40 µs took ${turns.size} loop turns; slices of 100 µs need ≥ 8`);
});

test("intake: a datagram that arrives while the thread is busy gets a lag bound covering its wait", async () => {
  const intake = new Intake();
  const p = await pair();
  const got: { stamp: number; lag: number; sentNs: number }[] = [];
  intake.setTap((_port, data, stamp, lag) => got.push({ stamp, lag, sentNs: data.readDoubleBE(0) }));
  p.rx.on("message", (d: Buffer, info) =>
    intake.push(
      stage(() => {}),
      d,
      info.port,
    ),
  );
  const send = () => {
    const b = Buffer.alloc(8);
    b.writeDoubleBE(monoNs(), 0);
    p.tx.send(b, p.port, "127.0.0.1");
  };
  try {
    // warm up: the first slice gives the estimator its reference
    send();
    while (got.length < 1) await new Promise((r) => setTimeout(r, 2));
    await new Promise((r) => setTimeout(r, 20));
    // busy: the datagram sent at the start waits ~8 ms in the kernel before the loop polls
    setTimeout(() => {
      send();
      spin(8e6);
    }, 5);
    while (got.length < 2) await new Promise((r) => setTimeout(r, 2));
    const busy = got[1]!;
    const waited = busy.stamp - busy.sentNs;
    assert.ok(waited >= 7e6, `the datagram waited ${waited / 1e6} ms`);
    assert.ok(
      busy.lag >= waited - 0.5e6,
      `lag bound ${busy.lag / 1e6} ms covers the wait ${waited / 1e6} ms`,
    );
    // idle: a datagram that wakes an idle loop waits next to nothing, and the bound says so
    await new Promise((r) => setTimeout(r, 30));
    setTimeout(send, 5);
    while (got.length < 3) await new Promise((r) => setTimeout(r, 2));
    const idle = got[2]!;
    const idleWait = idle.stamp - idle.sentNs;
    // an idle loop's datagram is bounded well below the busy one's 8 ms
    assert.ok(idle.lag < busy.lag, `idle loop: bound ${idle.lag / 1e6} ms, wait ${idleWait / 1e6} ms`);
    assert.ok(
      idle.lag >= idleWait - 0.5e6,
      `idle loop: bound ${idle.lag / 1e6} ms covers ${idleWait / 1e6} ms`,
    );
    assert.equal(intake.stats.lagRun.count, 2, "the first datagram has no reference and is not counted");
  } finally {
    p.close();
  }
});

test("intake: the run's receive lag counts between countFrom and countUntil only; the second's figure counts all", async () => {
  const intake = new Intake(100_000);
  const handled: number[] = [];
  const handler = stage((d: Buffer) => handled.push(d[0]!));
  const push = async (i: number) => {
    intake.push(handler, Buffer.from([i]), 0);
    while (handled.length <= i) await new Promise((r) => setTimeout(r, 2));
  };
  intake.beginRun();
  intake.stats.countFrom(monoNs());
  await push(0); // the thread's first datagram has no reference yet
  await push(1);
  assert.equal(intake.stats.lagRun.count, 1);
  intake.stats.countUntil(monoNs());
  intake.stats.countUntil(Number.POSITIVE_INFINITY); // the earliest call wins
  await push(2);
  await push(3);
  assert.equal(
    intake.stats.lagRun.count,
    1,
    "datagrams after the deadline (viewers closing) are not in the run's figure",
  );
  assert.equal(intake.stats.takeLagSecond().count, 3, "the per-second figure shows them all the same");
  intake.beginRun();
  intake.stats.countFrom(monoNs());
  await push(4);
  assert.equal(intake.stats.lagRun.count, 1, "a new run counts again");
});

test("intake: a datagram handed on late with the arena reader's kernel stamp keeps it; a mixed thread's thread-stamped lag stands apart", async () => {
  const intake = new Intake(100_000);
  const handled: { d: number; at: number }[] = [];
  const handler = stage((d: Buffer, at: number) => handled.push({ d: d[0]!, at }));
  intake.beginRun("kernel");
  intake.stats.countFrom(monoNs() - 1e9);
  const wait = async (n: number) => {
    while (handled.length < n) await new Promise((r) => setTimeout(r, 2));
  };
  // a first thread-stamped datagram starts the lag estimator (no reference before a slice)
  intake.push(handler, Buffer.from([0]), 0);
  await wait(1);
  const readNs = monoNs() - 3e6; // read 3 ms ago by the arena reader, the kernel's stamp then
  intake.carry(readNs);
  intake.push(handler, Buffer.from([1]), 0);
  intake.carry(-1);
  await wait(2);
  assert.equal(handled[1]!.at, readNs, "its arrival instant is the carried kernel stamp");
  intake.push(handler, Buffer.from([2]), 0); // carry cleared: the thread's own instant again
  await wait(3);
  assert.ok(handled[2]!.at > readNs + 3e6 - 1);
  const s = intake.stats.sources();
  assert.equal(s.source, "mixed");
  assert.equal(s.kernelStamped, 1);
  assert.equal(s.threadStamped, 2);
  assert.match(s.threadReason ?? "", /without its socket/);
  // the carried datagram's lag is exact (≥ the 3 ms since its read), and not in the thread-stamped figure
  assert.ok(intake.stats.lagRun.quantileNs(100) >= 3e6);
  assert.equal(intake.stats.threadLagRun.count, 1, "the one thread-stamped datagram with a lag bound");
  assert.ok(s.threadLagMs !== undefined && s.threadLagMs.max < 3);
});
