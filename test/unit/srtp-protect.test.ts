// SRTP protect in place through OpenSSL (src/net/srtp/protect.ts) against werift's own protect on
// the same packets: byte for byte, for both profiles, across a sequence-number wrap, a resend from
// before the wrap, two SSRCs, header extensions and odd offsets inside a larger buffer; and the
// sender's ROC rule (src/core/srtp/send-roc.ts) on its own. SRTCP protect (src/net/srtp/protect-rtcp.ts)
// the same way on the compound messages a viewer sends, and what it writes opens with the receive
// side's node:crypto unprotect (src/core/srtp/srtp.ts) to the clear message.
import assert from "node:assert/strict";
import { test } from "node:test";
import { RtpHeader, SrtcpSession, SrtpSession } from "werift";
import {
  SRTP_AEAD_AES_128_GCM,
  SRTP_AES128_CM_HMAC_SHA1_80,
  type SrtpProfile,
} from "../../src/core/srtp/kdf.ts";
import { SendRoc } from "../../src/core/srtp/send-roc.ts";
import { SrtcpReceiver } from "../../src/core/srtp/srtp.ts";
import { openssl } from "../../src/net/srtp/openssl.ts";
import { OpensslSrtpSender } from "../../src/net/srtp/protect.ts";
import { OpensslSrtcpSender } from "../../src/net/srtp/protect-rtcp.ts";
import {
  serializeNack,
  serializePli,
  serializeRr,
  serializeSdes,
} from "../../src/workers/receive/rtcp-out.ts";

const native = openssl();
const skip = native.ok ? false : native.reason;

function pattern(n: number, seed: number): Buffer {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = (i * 31 + seed * 7) & 0xff;
  return b;
}

/** One master key and salt for both directions, and werift's session config of them. */
function keying(profile: SrtpProfile) {
  const key = pattern(16, 1);
  const salt = pattern(profile === SRTP_AEAD_AES_128_GCM ? 12 : 14, 2);
  const keys = { localMasterKey: key, localMasterSalt: salt, remoteMasterKey: key, remoteMasterSalt: salt };
  return { key, salt, config: { keys, profile } };
}

/** seqs: a run up to the wrap, over it, a resend from before it, then on. */
const SEQS = [65530, 65531, 65533, 65535, 0, 1, 65534, 2, 3, 500, 501];

for (const profile of [SRTP_AEAD_AES_128_GCM, SRTP_AES128_CM_HMAC_SHA1_80] as SrtpProfile[]) {
  test(`protect (profile ${profile}) gives werift's bytes for the same packets`, { skip }, () => {
    const { key, salt, config } = keying(profile);
    const werift = new SrtpSession(config);
    const ours = new OpensslSrtpSender(profile, key, salt);
    const arena = Buffer.alloc(4096);
    let compared = 0;
    for (const [i, seq] of SEQS.entries()) {
      for (const ssrc of [0x11223344, 0xfedcba98]) {
        const h = new RtpHeader({
          sequenceNumber: seq,
          timestamp: (seq * 3000 + 7) >>> 0,
          payloadType: 96,
          ssrc,
          marker: i % 3 === 0,
        });
        if (i % 2 === 0) {
          h.extension = true;
          h.extensions = [{ id: 4, payload: pattern(8, seq) }];
        }
        const payload = pattern(100 + i * 97, seq);
        const clear = Buffer.concat([h.serialize(h.serializeSize), payload]);
        const want = werift.encrypt(Buffer.from(payload), h);
        const at = 3 + i * 5;
        clear.copy(arena, at);
        const n = ours.protect(arena, at, h.serializeSize, payload.length);
        assert.equal(n, want.length, `length, seq ${seq}`);
        assert.deepEqual(arena.subarray(at, at + n), want, `bytes, seq ${seq} ssrc ${ssrc}`);
        compared++;
      }
    }
    assert.equal(compared, SEQS.length * 2);
  });
}

test("protect refuses a packet whose tag would not fit", { skip }, () => {
  const s = new OpensslSrtpSender(SRTP_AEAD_AES_128_GCM, pattern(16, 1), pattern(12, 2));
  assert.throws(() => s.protect(Buffer.alloc(40), 0, 12, 20), RangeError);
});

test("the sender's ROC: forward over the wrap adds one, a resend from before it takes one off", () => {
  const r = new SendRoc();
  assert.deepEqual(
    [65500, 65535, 0, 1, 65534, 2, 99, 100, 40000].map((s) => r.next(s)),
    [0, 0, 1, 1, 0, 1, 1, 1, 1],
  );
  const z = new SendRoc();
  // at ROC 0 a step back over the wrap stays 0; the next 0 after it counts forward
  assert.deepEqual(
    [5, 65535, 0].map((s) => z.next(s)),
    [0, 0, 1],
  );
});

const SSRC = 0x1234abcd;
const block = {
  ssrc: 0x55667788,
  fractionLost: 3,
  cumulativeLost: 9,
  extHighest: 70000,
  jitter: 41,
  lsr: 0,
  dlsr: 0,
};
/** what a viewer sends: transport feedback stand-in (any body), RR+SDES heads, NACK, PLI */
const MESSAGES = [
  Buffer.concat([Buffer.from([0x8f, 205, 0, 4, 0x12, 0x34, 0xab, 0xcd]), pattern(12, 5)]),
  Buffer.concat([serializeRr(SSRC, block), serializeSdes(SSRC, "abcdefghijklmnop")]),
  Buffer.concat([serializeRr(SSRC, null), serializeSdes(SSRC, "x"), serializeNack(SSRC, 1, [5, 6, 30])]),
  serializePli(SSRC, 0x55667788),
];

for (const profile of [SRTP_AEAD_AES_128_GCM, SRTP_AES128_CM_HMAC_SHA1_80] as SrtpProfile[]) {
  test(`SRTCP protect (profile ${profile}) gives werift's bytes, and they open to the message`, {
    skip,
  }, () => {
    const { key, salt, config } = keying(profile);
    const werift = new SrtcpSession(config);
    const ours = new OpensslSrtcpSender(profile, key, salt);
    const rx = new SrtcpReceiver(profile, key, salt);
    let compared = 0;
    for (let round = 0; round < 3; round++) {
      for (const [i, m] of MESSAGES.entries()) {
        // werift counts its index per SSRC from 1, one per message
        const index = round * MESSAGES.length + i + 1;
        const want = werift.encrypt(Buffer.from(m));
        const clear = Buffer.from(m);
        const got = ours.protect(clear, index);
        assert.deepEqual(clear, m, "the clear message is left as it was");
        assert.equal(got.length, m.length + ours.overhead);
        assert.deepEqual(got, want, `message ${i}, index ${index}`);
        const opened = rx.unprotect(got);
        assert.ok(opened !== null, "our receive side accepts it");
        assert.deepEqual(Buffer.from(opened), m);
        compared++;
      }
    }
    assert.equal(compared, 3 * MESSAGES.length);
  });
}

test("SRTCP protect refuses a message shorter than its header and an index over 31 bits", { skip }, () => {
  const s = new OpensslSrtcpSender(SRTP_AEAD_AES_128_GCM, pattern(16, 1), pattern(12, 2));
  assert.throws(() => s.protect(Buffer.alloc(4), 1), RangeError);
  assert.throws(() => s.protect(serializePli(1, 2), 0x80000000), RangeError);
});
