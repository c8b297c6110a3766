// The UDP clock exchange (docs/definitions.md#clock-exchange) on real loopback sockets: offsets, the acceptance rule,
// hostile datagrams, and the piecewise-linear model.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { createSocket } from "node:dgram";
import { test } from "node:test";
import { takeWallAnchor } from "../../src/core/clock/clock.ts";
import { encodeRequest, OffsetModel, type Probe } from "../../src/core/clock/exchange.ts";
import { ClockClient, startResponder } from "../../src/main/split/clock-exchange.ts";

/** Sends one datagram to the responder and collects every reply for 200 ms. */
async function exchange(port: number, payload: Buffer): Promise<Buffer[]> {
  const sock = createSocket("udp4");
  const replies: Buffer[] = [];
  sock.on("message", (m) => replies.push(m));
  await new Promise<void>((r) => sock.bind(0, "127.0.0.1", () => r()));
  sock.send(payload, port, "127.0.0.1");
  await new Promise((r) => setTimeout(r, 200));
  await new Promise<void>((r) => sock.close(() => r()));
  return replies;
}

test("a responder 250 ms ahead is measured within rtt/2, loopback rtt small", async () => {
  const anchor = takeWallAnchor();
  const ahead = { wallNs: anchor.wallNs + 250e6, monoNs: anchor.monoNs };
  const responder = await startResponder("127.0.0.1", 0, ahead);
  const client = await ClockClient.open(anchor);
  try {
    const p = await client.measure("127.0.0.1", responder.port);
    assert.ok(
      Math.abs(p.offsetNs - 250e6) <= p.rttNs / 2 + 2_000,
      `offset ${p.offsetNs} ns, rtt ${p.rttNs} ns`,
    );
    assert.ok(p.rttNs < 50e6, `rtt ${p.rttNs}`);
    const again = await client.measure("127.0.0.1", responder.port);
    assert.ok(again.atMonoNs > p.atMonoNs, "the socket is reusable and points advance");
  } finally {
    await client.close();
    await responder.close();
  }
});

test("a silent peer: the measurement fails after about 1 s", async () => {
  const silent = createSocket("udp4");
  await new Promise<void>((r) => silent.bind(0, "127.0.0.1", () => r()));
  const client = await ClockClient.open(takeWallAnchor());
  const t0 = Date.now();
  try {
    await assert.rejects(client.measure("127.0.0.1", silent.address().port), /did not answer/);
    const took = Date.now() - t0;
    assert.ok(took >= 1000 && took < 2500, `took ${took} ms`);
  } finally {
    await client.close();
    await new Promise<void>((r) => silent.close(() => r()));
  }
});

test("malformed datagrams get no answer; a good request gets exactly 32 bytes echoing 0–15", async () => {
  const responder = await startResponder("127.0.0.1", 0, takeWallAnchor());
  try {
    const good = Buffer.alloc(32);
    encodeRequest(7, 123456789n, good);
    const answer = await exchange(responder.port, good);
    assert.equal(answer.length, 1);
    const a = answer[0]!;
    assert.equal(a.length, 32);
    assert.deepEqual(a.subarray(0, 16), good.subarray(0, 16));
    const t2 = a.readBigInt64BE(16);
    const t3 = a.readBigInt64BE(24);
    assert.ok(t2 !== 0n && t3 >= t2);
    const bad: Buffer[] = [
      Buffer.alloc(0),
      good.subarray(0, 31),
      Buffer.concat([good, Buffer.from([0])]),
      Buffer.from("WBC1"),
      Buffer.concat([Buffer.from("WBC2"), good.subarray(4)]),
      a, // an answer: bytes 16–31 are not zero, so two responders never ping-pong
    ];
    for (const b of bad)
      assert.deepEqual(await exchange(responder.port, b), [], `no answer to ${b.length} bytes`);
  } finally {
    await responder.close();
  }
});

test("random datagrams: never an answer larger than the request, only to well-formed ones", async () => {
  const responder = await startResponder("127.0.0.1", 0, takeWallAnchor());
  const sock = createSocket("udp4");
  const replies: Buffer[] = [];
  sock.on("message", (m) => replies.push(m));
  await new Promise<void>((r) => sock.bind(0, "127.0.0.1", () => r()));
  try {
    let sentBytesMin = Number.POSITIVE_INFINITY;
    for (let i = 0; i < 300; i++) {
      const len = i % 3 === 0 ? 32 : Math.floor(Math.random() * 80);
      const b = randomBytes(len);
      if (i % 10 === 0 && len >= 4) b.write("WBC1", 0);
      sentBytesMin = Math.min(sentBytesMin, len);
      sock.send(b, responder.port, "127.0.0.1");
    }
    await new Promise((r) => setTimeout(r, 300));
    // random 32-byte datagrams have bytes 16–31 zero with negligible probability: no replies at all
    assert.equal(replies.length, 0);
  } finally {
    await new Promise<void>((r) => sock.close(() => r()));
    await responder.close();
  }
});

test("piecewise-linear model: 10 → 13 → 7 ms at 0/30/60 s; clamped outside; uncertainty", () => {
  const m = new OffsetModel();
  const p = (s: number, offMs: number, rttMs: number): Probe => ({
    atMonoNs: s * 1e9,
    offsetNs: offMs * 1e6,
    rttNs: rttMs * 1e6,
  });
  assert.equal(m.offsetAt(0), null);
  assert.equal(m.uncertaintyMs(), null);
  m.add(p(0, 10, 2));
  m.add(p(30, 13, 6));
  m.add(p(60, 7, 4));
  assert.equal(m.offsetAt(10e9), 11e6);
  assert.equal(m.offsetAt(45e9), 10e6);
  assert.equal(m.offsetAt(-5e9), 10e6);
  assert.equal(m.offsetAt(90e9), 7e6);
  assert.equal(m.uncertaintyMs(), 3);
});
