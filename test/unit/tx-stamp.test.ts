// The kernel's transmit stamps (src/net/tx-stamp.ts) and the send instant built on them
// (src/main/publisher/send-instant.ts): on a real UDP socket on 127.0.0.1 each datagram's stamp comes
// back from the error queue with the number the sender counted for it, moved onto the monotonic
// clock between its hand-over and its reading; the control-message parser on hand-made input;
// and the send instant's choice between the kernel's stamp and the hand-over instant (the
// fallback, named with its reason), with the send log's entry moved to the kernel's stamp.
import assert from "node:assert/strict";
import { createSocket } from "node:dgram";
import { test } from "node:test";
import { monoNs } from "../../src/core/clock/clock.ts";
import { SendLog } from "../../src/core/delay/sendlog.ts";
import { TxCounter } from "../../src/core/delay/tx-ids.ts";
import { type PendingFrame, SendInstants } from "../../src/main/publisher/send-instant.ts";
import { realToMonoNs, socketFd } from "../../src/net/kernel.ts";
import { kernelSendTransport } from "../../src/net/send-stamp.ts";
import { drainTxStamps, enableTxStamps, parseControl, txStamps } from "../../src/net/tx-stamp.ts";

test("kernel: each datagram's transmit stamp comes back with its number, between hand-over and reading", async (t) => {
  const a = txStamps();
  if (!a.ok) return t.skip(a.reason);
  const rx = createSocket("udp4");
  const tx = createSocket("udp4");
  await new Promise<void>((r) => rx.bind(0, "127.0.0.1", () => r()));
  await new Promise<void>((r) => tx.bind(0, "127.0.0.1", () => r()));
  const fd = socketFd(tx);
  // a datagram written before the stamps are on has no number and no stamp
  await new Promise<void>((r) => tx.send(Buffer.from([1]), rx.address().port, "127.0.0.1", () => r()));
  assert.equal(enableTxStamps(fd), null);
  const ids = new TxCounter();
  ids.start();
  const handed: number[] = [];
  const got = new Map<number, number>();
  for (let i = 0; i < 20; i++) {
    const id = ids.hand();
    handed[id] = monoNs();
    await new Promise<void>((r) => tx.send(Buffer.alloc(100 + i), rx.address().port, "127.0.0.1", () => r()));
    drainTxStamps(fd, (n, sec, nsec) => got.set(n, realToMonoNs(sec, nsec, monoNs())));
    const now = monoNs();
    assert.ok(got.has(id), `datagram ${id}'s stamp was read back right after its write`);
    const at = got.get(id)!;
    assert.ok(at >= handed[id]! - 2000 && at <= now + 2000, `stamp ${at - handed[id]!} ns after hand-over`);
  }
  assert.deepEqual(
    [...got.keys()],
    Array.from({ length: 20 }, (_, i) => i),
    "numbers 0..19, in order, none twice",
  );
  assert.equal(
    drainTxStamps(fd, () => assert.fail("the queue was drained")),
    0,
  );
  rx.close();
  tx.close();
});

test("control messages: the timestamping message and the extended error's counter; neither an ICMP error nor a scheduler stamp", () => {
  const dv = new DataView(new ArrayBuffer(256));
  // SCM_TIMESTAMPING: len 64, SOL_SOCKET, 37; ts[0] = 1700000000.123456789
  dv.setBigUint64(0, 64n, true);
  dv.setInt32(8, 1, true);
  dv.setInt32(12, 37, true);
  dv.setBigUint64(16, 1_700_000_000n, true);
  dv.setBigUint64(24, 123_456_789n, true);
  // IP_RECVERR: len 48, SOL_IP, 11; ee_errno ENOMSG, origin TIMESTAMPING (4), info SND (0), data 42
  dv.setBigUint64(64, 48n, true);
  dv.setInt32(72, 0, true);
  dv.setInt32(76, 11, true);
  dv.setUint32(80, 42, true);
  dv.setUint8(84, 4);
  dv.setUint32(88, 0, true);
  dv.setUint32(92, 42, true);
  const seen: number[][] = [];
  assert.equal(
    parseControl(dv, 0, 112, (id, sec, nsec) => seen.push([id, sec, nsec])),
    true,
  );
  assert.deepEqual(seen, [[42, 1_700_000_000, 123_456_789]]);
  // an ICMP error (origin 2) carries no stamp: nothing reported
  dv.setUint8(84, 2);
  assert.equal(
    parseControl(dv, 0, 112, () => assert.fail()),
    false,
  );
  // a scheduler stamp (info 1, SCM_TSTAMP_SCHED) is not the transmit stamp
  dv.setUint8(84, 4);
  dv.setUint32(88, 1, true);
  assert.equal(
    parseControl(dv, 0, 112, () => assert.fail()),
    false,
  );
});

function rtp(ts: number, ssrc: number): Buffer {
  const b = Buffer.alloc(20);
  b[0] = 0x80;
  b[1] = 96;
  b.writeUInt32BE(ts, 4);
  b.writeUInt32BE(ssrc, 8);
  return b;
}

function frame(k: number): PendingFrame {
  return { k, i: k % 4, ts: 1000 * k, ssrc: 7, startNs: monoNs(), stamped: false };
}

test("send instant: the kernel's stamp of the first packet replaces the hand-over instant in the log and the channel", () => {
  const log = SendLog.create(4);
  const sent: [number, number, boolean][] = [];
  const si = new SendInstants(log, (k, t0, _i, kernel) => sent.push([k, t0, kernel]));
  const f = frame(0);
  si.begin(f, true);
  si.before(rtp(0, 7), 5);
  const handover = log.newestNs();
  assert.ok(handover > 0, "the hand-over instant is logged at once");
  assert.deepEqual(sent, [], "the channel waits for the stamp");
  si.stamped(4, handover + 10_000, handover + 20_000); // an earlier datagram's (RTCP): ignored
  assert.deepEqual(sent, []);
  si.stamped(5, handover + 30_000, handover + 50_000);
  assert.equal(log.newestNs(), handover + 30_000, "the log now holds the kernel's stamp");
  assert.deepEqual(sent, [[0, handover + 30_000, true]]);
  si.end(f);
  si.finish();
  assert.deepEqual(si.stamps, { kernel: 1, handover: 0 });
  assert.equal(si.sendLag.count, 1);
});

test("send instant, fallback: without numbers, or with a stamp that never comes or does not fit, the hand-over instant stays", () => {
  const log = SendLog.create(8);
  const sent: [number, boolean][] = [];
  const si = new SendInstants(log, (k, _t0, _i, kernel) => sent.push([k, kernel]));
  si.unavailable("not Linux (test)");
  // not numbered (the socket's stamps are off): logged and sent on at once
  const f0 = frame(0);
  si.begin(f0, true);
  si.before(rtp(0, 7), -1);
  assert.deepEqual(sent, [[0, false]]);
  si.end(f0);
  // numbered, and the next frame handed over before either stamp is back (a late publisher)
  const f1 = frame(1);
  si.begin(f1, true);
  si.before(rtp(1000, 7), 3);
  si.end(f1);
  const h1 = log.newestNs();
  const f2 = frame(2);
  si.begin(f2, true);
  assert.equal(sent.length, 1, "a frame begun before the stamps are back settles nothing");
  si.before(rtp(2000, 7), 4);
  si.end(f2);
  // frame 1's stamp never comes: the next one's stamp shows it was dropped
  si.stamped(4, log.newestNs() + 20_000, log.newestNs() + 40_000);
  assert.deepEqual(sent.slice(1), [
    [1, false],
    [2, true],
  ]);
  assert.equal(log.indexAt(1), 1);
  assert.ok(log.latest(1, h1)?.t0Ns === h1, "frame 1 keeps its hand-over instant in the log");
  // numbered, and a stamp of that number from before the hand-over: out of step, not taken
  const f3 = frame(3);
  si.begin(f3, true);
  si.before(rtp(3000, 7), 5);
  const h3 = log.newestNs();
  si.stamped(5, h3 - 40e6, h3 + 1000);
  assert.deepEqual(sent[3], [3, false]);
  assert.equal(log.newestNs(), h3);
  si.end(f3);
  // numbered, and still awaited at the end of the run
  const f4 = frame(4);
  si.begin(f4, true);
  si.before(rtp(4000, 7), 6);
  si.end(f4);
  si.finish();
  assert.deepEqual(sent[4], [4, false]);
  assert.deepEqual(si.stamps, {
    kernel: 1,
    handover: 4,
    reasons: [
      "not Linux (test)",
      "the socket's transmit stamps are not on",
      "a later datagram's kernel stamp came first",
      "a kernel stamp out of step",
    ],
  });
});

/** Event-loop utilisation of this thread over `ms` of doing nothing. */
async function idleUtilisation(ms: number): Promise<number> {
  const a = performance.eventLoopUtilization();
  await new Promise((r) => setTimeout(r, ms));
  return performance.eventLoopUtilization(a).utilization;
}

test("a socket libuv reads: stamps read after each write leave the loop idle; left in the queue, libuv spins", async (t) => {
  const a = txStamps();
  if (!a.ok) return t.skip(a.reason);
  const rx = createSocket("udp4");
  await new Promise<void>((r) => rx.bind(0, "127.0.0.1", () => r()));
  const port = rx.address().port;
  // the publisher's case: libuv polls the sending socket for what it receives
  const open = async () => {
    const s = createSocket("udp4");
    s.on("message", () => {});
    await new Promise<void>((r) => s.bind(0, "127.0.0.1", () => r()));
    return s;
  };
  // numbered and read back through kernelSendTransport, as the publisher's media socket is
  const sock = await open();
  const transport = {
    socket: sock,
    send: (data: unknown, addr: unknown) =>
      sock.send(data as Buffer, (addr as [string, number])[1], (addr as [string, number])[0]),
  };
  const got: number[] = [];
  const drains: (() => void)[] = [];
  assert.equal(
    kernelSendTransport(
      transport,
      { before() {}, stamped: (id) => got.push(id), unavailable: (why) => assert.fail(why) },
      drains,
    ),
    true,
  );
  await new Promise((r) => setImmediate(r));
  assert.equal(drains.length, 1, "the stamps are on a loop turn later");
  for (let i = 0; i < 5; i++)
    (transport.send as (d: unknown, a: unknown) => void)(Buffer.alloc(50), ["127.0.0.1", port]);
  const quiet = await idleUtilisation(300);
  assert.deepEqual(got, [0, 1, 2, 3, 4], "every stamp read back, in order");
  // the same with the stamps left in the error queue: EPOLLERR wakes libuv on every turn
  const raw = await open();
  assert.equal(enableTxStamps(socketFd(raw)), null);
  await new Promise<void>((r) => raw.send(Buffer.alloc(50), port, "127.0.0.1", () => r()));
  const spinning = await idleUtilisation(300);
  drainTxStamps(socketFd(raw), () => {});
  assert.ok(quiet < 0.2, `event-loop utilisation ${quiet} with the queue read after each write`);
  assert.ok(
    spinning > quiet + 0.3,
    `utilisation ${spinning} with a stamp left unread (libuv's busy loop), ${quiet} read`,
  );
  for (const s of [rx, sock, raw]) s.close();
});
