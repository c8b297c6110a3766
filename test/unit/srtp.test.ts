// SRTP/SRTCP unprotect (src/core/srtp) against werift's own SrtpSession/SrtcpSession encrypt:
// both profiles, the sequence wrap (ROC), reordering, replay, tamper, the key derivation, and
// header extensions read in place.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  RtcpReceiverInfo,
  RtcpRrPacket,
  RtcpSenderInfo,
  RtcpSrPacket,
  RtpHeader,
  SrtcpSession,
  SrtpSession,
} from "werift";
import { absCaptureAtToUnixNs, unixNsToAbsCapture } from "../../src/core/rtp/abs-capture-time.ts";
import {
  deriveSessionKeys,
  SRTP_AEAD_AES_128_GCM,
  SRTP_AES128_CM_HMAC_SHA1_80,
} from "../../src/core/srtp/kdf.ts";
import { REPLAY_WINDOW } from "../../src/core/srtp/replay.ts";
import { SrtcpReceiver, SrtpReceiver } from "../../src/core/srtp/srtp.ts";
import {
  extensionLength,
  extensionOffset,
  findExtension,
  rtpHeaderLength,
  rtpSeq,
} from "../../src/workers/receive/rtp-read.ts";

const PROFILES = [
  { name: "AEAD_AES_128_GCM", id: SRTP_AEAD_AES_128_GCM, salt: 12 },
  { name: "AES_CM_128_HMAC_SHA1_80", id: SRTP_AES128_CM_HMAC_SHA1_80, salt: 14 },
] as const;

function pattern(n: number, seed: number): Buffer {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = (seed * 31 + i * 7) & 0xff;
  return b;
}

/** A werift sender session and our receiver over the same master key and salt. */
function pair(profile: 1 | 7, saltLen: number) {
  const key = pattern(16, 1);
  const salt = pattern(saltLen, 2);
  const config = {
    keys: { localMasterKey: key, localMasterSalt: salt, remoteMasterKey: key, remoteMasterSalt: salt },
    profile,
  };
  return {
    werift: new SrtpSession(config),
    weriftRtcp: new SrtcpSession(config),
    rx: new SrtpReceiver(profile, key, salt),
    rtcp: new SrtcpReceiver(profile, key, salt),
  };
}

const SSRC = 0x1234abcd;

function encrypt(
  s: SrtpSession,
  seq: number,
  payload: Buffer,
  ext?: { id: number; payload: Buffer },
): Buffer {
  const h = new RtpHeader({
    sequenceNumber: seq,
    timestamp: (seq * 3000) >>> 0,
    payloadType: 96,
    ssrc: SSRC,
  });
  if (ext) {
    h.extension = true;
    h.extensions = [ext];
  }
  return s.encrypt(payload, h);
}

function open(rx: SrtpReceiver, pkt: Buffer): Buffer | null {
  return rx.unprotect(pkt, rtpHeaderLength(pkt, pkt.length - rx.tagLength));
}

for (const p of PROFILES) {
  test(`${p.name}: session keys equal werift's`, () => {
    const { werift } = pair(p.id, p.salt);
    const ours = deriveSessionKeys(p.id, pattern(16, 1), pattern(p.salt, 2));
    const ctx = werift.remoteContext as unknown as {
      srtpSessionKey: Buffer;
      srtpSessionSalt: Buffer;
      srtpSessionAuthTag: Buffer;
      srtcpSessionKey: Buffer;
    };
    assert.deepEqual(ours.rtpKey, ctx.srtpSessionKey);
    assert.deepEqual(ours.rtpSalt, ctx.srtpSessionSalt.subarray(0, ours.rtpSalt.length));
    assert.deepEqual(ours.rtcpKey, ctx.srtcpSessionKey);
    if (p.id === SRTP_AES128_CM_HMAC_SHA1_80) assert.deepEqual(ours.rtpAuth, ctx.srtpSessionAuthTag);
  });

  test(`${p.name}: 300 packets across the sequence wrap decrypt, ROC 0 → 1`, () => {
    const { werift, rx } = pair(p.id, p.salt);
    let seq = 65400;
    for (let i = 0; i < 300; i++) {
      const payload = pattern(1100 - (i % 50), i);
      const out = open(rx, encrypt(werift, seq, payload));
      assert.ok(out, `packet ${i} seq ${seq}`);
      assert.deepEqual(out, payload);
      seq = (seq + 1) & 0xffff;
    }
    assert.equal(rx.rocOf(SSRC), 1);
    assert.equal(rx.counters.authFailures + rx.counters.replays, 0);
  });

  test(`${p.name}: a gap and a reorder across the wrap, then replay and too-old rejected`, () => {
    const { werift, rx } = pair(p.id, p.salt);
    const pkts = new Map<number, Buffer>();
    for (const s of [65530, 65531, 65532, 65533, 65534, 65535, 0, 1, 2, 3])
      pkts.set(s, encrypt(werift, s, pattern(200, s)));
    // 65535 is held back and arrives after 0..2 (a NACK repair across the wrap); 3 never comes
    for (const s of [65530, 65531, 65532, 65533, 65534, 0, 1, 2, 65535]) {
      const out = open(rx, pkts.get(s)!);
      assert.deepEqual(out, pattern(200, s), `seq ${s}`);
    }
    assert.equal(rx.rocOf(SSRC), 1);
    // replays: the very same datagrams again
    assert.equal(open(rx, pkts.get(1)!), null);
    assert.equal(open(rx, pkts.get(65535)!), null);
    assert.equal(rx.counters.replays, 2);
    // far ahead, then something older than the window
    let seq = 3;
    for (let i = 0; i < REPLAY_WINDOW + 10; i++) {
      seq = (seq + 1) & 0xffff;
      encrypt(werift, seq, pattern(20, i)); // the sender's state moves on
    }
    const late = pkts.get(3)!;
    assert.ok(open(rx, encrypt(werift, (seq + 1) & 0xffff, pattern(20, 1))));
    assert.equal(open(rx, late), null, "older than the replay window");
  });

  test(`${p.name}: any flipped bit fails authentication and moves no state`, () => {
    const { werift, rx } = pair(p.id, p.salt);
    assert.ok(open(rx, encrypt(werift, 10, pattern(300, 10))));
    const good = encrypt(werift, 11, pattern(300, 11));
    for (const at of [1, 3, 7, 11, 20, 150, good.length - 1]) {
      const bad = Buffer.from(good);
      bad[at]! ^= 0x04;
      assert.equal(open(rx, bad), null, `byte ${at}`);
    }
    assert.ok(rx.counters.authFailures >= 5);
    assert.deepEqual(open(rx, good), pattern(300, 11), "the genuine packet is still accepted");
    // a forged packet far ahead must not move ROC: tamper a packet with seq 40000
    const forged = Buffer.from(encrypt(werift, 40000, pattern(50, 1)));
    forged[forged.length - 1]! ^= 1;
    assert.equal(open(rx, forged), null);
    assert.equal(rx.rocOf(SSRC), 0);
  });

  test(`${p.name}: header extensions are authenticated and read in place`, () => {
    const { werift, rx } = pair(p.id, p.salt);
    const abs = Buffer.alloc(8);
    const ns = 1_790_000_000_123_456_000;
    unixNsToAbsCapture(ns, abs);
    const pkt = encrypt(werift, 500, pattern(100, 5), { id: 3, payload: abs });
    const h = rtpHeaderLength(pkt, pkt.length - rx.tagLength);
    assert.ok(h > 12);
    assert.equal(rtpSeq(pkt), 500);
    const found = findExtension(pkt, h, 3);
    assert.ok(found > 0);
    assert.equal(extensionLength(found), 8);
    assert.ok(Math.abs(absCaptureAtToUnixNs(pkt, extensionOffset(found)) - ns) < 1000);
    assert.equal(findExtension(pkt, h, 4), -1);
    assert.deepEqual(rx.unprotect(pkt, h), pattern(100, 5));
  });

  test(`${p.name}: SRTCP from werift decrypts; replay and tamper rejected`, () => {
    const { weriftRtcp, rtcp } = pair(p.id, p.salt);
    const sr = new RtcpSrPacket({
      ssrc: SSRC,
      senderInfo: new RtcpSenderInfo({
        ntpTimestamp: 0x0123456789abcdefn,
        rtpTimestamp: 42,
        packetCount: 7,
        octetCount: 9,
      }),
    }).serialize();
    const rr = new RtcpRrPacket({
      ssrc: SSRC,
      reports: [
        new RtcpReceiverInfo({
          ssrc: 5,
          fractionLost: 1,
          packetsLost: 2,
          highestSequence: 3,
          jitter: 4,
          lsr: 5,
          dlsr: 6,
        }),
      ],
    }).serialize();
    const plain = Buffer.concat([sr, rr]);
    const first = weriftRtcp.encrypt(plain);
    assert.deepEqual(rtcp.unprotect(first), plain);
    const second = weriftRtcp.encrypt(plain);
    assert.notDeepEqual(second, first);
    assert.deepEqual(rtcp.unprotect(second), plain);
    assert.equal(rtcp.unprotect(first), null, "replay");
    const bad = Buffer.from(weriftRtcp.encrypt(plain));
    bad[12]! ^= 0x80;
    assert.equal(rtcp.unprotect(bad), null, "tamper");
    assert.equal(rtcp.counters.replays, 1);
    assert.equal(rtcp.counters.authFailures, 1);
  });
}

test("two-byte header extensions (0x1000) are found too", () => {
  const b = Buffer.alloc(12 + 4 + 16 + 4);
  b[0] = 0x90; // V=2, X=1
  b[12] = 0x10;
  b[13] = 0x00;
  b.writeUInt16BE(4, 14); // 16 bytes of elements (the last 2 are padding)
  let i = 16;
  b[i++] = 2; // id 2, length 1
  b[i++] = 1;
  b[i++] = 0xaa;
  b[i++] = 0; // padding
  b[i++] = 9; // id 9, length 8
  b[i++] = 8;
  for (let k = 0; k < 8; k++) b[i++] = k + 1;
  const h = rtpHeaderLength(b, b.length);
  assert.equal(h, 32);
  const nine = findExtension(b, h, 9);
  assert.deepEqual([extensionOffset(nine), extensionLength(nine)], [22, 8]);
  const two = findExtension(b, h, 2);
  assert.deepEqual([extensionOffset(two), extensionLength(two)], [18, 1]);
  assert.equal(findExtension(b, h, 5), -1);
  assert.equal(rtpHeaderLength(b, 20), -1, "extension beyond the packet");
  b[0] = 0x50;
  assert.equal(rtpHeaderLength(b, b.length), -1, "version 1");
});

for (const p of PROFILES) {
  for (const start of [1000, 50_000]) {
    test(`${p.name}: a +30000 sequence jump from ${start} (${start + 30_050 > 65_535 ? "across" : "within"} the wrap) still decrypts`, () => {
      const { werift, rx } = pair(p.id, p.salt);
      let seq = start;
      for (let i = 0; i < 100; i++) {
        if (i === 50) seq = (seq + 30_000) & 0xffff;
        const payload = pattern(1000, i);
        const out = open(rx, encrypt(werift, seq, payload));
        assert.ok(out, `packet ${i} seq ${seq}`);
        seq = (seq + 1) & 0xffff;
      }
      assert.equal(rx.counters.authFailures + rx.counters.replays, 0);
    });
  }
}
