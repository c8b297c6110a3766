// Transport-wide feedback (src/core/rtp/twcc.ts): messages checked byte by byte against values
// worked out by hand from draft-holmer-rmcat-transport-wide-cc-extensions-01, and read back by
// werift's own RTCP parser (its TransportWideCC class) as an independent decoder.
import assert from "node:assert/strict";
import { test } from "node:test";
import { RtcpPacketConverter, RtcpTransportLayerFeedback, TransportWideCC } from "werift";
import { TWCC_RING, TwccRecorder, twccIntervalMs } from "../../src/core/rtp/twcc.ts";

const MS = 1e6;

function take(r: TwccRecorder): Buffer[] {
  const out: Buffer[] = [];
  for (let n = r.next(0x01020304, 0x0a0b0c0d); n > 0; n = r.next(0x01020304, 0x0a0b0c0d))
    out.push(Buffer.from(r.out.subarray(0, n)));
  return out;
}

function parse(b: Buffer): TransportWideCC {
  const [p] = RtcpPacketConverter.deSerialize(b);
  assert.ok(p instanceof RtcpTransportLayerFeedback, "an RTPFB packet");
  assert.ok(p.feedback instanceof TransportWideCC, "FMT 15");
  return p.feedback;
}

test("a wrap, a loss, a reordered packet: the bytes worked out by hand, and werift reads them back", () => {
  const r = new TwccRecorder();
  r.onPacket(65534, 641 * MS);
  r.onPacket(65535, 642.3 * MS);
  // 0 is lost
  r.onPacket(1, 700 * MS);
  r.onPacket(2, 650 * MS); // arrived earlier than 1: a negative, two-byte delta
  r.onPacket(2, 651 * MS); // a duplicate: only the first arrival counts
  const [m, more] = take(r);
  assert.equal(more, undefined, "one message");
  // reference time 641 ms / 64 ms = 10 (640 ms); deltas in 250 µs: 4, 5, 231 and −200, each
  // from the previous one's quantised instant; statuses small small none small large in one
  // two-bit vector (11 01 01 00 01 10 00 = 0xD460); one padding byte
  assert.equal(
    m?.toString("hex"),
    "afcd0006" + "01020304" + "0a0b0c0d" + "fffe0005" + "00000a00" + "d460" + "0405e7ff38" + "01",
  );
  const fb = parse(m!);
  assert.equal(fb.baseSequenceNumber, 65534);
  assert.equal(fb.packetStatusCount, 5);
  assert.equal(fb.referenceTime, 10);
  assert.equal(fb.fbPktCount, 0);
  assert.equal(fb.mediaSourceSsrc, 0x0a0b0c0d);
  assert.deepEqual(
    fb.recvDeltas.map((d) => d.delta),
    [1000, 1250, 57750, -50000],
  );
  assert.equal(take(r).length, 0, "nothing new: no message");
});

test("run-length and one-bit vector chunks; the window moves back for a late packet", () => {
  const r = new TwccRecorder();
  for (let k = 0; k < 10; k++) r.onPacket(100 + k, 64 * MS + k * MS);
  const [a] = take(r);
  // ten small deltas in one run-length chunk (T=0, S=01, run 10), deltas 0 then 4 each
  assert.equal(a?.toString("hex").slice(24, 44), "0064000a" + "00000100" + "200a");
  assert.deepEqual(
    parse(a!).recvDeltas.map((d) => d.delta),
    [0, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000],
  );
  // 110 111 (112 lost) 113: a one-bit vector; then 109 arrives late, after the report
  r.onPacket(110, 80 * MS);
  r.onPacket(111, 81 * MS);
  r.onPacket(113, 82 * MS);
  const [b] = take(r);
  const fb = parse(b!);
  assert.equal(fb.baseSequenceNumber, 110);
  assert.equal(fb.packetStatusCount, 4);
  assert.equal(fb.fbPktCount, 1);
  // T=1 S=0, then 1 1 0 1 and ten padding symbols: 1011 0100 0000 0000
  assert.equal(b?.subarray(20, 22).toString("hex"), "b400");
  r.onPacket(114, 83 * MS);
  r.onPacket(112, 84 * MS); // late: the next message starts from it again
  const [c] = take(r);
  const fc = parse(c!);
  assert.equal(fc.baseSequenceNumber, 112);
  assert.equal(fc.packetStatusCount, 3, "112, 113 (again) and 114");
  assert.equal(r.messages, 3);
});

test("a window longer than one message is sent in several; one older than the ring is dropped", () => {
  const r = new TwccRecorder();
  for (let k = 0; k < 900; k++) r.onPacket(k, 1000 * MS + k * 0.1 * MS);
  const ms = take(r).map(parse);
  assert.deepEqual(
    ms.map((f) => [f.baseSequenceNumber, f.packetStatusCount]),
    [
      [0, 500],
      [500, 400],
    ],
  );
  r.onPacket(900 + TWCC_RING, 2000 * MS);
  r.onPacket(900, 2001 * MS); // older than the ring holds: ignored
  const [f] = take(r).map(parse);
  assert.equal(f?.baseSequenceNumber, (900 + TWCC_RING) & 0xffff);
  assert.equal(f?.packetStatusCount, 1);
});

test("the feedback interval libwebrtc derives from a bitrate: 5 % of it, 50 to 250 ms", () => {
  assert.equal(twccIntervalMs(0), 250);
  assert.equal(twccIntervalMs(40_000), 250);
  assert.equal(twccIntervalMs(108_800), 100);
  assert.equal(twccIntervalMs(200_000), 54);
  assert.equal(twccIntervalMs(300_000), 50);
  assert.equal(twccIntervalMs(5_000_000), 50);
});
