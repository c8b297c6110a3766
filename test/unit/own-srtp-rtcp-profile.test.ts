// Our SRTP stage (lean and arena paths) sends the viewer profile's reports (receiver-reports.ts,
// docs/definitions.md#nacks): the first NACK of a gap leads with an RR alone on the browser profile
// (the default) and with an RR and SDES on minimal.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  RtcpPacketConverter,
  RtcpRrPacket,
  RtcpSourceDescriptionPacket,
  RtpHeader,
  SrtpSession,
} from "werift";
import type { ViewerProfile } from "../../src/core/scenario/defaults.ts";
import { SRTP_AEAD_AES_128_GCM } from "../../src/core/srtp/kdf.ts";
import { OwnSrtpStage } from "../../src/workers/receive/receiver.ts";

const KEY = Buffer.alloc(16, 3);
const SALT = Buffer.alloc(12, 5);

/** The RTCP the stage sends for packets 100, 101, 103 (102 missing), with `profile` (absent: the default). */
function firstNack(profile: ViewerProfile | undefined): Buffer[] {
  const tx = new SrtpSession({
    keys: { localMasterKey: KEY, localMasterSalt: SALT, remoteMasterKey: KEY, remoteMasterSalt: SALT },
    profile: SRTP_AEAD_AES_128_GCM,
  });
  const rtcp: Buffer[] = [];
  const rx = new OwnSrtpStage({
    profile: SRTP_AEAD_AES_128_GCM,
    remoteMasterKey: KEY,
    remoteMasterSalt: SALT,
    payloadTypes: [96],
    clockRate: 90000,
    absId: 0,
    senderSsrc: 1,
    sendRtcp: (b) => rtcp.push(Buffer.from(b)),
    onNack: () => {},
    next: { receive: () => {}, close: () => {} },
    ...(profile !== undefined ? { viewerProfile: profile } : {}),
  });
  for (const k of [0, 1, 3]) {
    const h = new RtpHeader({ sequenceNumber: 100 + k, timestamp: 3000 * k, payloadType: 96, ssrc: 7 });
    const w = tx.encrypt(Buffer.from([0x10, k]), h);
    rx.receive(Buffer.from(w), w.length, k * 1e6);
  }
  rx.close();
  return rtcp;
}

test("our SRTP stage: the browser profile's NACK leads with an RR alone (48 bytes), minimal's with RR + SDES", () => {
  for (const profile of [undefined, "browser", "minimal"] as const) {
    const sent = firstNack(profile);
    assert.equal(sent.length, 1, `${profile}: one NACK compound`);
    const parts = RtcpPacketConverter.deSerialize(sent[0]!);
    assert.ok(parts[0] instanceof RtcpRrPacket);
    const sdes = profile === "minimal";
    assert.equal(parts[1] instanceof RtcpSourceDescriptionPacket, sdes, `${profile}: SDES`);
    assert.equal(sent[0]!.length, sdes ? 76 : 48, `${profile}: bytes`);
  }
});
