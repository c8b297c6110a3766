// The relay's native fan-out (src/main/relay/native.ts) on real sockets on 127.0.0.1: the header it
// writes is werift's RtpHeader.serialize for the same fields; a leg's queued packets reach the
// viewer's socket from the leg's own, SRTP-protected so that werift's unprotect with the leg's keys
// gives back each payload; a NACK's resend is the same datagram again; LoseEvery loses a first
// transmission beneath the responder and the resend goes through; a leg no longer live sends
// nothing. And sendmmsg itself (src/net/batch-write.ts): several datagrams, one call, exact bytes.
import assert from "node:assert/strict";
import { test } from "node:test";
import { RtpHeader, SrtpSession } from "werift";
import { LossEvery } from "../../src/core/relay/loss-every.ts";
import { SRTP_AEAD_AES_128_GCM } from "../../src/core/srtp/kdf.ts";
import type { Leg } from "../../src/main/relay/leg.ts";
import type { LegPacket } from "../../src/main/relay/leg-faults.ts";
import { LegLinkSend } from "../../src/main/relay/link-send.ts";
import { NativeFanout, NativeLeg, nativeSendPath, writeRtp } from "../../src/main/relay/native.ts";
import { batchWrites, SendBatch } from "../../src/net/batch-write.ts";
import { socketFd } from "../../src/net/kernel.ts";
import type { LegWire } from "../../src/net/werift/leg-wire.ts";
import { bound, collect, sleep } from "./udp-helpers.ts";

const path = nativeSendPath();
const skip = path.path === "native" ? false : path.reason;

test("sendmmsg: three datagrams in one call, exact bytes, from the socket whose descriptor it got", {
  skip: batchWrites().ok ? false : "no batch writes here",
}, async (t) => {
  const [tx, rx] = [await bound(), await bound()];
  t.after(() => {
    tx.close();
    rx.close();
  });
  const got = collect(rx);
  const b = new SendBatch();
  for (const len of [1, 700, 1200]) {
    const at = b.offset(b.count);
    for (let i = 0; i < len; i++) b.bytes[at + i] = (i + len) & 0xff;
    b.push(len, 0x7f000001, rx.address().port);
  }
  assert.equal(b.flush(socketFd(tx)), 3);
  assert.equal(b.calls, 1);
  for (let i = 0; i < 50 && got.length < 3; i++) await sleep(10);
  assert.deepEqual(
    got.map((g) => g.data.length),
    [1, 700, 1200],
  );
  assert.ok(got.every((g) => g.port === tx.address().port));
  assert.equal(got[2]!.data[5], (5 + 1200) & 0xff);
});

test("the header written is werift's serialize of the same fields", { skip }, () => {
  for (const abs of [null, Buffer.alloc(8, 7), Buffer.alloc(16, 9)]) {
    for (const marker of [false, true]) {
      const wire = { ssrc: 0xdeadbeef, payloadType: 96 } as LegWire;
      const n = { wire, leg: { absId: 3 } } as unknown as NativeLeg;
      const p: LegPacket = { seq: 65535, ts: 0xfffffff0, marker, payload: Buffer.alloc(0), abs };
      const u = new Uint8Array(64);
      const h = writeRtp(u, 5, n, p);
      const w = new RtpHeader({
        sequenceNumber: 65535,
        timestamp: 0xfffffff0,
        marker,
        payloadType: 96,
        ssrc: 0xdeadbeef,
      });
      if (abs !== null) {
        w.extension = true;
        w.extensions = [{ id: 3, payload: abs }];
      }
      assert.deepEqual(Buffer.from(u.subarray(5, 5 + h)), w.serialize(w.serializeSize));
    }
  }
});

test("with transport-cc and rtx: the transport-wide number after abs-capture-time, a resend on RTX", {
  skip,
}, () => {
  const abs = Buffer.alloc(8, 7);
  const wire = {
    ssrc: 0xdeadbeef,
    payloadType: 96,
    rtxPayloadType: 97,
    rtxSsrc: 0x11223344,
    twccId: 5,
  } as LegWire;
  const n = { wire, leg: { absId: 3 }, twccSeq: 65535, rtxSeq: 9 } as unknown as NativeLeg;
  const p: LegPacket = { seq: 1000, ts: 90000, marker: true, payload: Buffer.alloc(0), abs };
  const expect = (seq: number, pt: number, ssrc: number, tseq: number) => {
    const w = new RtpHeader({ sequenceNumber: seq, timestamp: 90000, marker: true, payloadType: pt, ssrc });
    w.extension = true;
    w.extensions = [
      { id: 3, payload: abs },
      { id: 5, payload: Buffer.from([tseq >>> 8, tseq & 0xff]) },
    ];
    return w.serialize(w.serializeSize);
  };
  const u = new Uint8Array(64);
  const h = writeRtp(u, 0, n, p);
  assert.deepEqual(Buffer.from(u.subarray(0, h)), expect(1000, 96, 0xdeadbeef, 65535));
  const r = writeRtp(u, 0, n, p, true);
  assert.deepEqual(Buffer.from(u.subarray(0, r)), expect(9, 97, 0x11223344, 0), "the next numbers, wrapped");
  assert.equal(n.twccSeq, 1);
  assert.equal(n.rtxSeq, 10);
});

test("a leg's packets: protected for the leg's keys, NACK resends, LoseEvery beneath, nothing once not live", {
  skip,
}, async (t) => {
  const [legSocket, viewer] = [await bound(), await bound()];
  t.after(() => {
    legSocket.close();
    viewer.close();
  });
  const got = collect(viewer);
  const key = Buffer.alloc(16, 0x21);
  const salt = Buffer.alloc(12, 0x42);
  let live = true;
  const sent: number[] = [];
  const retransmitted: number[] = [];
  const wire: LegWire = {
    fd: socketFd(legSocket),
    ip: 0x7f000001,
    port: viewer.address().port,
    profile: SRTP_AEAD_AES_128_GCM,
    localMasterKey: key,
    localMasterSalt: salt,
    ssrc: 1234,
    payloadType: 100,
    rtxPayloadType: -1,
    rtxSsrc: 0,
    twccId: 0,
    live: () => live,
    sent: (packets) => sent.push(packets),
    onNack: () => {},
    retransmitted: (packets) => retransmitted.push(packets),
  };
  const leg = { absId: 0, loss: new LossEvery(3) } as unknown as Leg;
  const fan = new NativeFanout();
  const n = new NativeLeg(leg, wire);
  const packets = [10, 11, 12, 13].map((seq) => ({
    seq,
    ts: seq * 90,
    marker: false,
    payload: Buffer.alloc(300, seq),
  }));
  for (const p of packets) fan.queue(n, p);
  fan.flush();
  // LoseEvery 3: the third first transmission (seq 12) is lost; its NACK resend goes through
  assert.equal(fan.resend(n, 12), true);
  assert.equal(fan.resend(n, 99), false, "never sent: nothing to resend");
  assert.deepEqual(retransmitted, [], "counted once written, not when queued");
  fan.flush();
  for (let i = 0; i < 50 && got.length < 4; i++) await sleep(10);
  const session = new SrtpSession({
    keys: { localMasterKey: key, localMasterSalt: salt, remoteMasterKey: key, remoteMasterSalt: salt },
    profile: SRTP_AEAD_AES_128_GCM,
  });
  const seqs = got.map((g) => {
    const clear = session.decrypt(g.data);
    assert.equal(clear.readUInt32BE(8), 1234);
    assert.equal(clear[1]! & 0x7f, 100);
    const seq = clear.readUInt16BE(2);
    assert.deepEqual(clear.subarray(12), Buffer.alloc(300, seq));
    return seq;
  });
  assert.deepEqual(seqs, [10, 11, 13, 12]);
  assert.ok(got.every((g) => g.port === legSocket.address().port));
  assert.deepEqual(sent, [4], "first transmissions counted for werift's sender reports, the lost one too");
  assert.equal(fan.resent, 1);
  assert.equal(n.resent, 1);
  assert.deepEqual(retransmitted, [1], "the one resend written, for werift's retransmittedPacketsSent");
  live = false;
  // a resend for a leg werift no longer sends on is not written, and not counted
  assert.equal(fan.resend(n, 12), true);
  fan.flush();
  assert.deepEqual(retransmitted, [1]);
  fan.queue(n, { seq: 14, ts: 0, marker: false, payload: Buffer.alloc(10) });
  fan.flush();
  await sleep(50);
  assert.equal(got.length, 4);
});

test("a leg's link on the native fan-out: duplicates past a full batch, held copies written later as they were, losses never", {
  skip,
}, async (t) => {
  const [legSocket, viewer] = [await bound(), await bound()];
  t.after(() => {
    legSocket.close();
    viewer.close();
  });
  const got = collect(viewer);
  const key = Buffer.alloc(16, 0x33);
  const salt = Buffer.alloc(12, 0x44);
  const wire: LegWire = {
    fd: socketFd(legSocket),
    ip: 0x7f000001,
    port: viewer.address().port,
    profile: SRTP_AEAD_AES_128_GCM,
    localMasterKey: key,
    localMasterSalt: salt,
    ssrc: 77,
    payloadType: 100,
    rtxPayloadType: -1,
    rtxSsrc: 0,
    twccId: 0,
    live: () => true,
    sent: () => {},
    onNack: () => {},
    retransmitted: () => {},
  };
  const session = new SrtpSession({
    keys: { localMasterKey: key, localMasterSalt: salt, remoteMasterKey: key, remoteMasterSalt: salt },
    profile: SRTP_AEAD_AES_128_GCM,
  });
  const seqOf = (d: Buffer) => session.decrypt(d).readUInt16BE(2);
  const none = { loss: 0, delayNs: 0, jitterNs: 0, duplicate: 0, afterNs: 0, seed: 3 };
  const run = async (profile: typeof none, from: number, count: number, waitMs: number) => {
    const link = new LegLinkSend(profile, 1);
    const fan = new NativeFanout();
    const n: NativeLeg = new NativeLeg({ absId: 0, link } as unknown as Leg, wire, (d) => fan.queueRaw(n, d));
    const before = got.length;
    for (let s = from; s < from + count; s++)
      fan.queue(n, { seq: s, ts: s, marker: false, payload: Buffer.alloc(200, s & 0xff) });
    fan.flush();
    await sleep(waitMs);
    link.close();
    return { link, datagrams: got.slice(before).map((g) => g.data) };
  };
  // every packet twice, 70 packets: the copies cross the batch of 64
  const dup = await run({ ...none, duplicate: 1 }, 100, 70, 100);
  assert.equal(dup.datagrams.length, 140);
  const seqs = dup.datagrams.map(seqOf);
  for (let s = 100; s < 170; s++) assert.equal(seqs.filter((x) => x === s).length, 2, `seq ${s}`);
  assert.equal(dup.link.counts.duplicated, 70);
  // held 500 ms: nothing at once, all later, the protected bytes as they were
  const link = new LegLinkSend({ ...none, delayNs: 500e6 }, 2);
  const fan = new NativeFanout();
  const n: NativeLeg = new NativeLeg({ absId: 0, link } as unknown as Leg, wire, (d) => fan.queueRaw(n, d));
  const before = got.length;
  for (let s = 200; s < 210; s++)
    fan.queue(n, { seq: s, ts: s, marker: false, payload: Buffer.alloc(200, 1) });
  fan.flush();
  assert.equal(link.held, 10);
  await sleep(15);
  assert.equal(got.length - before, 0, "held");
  for (let i = 0; i < 150 && got.length - before < 10; i++) await sleep(10);
  assert.deepEqual(
    got.slice(before).map((g) => seqOf(g.data)),
    [200, 201, 202, 203, 204, 205, 206, 207, 208, 209],
  );
  link.close();
  // a link that loses everything writes nothing
  const lost = await run({ ...none, loss: 1 }, 300, 5, 50);
  assert.equal(lost.datagrams.length, 0);
  assert.equal(lost.link.counts.lostMedia, 5);
});
