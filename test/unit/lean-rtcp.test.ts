// The lean path's RTCP (src/workers/receive): the NACK sender's keyframe requests, and the
// receiver report / generic NACK / PLI bytes read back by werift's own RTCP parser.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  GenericNack,
  PictureLossIndication,
  RtcpPacketConverter,
  RtcpPayloadSpecificFeedback,
  RtcpRrPacket,
  RtcpSenderInfo,
  RtcpSourceDescriptionPacket,
  RtcpSrPacket,
  RtcpTransportLayerFeedback,
} from "werift";
import { monoNs } from "../../src/core/clock/clock.ts";
import { ViewerRender } from "../../src/core/render/viewer-render.ts";
import { NackGenerator } from "../../src/workers/receive/nack.ts";
import { NackSender } from "../../src/workers/receive/nack-sender.ts";
import { ReceptionStats } from "../../src/workers/receive/reception.ts";
import {
  senderReportLsr,
  serializeNack,
  serializePli,
  serializeRr,
  serializeSdes,
} from "../../src/workers/receive/rtcp-out.ts";

const MS = 1e6;

test("NACK sender: a NACK list overflow and the browser rule send a PLI after the packet", () => {
  const sent: Buffer[] = [];
  const render = new ViewerRender("vp8", "browser", null);
  const nack = new NackSender(
    new NackGenerator({ maxPackets: 2 }),
    (b) => sent.push(b),
    0x11,
    () => {},
    () => render,
  );
  const pli = serializePli(0x11, 0x22);
  const delta = Uint8Array.of(0x10, 0x01);
  // as the pipeline does: each packet reaches the render model before afterPacket
  nack.onPacket(0x22, 0, 0);
  render.packet(0, delta, false);
  nack.afterPacket(0);
  assert.equal(sent.length, 0, "nothing asked at the first packet");
  nack.onPacket(0x22, 5, 1 * MS); // 4 missing: past 2, cleared
  render.packet(1 * MS, delta, false);
  nack.afterPacket(1 * MS);
  assert.deepEqual(sent, [pli]);
  assert.equal(render.finish(2 * MS).render.plisSent, 1);
  // join: no PLI for an overflow
  const joinSent: Buffer[] = [];
  const join = new ViewerRender("vp8", "join", null);
  const j = new NackSender(
    new NackGenerator({ maxPackets: 2 }),
    (b) => joinSent.push(b),
    0x11,
    () => {},
    () => join,
  );
  j.onPacket(0x22, 0, 0);
  join.packet(0, delta, true); // joined already: no join PLI either
  j.onPacket(0x22, 5, 1 * MS);
  j.afterPacket(1 * MS);
  assert.equal(joinSent.filter((b) => b.equals(pli)).length, 0);
  nack.close();
  j.close();
});

test("NACK sender: a gap's first request is stamped when it is written, not at the packet's arrival", () => {
  // a packet read 300 ms after the kernel stamped it (a busy thread on the arena path): its gap's
  // first NACK goes out now, and the retry is due 100 ms after that, not already overdue
  const sent: Buffer[] = [];
  const gen = new NackGenerator();
  const nack = new NackSender(
    gen,
    (b) => sent.push(b),
    0x11,
    () => {},
    () => null,
  );
  const t0 = monoNs();
  const arrival = t0 - 300 * MS;
  nack.onPacket(0x22, 0, arrival);
  nack.onPacket(0x22, 3, arrival + 1 * MS);
  assert.deepEqual(sent, [serializeNack(0x11, 0x22, [1, 2])]);
  assert.ok(gen.nextDueNs() >= t0 + 100 * MS, `retry due ${(gen.nextDueNs() - t0) / MS} ms after t0`);
  nack.close();
});

test("generic NACK bytes parse in werift as the same sequence numbers", () => {
  const seqs = [65530, 65531, 65535, 0, 3, 40, 41, 57];
  const [pkt] = RtcpPacketConverter.deSerialize(serializeNack(0x11, 0x22, seqs));
  assert.ok(pkt instanceof RtcpTransportLayerFeedback);
  const fb = pkt.feedback as GenericNack;
  assert.ok(fb instanceof GenericNack);
  assert.equal(fb.senderSsrc, 0x11);
  assert.equal(fb.mediaSourceSsrc, 0x22);
  assert.deepEqual(
    [...fb.lost].sort((a, b) => a - b),
    [...seqs].sort((a, b) => a - b),
  );
});

test("receiver report and PLI bytes parse in werift", () => {
  const rr = serializeRr(7, {
    ssrc: 9,
    fractionLost: 12,
    cumulativeLost: 34,
    extHighest: 65536 + 5,
    jitter: 77.4,
    lsr: 0xdeadbeef,
    dlsr: 65536,
  });
  const [p] = RtcpPacketConverter.deSerialize(rr);
  assert.ok(p instanceof RtcpRrPacket);
  assert.equal(p.ssrc, 7);
  const r = p.reports[0]!;
  assert.deepEqual(
    [r.ssrc, r.fractionLost, r.packetsLost, r.highestSequence, r.jitter, r.lsr, r.dlsr],
    [9, 12, 34, 65541, 77, 0xdeadbeef, 65536],
  );
  const [pli] = RtcpPacketConverter.deSerialize(serializePli(3, 4));
  assert.ok(pli instanceof RtcpPayloadSpecificFeedback);
  assert.ok(pli.feedback instanceof PictureLossIndication);
  assert.equal(pli.feedback.mediaSsrc, 4);
  const [empty] = RtcpPacketConverter.deSerialize(serializeRr(7, null));
  assert.ok(empty instanceof RtcpRrPacket);
  assert.equal(empty.reports.length, 0);
});

test("LSR of a sender report in a compound packet; none in a plain RR", () => {
  const sr = new RtcpSrPacket({
    ssrc: 1,
    senderInfo: new RtcpSenderInfo({
      ntpTimestamp: 0x11223344_55667788n,
      rtpTimestamp: 0,
      packetCount: 0,
      octetCount: 0,
    }),
  }).serialize();
  assert.equal(senderReportLsr(Buffer.concat([serializeRr(5, null), sr])), 0x33445566);
  assert.equal(senderReportLsr(serializeRr(5, null)), -1);
  assert.equal(senderReportLsr(sr.subarray(0, 10)), -1);
});

test("reception statistics: extended highest, cumulative and interval loss, DLSR", () => {
  const s = new ReceptionStats(90000);
  assert.equal(s.block(0), null);
  let t = 0;
  for (const seq of [65530, 65531, 65533, 65534, 65535, 0, 1, 2]) {
    t += 33 * MS;
    s.onPacket(42, seq, seq * 3000, t);
  }
  s.onSenderReport(0xabcd, 0);
  const b = s.block(500 * MS)!;
  assert.equal(b.ssrc, 42);
  assert.equal(b.extHighest, 65536 + 2);
  assert.equal(b.cumulativeLost, 1);
  assert.equal(b.fractionLost, Math.floor((1 * 256) / 9));
  assert.equal(b.lsr, 0xabcd);
  assert.equal(b.dlsr, 32768);
  for (const seq of [3, 4, 5]) {
    t += 33 * MS;
    s.onPacket(42, seq, seq * 3000, t);
  }
  assert.equal(s.block(600 * MS)!.fractionLost, 0, "no loss in the second interval");
});

test("NACK sender: with a report, each NACK and PLI leads with RR and SDES in one compound packet", () => {
  const sent: Buffer[] = [];
  const head = Buffer.concat([serializeRr(0x11, null), serializeSdes(0x11, "abcdefghijklmnop")]);
  const render = new ViewerRender("vp8", "browser", null);
  const nack = new NackSender(
    new NackGenerator({ maxPackets: 5 }),
    (b) => sent.push(b),
    0x11,
    () => {},
    () => render,
    () => {},
    () => head,
  );
  nack.onPacket(0x22, 0, 0);
  nack.onPacket(0x22, 3, 1 * MS); // 1, 2 missing: a NACK at once
  assert.equal(sent.length, 1);
  const parts = RtcpPacketConverter.deSerialize(sent[0]!);
  assert.equal(parts.length, 3);
  assert.ok(parts[0] instanceof RtcpRrPacket);
  assert.ok(parts[1] instanceof RtcpSourceDescriptionPacket);
  assert.equal(parts[1].chunks[0]?.source, 0x11);
  assert.equal(parts[1].chunks[0]?.items[0]?.text, "abcdefghijklmnop");
  assert.ok(parts[2] instanceof RtcpTransportLayerFeedback);
  assert.deepEqual([...(parts[2].feedback as GenericNack).lost].sort(), [1, 2]);
  assert.ok(sent[0]!.subarray(0, head.length).equals(head));
  nack.onPacket(0x22, 10, 2 * MS); // 6 more: past 5, cleared, a keyframe request
  render.packet(2 * MS, Uint8Array.of(0x10, 0x01), false);
  nack.afterPacket(2 * MS);
  const last = RtcpPacketConverter.deSerialize(sent.at(-1)!);
  assert.equal(last.length, 3);
  assert.ok(last[2] instanceof RtcpPayloadSpecificFeedback);
  assert.ok(last[2].feedback instanceof PictureLossIndication);
  nack.close();
});

test("SDES: CNAME chunks of every length pad to 32 bits and parse in werift", () => {
  for (const name of ["", "a", "ab", "abc", "abcd", "abcdefghijklmnop"]) {
    const b = serializeSdes(0x1234, name);
    assert.equal(b.length % 4, 0);
    const [p] = RtcpPacketConverter.deSerialize(b);
    assert.ok(p instanceof RtcpSourceDescriptionPacket, name);
    assert.equal(p.chunks[0]?.source, 0x1234);
    assert.equal(p.chunks[0]?.items[0]?.text ?? "", name);
  }
});
