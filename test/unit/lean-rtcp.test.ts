// The lean path's RTCP (src/workers/receive): the NACK generator's groups and schedule, and the
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
  RtcpSrPacket,
  RtcpTransportLayerFeedback,
} from "werift";
import { ViewerRender } from "../../src/core/render/viewer-render.ts";
import { NackGenerator } from "../../src/workers/receive/nack.ts";
import { NackSender } from "../../src/workers/receive/nack-sender.ts";
import { ReceptionStats } from "../../src/workers/receive/reception.ts";
import {
  senderReportLsr,
  serializeNack,
  serializePli,
  serializeRr,
} from "../../src/workers/receive/rtcp-out.ts";

const MS = 1e6;

function drain(g: NackGenerator, now: number): number[][] {
  const out: number[][] = [];
  g.poll(now, (s) => out.push([...s]));
  return out;
}

test("NACK: a gap is NACKed at once, again every 100 ms while missing, 10 times at most", () => {
  const g = new NackGenerator();
  assert.equal(g.onPacket(100, 0), false);
  assert.equal(g.onPacket(101, 1 * MS), false);
  assert.equal(g.onPacket(104, 2 * MS), true); // 102, 103 missing
  assert.deepEqual(drain(g, 2 * MS), [[102, 103]]);
  assert.equal(g.nextDueNs(), 102 * MS);
  assert.deepEqual(drain(g, 50 * MS), [], "not due yet");
  g.onPacket(105, 60 * MS);
  g.onPacket(103, 70 * MS); // 103 repaired
  assert.deepEqual(drain(g, 102 * MS), [[102]]);
  let t = 102 * MS;
  for (let k = 3; k <= 10; k++) {
    t += 100 * MS;
    assert.deepEqual(drain(g, t), [[102]], `request ${k}`);
  }
  assert.equal(g.pending, 0, "retired after 10 messages");
  assert.deepEqual(drain(g, t + 100 * MS), []);
  assert.equal(g.messages, 10);
  assert.equal(g.requested, 11);
});

test("NACK: a repaired gap sends nothing more; separate gaps are separate messages", () => {
  const g = new NackGenerator();
  g.onPacket(1, 0);
  assert.ok(g.onPacket(3, 0));
  assert.deepEqual(drain(g, 0), [[2]]);
  g.onPacket(2, 1 * MS); // repair
  assert.equal(g.pending, 0);
  assert.ok(g.onPacket(5, 2 * MS)); // 4 missing
  assert.ok(g.onPacket(8, 3 * MS)); // 6, 7 missing
  assert.deepEqual(drain(g, 3 * MS), [[4], [6, 7]]);
  assert.equal(g.messages, 3);
  // a duplicate or an old packet opens nothing
  assert.equal(g.onPacket(8, 4 * MS), false);
  assert.equal(g.onPacket(1, 4 * MS), false);
});

test("NACK: gaps across the sequence wrap, and a jump beyond maxGap is no loss", () => {
  const g = new NackGenerator({ maxGap: 100 });
  g.onPacket(65534, 0);
  assert.ok(g.onPacket(1, 0)); // 65535, 0 missing
  assert.deepEqual(drain(g, 0), [[65535, 0]]);
  g.onPacket(0, 1 * MS);
  g.onPacket(65535, 1 * MS);
  assert.equal(g.pending, 0);
  assert.equal(g.onPacket(500, 2 * MS), false, "a jump of 498 > maxGap");
  const bounded = new NackGenerator({ maxGroups: 2 });
  bounded.onPacket(0, 0);
  bounded.onPacket(2, 0);
  bounded.onPacket(4, 0);
  bounded.onPacket(6, 0);
  assert.equal(bounded.pending, 2, "the oldest group is dropped");
  assert.deepEqual(drain(bounded, 0), [[3], [5]]);
});

test("NACK: a list that would pass maxPackets (1 000) is cleared and counted as an overflow", () => {
  const g = new NackGenerator({ maxPackets: 10 });
  g.onPacket(0, 0);
  assert.ok(g.onPacket(5, 0)); // 1..4
  assert.ok(g.onPacket(11, 0)); // 6..10: 9 held
  assert.ok(g.onPacket(13, 0), "12: 10 held, not past 10");
  assert.equal(g.onPacket(15, 0), false, "14 would make 11: the list is cleared instead");
  assert.equal(g.overflows, 1);
  assert.equal(g.pending, 0);
  assert.deepEqual(drain(g, 0), []);
  // the default holds 1 000: a gap of 500 twice fits, a third does not
  const d = new NackGenerator();
  d.onPacket(0, 0);
  assert.ok(d.onPacket(501, 0));
  assert.ok(d.onPacket(1002, 0));
  assert.equal(d.onPacket(1004, 0), false);
  assert.equal(d.overflows, 1);
});

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
