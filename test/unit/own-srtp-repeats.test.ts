// A packet that arrives twice (a retransmission that raced a NACK retry) on the lean and arena
// receive paths: SRTP's replay window rejects the second copy before decryption, and the receiver
// hands it on as a duplicate so the RTP statistics count it as werift's path does, which has no
// replay window; a duplicate feeds no other figure (packet transit included).
import assert from "node:assert/strict";
import { test } from "node:test";
import { RtpHeader, SrtpSession } from "werift";
import { ViewerPipeline } from "../../src/core/delay/viewer-pipeline.ts";
import { unixNsToAbsCapture } from "../../src/core/rtp/abs-capture-time.ts";
import { SRTP_AEAD_AES_128_GCM, SRTP_AES128_CM_HMAC_SHA1_80 } from "../../src/core/srtp/kdf.ts";
import { OwnSrtpStage } from "../../src/workers/receive/receiver.ts";

const KEY = Buffer.alloc(16, 3);
const MS = 1e6;
const WALL_MINUS_MONO = 1.7e18;

for (const [name, profile, saltBytes] of [
  ["AEAD_AES_128_GCM", SRTP_AEAD_AES_128_GCM, 12],
  ["AES_CM_128_HMAC_SHA1_80", SRTP_AES128_CM_HMAC_SHA1_80, 14],
] as const) {
  for (const inPlace of [false, true]) {
    test(`${name}${inPlace ? ", in place" : ""}: a repeated packet is one duplicate and nothing else`, () => {
      const salt = Buffer.alloc(saltBytes, 5);
      const tx = new SrtpSession({
        keys: { localMasterKey: KEY, localMasterSalt: salt, remoteMasterKey: KEY, remoteMasterSalt: salt },
        profile,
      });
      const abs = Buffer.alloc(8);
      const wire = Array.from({ length: 6 }, (_, k) => {
        const h = new RtpHeader({ sequenceNumber: 100 + k, timestamp: 3000 * k, payloadType: 96, ssrc: 7 });
        unixNsToAbsCapture(WALL_MINUS_MONO + k * 30 * MS, abs);
        h.extension = true;
        h.extensions = [{ id: 1, payload: Buffer.from(abs) }];
        return tx.encrypt(Buffer.from([0x10, k, k, k]), h);
      });
      const pipeline = new ViewerPipeline({
        codec: "vp8",
        stallNs: 500 * MS,
        excludeFirstNs: 0,
        postNs: 0,
        wallMinusMonoNs: WALL_MINUS_MONO,
        hasher: null,
        table: null,
        sendLog: null,
        absCaptureNegotiated: true,
      });
      const seen: number[] = [];
      const rx = new OwnSrtpStage({
        profile,
        remoteMasterKey: KEY,
        remoteMasterSalt: salt,
        inPlace,
        payloadTypes: [96],
        clockRate: 90000,
        absId: 1,
        senderSsrc: 1,
        sendRtcp: () => {},
        onNack: () => {},
        next: {
          receive: (p) => {
            seen.push(p.seq);
            pipeline.onPacket(p.seq, p.ts, p.marker, p.payload, p.arrivalNs, p.captureWallNs);
          },
          close: () => {},
        },
      });
      // 100 101 102 101 103 104 105 102: two packets again
      const order = [0, 1, 2, 1, 3, 4, 5, 2];
      for (const [i, k] of order.entries())
        rx.receive(Buffer.from(wire[k]!), wire[k]!.length, i * 30 * MS + 2 * MS);
      rx.close();
      assert.deepEqual(seen, [100, 101, 102, 101, 103, 104, 105, 102]);
      assert.equal(rx.dropped.srtp, 0, "a repeat is not an SRTP failure");
      assert.equal(rx.srtpCounters.rtp.repeats, 2);
      const r = pipeline.finish();
      assert.equal(r.rtp.received, 6);
      assert.equal(r.rtp.duplicates, 2);
      // transit from the six packets only, none from the repeats
      assert.deepEqual(r.packetTransit, { negotiated: true, stamped: 6, invalid: 0 });
      assert.equal(r.transitHist.n, 6);
    });
  }
}
