// The arena receive path's reader (src/workers/receive/arena-reader.ts) on real UDP sockets on
// 127.0.0.1: viewers' sockets closing and new ones opening on the same thread while datagrams
// flow (the new socket often gets the closed one's descriptor number) never hand a datagram to
// the wrong viewer; a datagram that is not media goes to werift's handler with its source; the
// kernel's stamp comes with each datagram, and the socket's drop count; an idle reader sleeps until
// a socket is ready; forced unavailable, the caller keeps its own path.
import assert from "node:assert/strict";
import { test } from "node:test";
import { monoNs } from "../../src/core/clock/clock.ts";
import { socketFd } from "../../src/net/kernel.ts";
import { fdInode, sumDrops } from "../../src/net/socket-drops.ts";
import { readInArena } from "../../src/workers/receive/arena-reader.ts";
import { viewerThread } from "../../src/workers/thread.ts";
import { bound, sleep, stage } from "./udp-helpers.ts";

/** This thread's context (../../src/workers/thread.ts): what the receive side shares. */
const thread = viewerThread();
const intake = thread.intake;
const arenaReader = () => thread.arena();
const setArenaUnavailable = (why: string) => thread.setArenaUnavailable(why);

const linux = process.platform === "linux";

test("sockets closing and opening while datagrams flow: each datagram reaches its own viewer only", async (t) => {
  if (!linux) return t.skip("batched reads are Linux-only");
  const reader = arenaReader();
  if (typeof reader === "string") return assert.fail(reader);
  const registeredBefore = reader.registered;
  intake.beginRun("kernel");
  intake.stats.countFrom(0);
  const tx = await bound();
  const got = new Map<number, number[]>(); // viewer → tags received
  const wrong: string[] = [];
  let reusedFd = 0;
  let lastFd = -1;
  for (let viewer = 0; viewer < 6; viewer++) {
    const rx = await bound();
    const fd = socketFd(rx);
    if (fd === lastFd) reusedFd++;
    lastFd = fd;
    const mine: number[] = [];
    got.set(viewer, mine);
    const transport = { socket: rx, close: () => new Promise<void>((r) => rx.close(() => r())) };
    const ok = readInArena(
      thread,
      transport,
      stage((data, at, len) => {
        if (data[1] !== viewer) wrong.push(`viewer ${viewer} got viewer ${data[1]}'s datagram`);
        assert.equal(len, 4);
        assert.ok(at <= monoNs() && at > monoNs() - 1e9, "the kernel's stamp, on the monotonic clock");
        mine.push(data[2]!);
      }),
      () => wrong.push(`viewer ${viewer}: media went to werift`),
    );
    assert.equal(ok, true);
    const port = rx.address().port;
    // datagrams flow while the socket is registered, then while it closes
    for (let k = 0; k < 20; k++) {
      tx.send(Buffer.from([0x80, viewer, k, 0]), port, "127.0.0.1");
      if (k % 5 === 4) await sleep(2);
    }
    await sleep(10);
    tx.send(Buffer.from([0x80, viewer, 99, 0]), port, "127.0.0.1");
    await transport.close();
    assert.equal(reader.registered, registeredBefore, "the socket left the reader before it closed");
  }
  await sleep(20);
  tx.close();
  assert.deepEqual(wrong, []);
  for (const [viewer, tags] of got) {
    const before = tags.filter((x) => x !== 99);
    assert.deepEqual(
      before,
      Array.from({ length: 20 }, (_, k) => k),
      `viewer ${viewer}'s datagrams, in order`,
    );
  }
  assert.ok(reusedFd >= 1, "a new socket reused a closed one's descriptor: the case the removal guards");
  assert.ok(intake.stats.kernel >= 120, `${intake.stats.kernel} datagrams with the kernel's stamp`);
});

test("a datagram that is not media goes to werift's handler, with its source address", async (t) => {
  if (!linux) return t.skip("batched reads are Linux-only");
  const rx = await bound();
  const tx = await bound();
  const seen: { data: number[]; addr: [string, number] }[] = [];
  const transport = { socket: rx, close: () => rx.close() };
  assert.ok(
    readInArena(
      thread,
      transport,
      stage(() => assert.fail("not media")),
      (data, addr) => seen.push({ data: [...data], addr }),
    ),
  );
  tx.send(Buffer.from([0x00, 0x01, 0x02]), rx.address().port, "127.0.0.1");
  while (seen.length < 1) await sleep(2);
  assert.deepEqual(seen[0], { data: [0, 1, 2], addr: ["127.0.0.1", tx.address().port] });
  transport.close();
  tx.close();
});

test("an idle reader sleeps until a socket is ready, and a datagram wakes it at once", async (t) => {
  if (!linux) return t.skip("batched reads are Linux-only");
  const reader = arenaReader();
  if (typeof reader === "string") return assert.fail(reader);
  intake.beginRun("kernel");
  const tx = await bound();
  const rx = await bound();
  const arrivals: number[] = [];
  const remove = reader.add(
    rx,
    stage((_data, at) => arrivals.push(at)),
    () => {},
  );
  if (typeof remove === "string") return assert.fail(remove);
  try {
    const deadline = Date.now() + 2000;
    while (!reader.pace.onReadiness && reader.pace.wakeReason === null && Date.now() < deadline)
      await sleep(5);
    assert.equal(reader.pace.wakeReason, null);
    assert.equal(reader.pace.onReadiness, true, "libuv watches the thread's epoll set");
    assert.equal(reader.pace.watching, true, "and no timer runs");
    // nothing arrives: no timer wakes the thread (a 1 ms poll costs 20-60 ms of CPU a second here)
    const c0 = process.threadCpuUsage();
    await sleep(500);
    const c = process.threadCpuUsage(c0);
    assert.ok(c.user + c.system < 10_000, `idle thread CPU ${c.user + c.system} µs over 0.5 s`);
    const sentNs = monoNs();
    tx.send(Buffer.from([0x80, 0, 0, 0]), rx.address().port, "127.0.0.1");
    while (arrivals.length === 0 && Date.now() < deadline + 1000) await sleep(1);
    assert.equal(arrivals.length, 1);
    // the kernel's stamp
    assert.ok(arrivals[0]! >= sentNs && arrivals[0]! - sentNs < 5e6, String(arrivals[0]! - sentNs));
  } finally {
    remove();
    rx.close();
    tx.close();
  }
});

test("the kernel's drops on a socket come with its next datagram, as /proc/net/udp counts them", async (t) => {
  if (!linux) return t.skip("batched reads are Linux-only");
  const reader = arenaReader();
  if (typeof reader === "string") return assert.fail(reader);
  const tx = await bound();
  const rx = await bound();
  // the smallest receive buffer: a few datagrams of 1 200 B fit
  rx.setRecvBufferSize(1024);
  const inode = fdInode(socketFd(rx));
  let got = 0;
  const before = reader.socketDrops;
  const remove = reader.add(
    rx,
    stage(() => got++),
    () => {},
  );
  if (typeof remove === "string") return assert.fail(remove);
  try {
    // 100 at once: they reach the socket in one run of the loop, before the reader can read
    for (let i = 0; i < 100; i++) tx.send(Buffer.alloc(1200, 0x80), rx.address().port, "127.0.0.1");
    await sleep(50);
    const proc = sumDrops([inode]);
    assert.equal(typeof proc, "number", String(proc));
    assert.ok((proc as number) > 50, `${proc} dropped`);
    assert.equal(got + (proc as number), 100);
    tx.send(Buffer.alloc(1200, 0x80), rx.address().port, "127.0.0.1");
    await sleep(50);
    assert.equal(reader.socketDrops - before, proc, "the count that came with the next datagram");
    remove();
    assert.equal(reader.socketDrops - before, proc, "kept after the socket left the reader");
  } finally {
    remove();
    rx.close();
    tx.close();
  }
});

test("forced unavailable: the transport is not taken, and the thread says why", async () => {
  setArenaUnavailable("forced off by the test");
  intake.beginRun("kernel");
  intake.stats.countFrom(0);
  const rx = await bound();
  assert.equal(
    readInArena(
      thread,
      { socket: rx, close: () => rx.close() },
      stage(() => {}),
      () => {},
    ),
    false,
  );
  assert.deepEqual(intake.stats.dgramReasons, ["forced off by the test"]);
  assert.equal(intake.stats.dgramTransports, 1);
  rx.close();
});
