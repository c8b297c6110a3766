// A lean viewer's RTCP out without werift's sendRtcp (src/net/werift/rtcp-wire.ts), on a real werift
// pair over 127.0.0.1: what it sends reaches the other peer's werift, which decrypts and parses it;
// it shares werift's SRTCP index (its sends and werift's interleave without reusing one) and
// advances werift's sent counters; inside a pass of the feedback tick it is gathered on werift's
// own socket too (src/net/write-gather.ts).
import assert from "node:assert/strict";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { connectedPair } from "../../bench/peer-pair.ts";
import { batchWrites } from "../../src/net/batch-write.ts";
import { openssl } from "../../src/net/srtp/openssl.ts";
import { nativeRtcpSender } from "../../src/net/werift/rtcp-wire.ts";
import { dtlsOf, rtcpSender } from "../../src/net/werift/srtp-start.ts";
import { beginGather, endGather, gathered } from "../../src/net/write-gather.ts";
import { serializePli, serializeRr, serializeSdes } from "../../src/workers/receive/rtcp-out.ts";

const native = openssl();
const skip = native.ok ? false : native.reason;

interface Counters {
  packetsSent: number;
  srtcp: { localContext: { getSrtcpSsrcState(ssrc: number): { srtcpIndex: number } } };
}

test("native RTCP out reaches werift on the other side, sharing werift's SRTCP index", { skip }, async () => {
  const { server, viewer } = await connectedPair();
  try {
    const vd = dtlsOf(viewer.getTransceivers()[0]!);
    const sd = dtlsOf(server.getTransceivers()[0]!);
    assert.ok(vd !== undefined && sd !== undefined);
    const got: { type: number; ssrc: number }[] = [];
    (
      sd as unknown as { onRtcp: { subscribe(f: (p: { type: number; ssrc?: number }) => void): void } }
    ).onRtcp.subscribe((p) => got.push({ type: p.type, ssrc: p.ssrc ?? -1 }));
    const send = nativeRtcpSender(vd);
    assert.equal(typeof send, "function", String(send));
    const ours = send as (rtcp: Uint8Array) => void;
    const weriftSend = rtcpSender(vd);
    const ssrc = 0x0badcafe;
    const c = vd as unknown as Counters;
    const before = c.packetsSent;
    const pli = serializePli(ssrc, 0x11111111);
    const head = Buffer.concat([serializeRr(ssrc, null), serializeSdes(ssrc, "cname")]);
    ours(pli);
    weriftSend(head);
    ours(Buffer.concat([head, pli]));
    // PLI, RR+SDES, RR+SDES+PLI: six RTCP packets once all three arrived
    for (let i = 0; i < 200 && got.length < 6; i++) await sleep(10);
    assert.deepEqual(
      got.map((p) => p.type),
      [206, 201, 202, 201, 202, 206],
    );
    assert.equal(c.srtcp.localContext.getSrtcpSsrcState(ssrc).srtcpIndex, 3, "one index each, shared");
    assert.equal(c.packetsSent - before, 3);
  } finally {
    await viewer.close();
    await server.close();
  }
});

test("inside a pass of the feedback tick, RTCP on werift's own socket is gathered and arrives", {
  skip: skip || (batchWrites().ok ? false : "no batch writes here"),
}, async () => {
  const { server, viewer } = await connectedPair();
  try {
    const vd = dtlsOf(viewer.getTransceivers()[0]!);
    const sd = dtlsOf(server.getTransceivers()[0]!);
    assert.ok(vd !== undefined && sd !== undefined);
    const got: number[] = [];
    (sd as unknown as { onRtcp: { subscribe(f: (p: { type: number }) => void): void } }).onRtcp.subscribe(
      (p) => got.push(p.type),
    );
    const ours = nativeRtcpSender(vd) as (rtcp: Uint8Array) => void;
    const ssrc = 0x0badcafe;
    const datagrams = gathered.datagrams;
    beginGather();
    ours(serializePli(ssrc, 0x11111111));
    ours(serializeRr(ssrc, null));
    assert.equal(gathered.datagrams, datagrams, "held until the pass ends");
    endGather();
    assert.equal(gathered.datagrams, datagrams + 2, "both left in the pass's sendmmsg");
    for (let i = 0; i < 200 && got.length < 2; i++) await sleep(10);
    assert.deepEqual(got, [206, 201]);
  } finally {
    await viewer.close();
    await server.close();
  }
});
