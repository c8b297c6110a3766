// Our SRTP stage (lean and arena paths) with transport-cc and rtx negotiated
// (docs/definitions.md#viewer-profile): a loss repaired by an RTX packet reaches the next stage
// under its original sequence number and payload, the statistics count it received, and the
// transport feedback reports every packet, the RTX one included, read back by werift's own RTCP
// parser.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  RtcpPacketConverter,
  RtcpTransportLayerFeedback,
  RtpHeader,
  SrtpSession,
  TransportWideCC,
} from "werift";
import { plainPipeline } from "../../bench/plain-pipeline.ts";
import { SRTP_AEAD_AES_128_GCM } from "../../src/core/srtp/kdf.ts";
import { OwnSrtpStage } from "../../src/workers/receive/receiver.ts";

const KEY = Buffer.alloc(16, 3);
const SALT = Buffer.alloc(12, 5);
const MS = 1e6;
const TWCC_ID = 2;

function transportSeq(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n);
  return b;
}

for (const inPlace of [false, true]) {
  test(`RTX restores a lost packet before statistics and NACK; transport feedback covers RTX${inPlace ? " (in place)" : ""}`, () => {
    const tx = new SrtpSession({
      keys: { localMasterKey: KEY, localMasterSalt: SALT, remoteMasterKey: KEY, remoteMasterSalt: SALT },
      profile: SRTP_AEAD_AES_128_GCM,
    });
    const media = (k: number, tseq: number) => {
      const h = new RtpHeader({ sequenceNumber: 100 + k, timestamp: 3000 * k, payloadType: 96, ssrc: 7 });
      h.extension = true;
      h.extensions = [{ id: TWCC_ID, payload: transportSeq(tseq) }];
      return tx.encrypt(Buffer.from([0x10, k, k, k]), h);
    };
    // the retransmission of 102 on RTX: its own SSRC and sequence number, the OSN first
    const rtxHeader = new RtpHeader({ sequenceNumber: 1, timestamp: 3000 * 2, payloadType: 97, ssrc: 8 });
    rtxHeader.extension = true;
    rtxHeader.extensions = [{ id: TWCC_ID, payload: transportSeq(5006) }];
    const rtx = tx.encrypt(Buffer.from([0, 102, 0x10, 2, 2, 2]), rtxHeader);
    const pipeline = plainPipeline("vp8");
    const seen: string[] = [];
    const rtcp: Buffer[] = [];
    let nacks = 0;
    let feedback = 0;
    let rtxCount = 0;
    const rx = new OwnSrtpStage({
      profile: SRTP_AEAD_AES_128_GCM,
      remoteMasterKey: KEY,
      remoteMasterSalt: SALT,
      inPlace,
      payloadTypes: [96],
      rtxPayloadTypes: [97],
      clockRate: 90000,
      absId: 0,
      twccId: TWCC_ID,
      senderSsrc: 1,
      sendRtcp: (b) => rtcp.push(Buffer.from(b)),
      onNack: () => nacks++,
      onTransportFeedback: () => feedback++,
      onRtx: () => rtxCount++,
      next: {
        receive: (p) => {
          seen.push(`${p.seq}:${Buffer.from(p.payload).toString("hex")}`);
          pipeline.onPacket(p.seq, p.ts, p.marker, p.payload, p.arrivalNs, p.captureWallNs);
        },
        close: () => {},
      },
    });
    // 100 101 (102 lost) 103 104 105, then 102 on RTX
    const wire = [0, 1, 3, 4, 5].map((k) => media(k, 5000 + k));
    wire.forEach((w, i) => {
      rx.receive(Buffer.from(w), w.length, (i + 1) * 10 * MS);
    });
    assert.ok(nacks >= 1, "the gap was NACKed");
    rx.receive(Buffer.from(rtx), rtx.length, 70 * MS);
    rx.twcc?.flush();
    rx.close();
    assert.deepEqual(seen, [
      "100:10000000",
      "101:10010101",
      "103:10030303",
      "104:10040404",
      "105:10050505",
      "102:10020202",
    ]);
    assert.equal(rtxCount, 1);
    assert.equal(rx.rtxReceived, 1);
    const r = pipeline.finish();
    assert.equal(r.rtp.received, 6);
    assert.equal(r.rtp.lost, 0, "repaired: nothing lost");
    assert.equal(feedback, 1);
    const fbs = rtcp
      .flatMap((b) => RtcpPacketConverter.deSerialize(b))
      .filter((p): p is RtcpTransportLayerFeedback => p instanceof RtcpTransportLayerFeedback)
      .map((p) => p.feedback)
      .filter((f): f is TransportWideCC => f instanceof TransportWideCC);
    assert.equal(fbs.length, 1, "one transport feedback message");
    const fb = fbs[0]!;
    assert.equal(fb.baseSequenceNumber, 5000);
    assert.equal(fb.packetStatusCount, 7, "5000..5006: 5002 never sent, 5006 the RTX packet");
    assert.equal(fb.recvDeltas.length, 6);
    assert.deepEqual(
      fb.recvDeltas.map((d) => d.delta),
      [10, 10, 10, 10, 10, 20].map((ms) => ms * 1000),
    );
  });
}
