// The in-place OpenSSL SRTP/SRTCP receivers (src/net/srtp/unprotect.ts) against the node:crypto
// ones on the same werift-protected streams: byte-identical payloads and the same accept/reject
// decisions, counters and ROC (tag failures, replays, the wrap, the SSRC limit, the neighbouring
// ROC after a jump), for both profiles; their results are views of the packet, a rejected packet
// is left as it came; and the factory's fallback to node:crypto.
import assert from "node:assert/strict";
import { createCipheriv, createHmac } from "node:crypto";
import { test } from "node:test";
import { Worker } from "node:worker_threads";
import { RtcpRrPacket, RtcpSenderInfo, RtcpSrPacket, RtpHeader, SrtcpSession, SrtpSession } from "werift";
import {
  deriveSessionKeys,
  SRTP_AEAD_AES_128_GCM,
  SRTP_AES128_CM_HMAC_SHA1_80,
  type SrtpProfile,
} from "../../src/core/srtp/kdf.ts";
import { REPLAY_WINDOW } from "../../src/core/srtp/replay.ts";
import {
  MAX_SSRCS,
  SrtcpReceiver,
  type SrtcpUnprotect,
  SrtpReceiver,
  type SrtpUnprotect,
} from "../../src/core/srtp/srtp.ts";
import { AesGcmDecrypt, openssl } from "../../src/net/srtp/openssl.ts";
import { OpensslSrtcpReceiver, OpensslSrtpReceiver, srtpReceivers } from "../../src/net/srtp/unprotect.ts";
import { rtpHeaderLength } from "../../src/workers/receive/rtp-read.ts";

const native = openssl();
const skip = native.ok ? false : `OpenSSL not reachable here: ${native.reason}`;
const PROFILES = [
  { name: "AEAD_AES_128_GCM", id: SRTP_AEAD_AES_128_GCM, salt: 12 },
  { name: "AES_CM_128_HMAC_SHA1_80", id: SRTP_AES128_CM_HMAC_SHA1_80, salt: 14 },
] as const;

function pattern(n: number, seed: number): Buffer {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = (seed * 31 + i * 7) & 0xff;
  return b;
}

const KEY = pattern(16, 1);
const saltOf = (profile: SrtpProfile): Buffer => pattern(profile === SRTP_AEAD_AES_128_GCM ? 12 : 14, 2);

function sessions(profile: SrtpProfile): { rtp: SrtpSession; rtcp: SrtcpSession } {
  const salt = saltOf(profile);
  const config = {
    keys: { localMasterKey: KEY, localMasterSalt: salt, remoteMasterKey: KEY, remoteMasterSalt: salt },
    profile,
  };
  return { rtp: new SrtpSession(config), rtcp: new SrtcpSession(config) };
}

/** A protected RTP packet; `ext` adds a one-byte header extension. */
function rtp(s: SrtpSession, seq: number, ssrc: number, payload: Buffer, ext = false): Buffer {
  const h = new RtpHeader({ sequenceNumber: seq, timestamp: (seq * 3000) >>> 0, payloadType: 96, ssrc });
  if (ext) {
    h.extension = true;
    h.extensions = [{ id: 3, payload: pattern(8, seq) }];
  }
  return s.encrypt(payload, h);
}

function flipped(p: Buffer, at: number): Buffer {
  const b = Buffer.from(p);
  b[at]! ^= 0x10;
  return b;
}

/** A stream with every case at once: the wrap, reordering, replays, tamper, a jump, too many SSRCs. */
function rtpStream(profile: SrtpProfile): Buffer[] {
  const s = sessions(profile).rtp;
  const out: Buffer[] = [];
  const held: Buffer[] = [];
  let seq = 65_300;
  for (let i = 0; i < 400; i++) {
    const p = rtp(s, seq, 0xabc, pattern(1100 - (i % 37), i), i % 3 === 0);
    if (i % 60 === 11) out.push(flipped(p, 2), flipped(p, 20), flipped(p, p.length - 1)); // tamper
    if (i % 50 === 7)
      held.push(p); // arrives late, after the next ones (a NACK repair)
    else out.push(p);
    if (i % 50 === 9) out.push(...held.splice(0));
    if (i % 40 === 5) out.push(Buffer.from(p)); // a replay
    seq = (seq + 1) & 0xffff;
  }
  // jumps of about half the sequence space: the last crosses 65535, which the estimate counts as a
  // wrap and werift's sender does not (the neighbouring-ROC retry)
  for (const jump of [32_000, 30_000, 30_000]) {
    seq = (seq + jump) & 0xffff;
    for (let i = 0; i < 60; i++) {
      out.push(rtp(s, seq, 0xabc, pattern(900, i)));
      seq = (seq + 1) & 0xffff;
    }
  }
  // more SSRCs than a receiver keeps (the ninth is rejected), then a packet too old for the window
  for (let k = 1; k <= MAX_SSRCS + 1; k++) out.push(rtp(s, 100 + k, 0x1000 + k, pattern(300, k)));
  const old = out[out.length - REPLAY_WINDOW];
  if (old !== undefined) out.push(Buffer.from(old));
  return out;
}

type Outcome = { out: Buffer | null; counters: string };

function feedRtp(rx: SrtpUnprotect, stream: Buffer[], copy: boolean): Outcome[] {
  return stream.map((p0) => {
    const p = copy ? Buffer.from(p0) : p0;
    const before = Buffer.from(p);
    const out = rx.unprotect(p, rtpHeaderLength(p, p.length - rx.tagLength));
    if (out !== null && copy) assert.equal(out.buffer, p.buffer, "the payload is a view of the packet");
    if (out === null) assert.deepEqual(p, before, "a rejected packet is left as it came");
    return { out: out === null ? null : Buffer.from(out), counters: JSON.stringify(rx.counters) };
  });
}

for (const p of PROFILES) {
  test(`${p.name}: OpenSSL in place and node:crypto agree packet by packet on RTP`, { skip }, () => {
    const stream = rtpStream(p.id);
    const ours = new OpensslSrtpReceiver(p.id, KEY, saltOf(p.id));
    const ref = new SrtpReceiver(p.id, KEY, saltOf(p.id));
    const a = feedRtp(ours, stream, true);
    const b = feedRtp(ref, stream, false);
    assert.deepEqual(a, b);
    assert.equal(ours.rocOf(0xabc), ref.rocOf(0xabc));
    assert.ok(ours.rocOf(0xabc) >= 1, "the stream wrapped");
    const c = ours.counters;
    // 7 tampered triples: 14 bad tags, and 7 changed sequence numbers of which 3 fall behind the
    // window (replays, with the 10 replays and the one too old) and 4 fail their tag; the 10
    // replays alone are repeats (the same packets again)
    assert.deepEqual(c, { authFailures: 17, replays: 14, repeats: 10, malformed: 0, foreignSsrc: 2 });
    assert.equal(a.filter((o) => o.out !== null).length, 400 + 180 + MAX_SSRCS - 1);
  });

  test(`${p.name}: packets laid side by side in one arena (as a batched read) unprotect alike`, {
    skip,
  }, () => {
    const stream = rtpStream(p.id).slice(0, 200);
    const arena = Buffer.allocUnsafeSlow(stream.reduce((n, b) => n + b.length + 3, 0));
    let at = 0;
    const views = stream.map((b) => {
      b.copy(arena, at);
      const v = arena.subarray(at, at + b.length);
      at += b.length + 3; // odd offsets
      return v;
    });
    const a = feedRtp(new OpensslSrtpReceiver(p.id, KEY, saltOf(p.id)), views, false);
    const b = feedRtp(new SrtpReceiver(p.id, KEY, saltOf(p.id)), stream, false);
    assert.deepEqual(a, b);
    assert.ok(a.some((o) => o.out !== null));
  });

  test(`${p.name}: after a +30000 jump across the wrap the neighbouring ROC decrypts in place`, {
    skip,
  }, () => {
    const s = sessions(p.id).rtp;
    const ours = new OpensslSrtpReceiver(p.id, KEY, saltOf(p.id));
    let seq = 50_000;
    for (let i = 0; i < 100; i++) {
      if (i === 50) seq = (seq + 30_000) & 0xffff;
      const payload = pattern(1000, i);
      const pkt = rtp(s, seq, 7, payload);
      assert.deepEqual(ours.unprotect(pkt, 12), payload, `packet ${i} seq ${seq}`);
      seq = (seq + 1) & 0xffff;
    }
    assert.equal(ours.counters.authFailures + ours.counters.replays, 0);
  });
}

/** SRTCP with the E flag clear (sent in the clear, authenticated), made here from the session keys. */
function clearSrtcp(profile: SrtpProfile, plain: Buffer, index: number): Buffer {
  const k = deriveSessionKeys(profile, KEY, saltOf(profile));
  const word = Buffer.alloc(4);
  word.writeUInt32BE(index, 0);
  if (profile === SRTP_AES128_CM_HMAC_SHA1_80) {
    const body = Buffer.concat([plain, word]);
    return Buffer.concat([body, createHmac("sha1", k.rtcpAuth).update(body).digest().subarray(0, 10)]);
  }
  const iv = Buffer.alloc(12);
  const s = k.rtcpSalt;
  for (let i = 0; i < 12; i++) iv[i] = s[i]!;
  iv.writeUInt32BE((plain.readUInt32BE(4) ^ s.readUInt32BE(2)) >>> 0, 2);
  iv.writeUInt32BE((index ^ s.readUInt32BE(8)) >>> 0, 8);
  const c = createCipheriv("aes-128-gcm", k.rtcpKey, iv, { authTagLength: 16 });
  c.setAAD(Buffer.concat([plain, word]));
  c.final();
  return Buffer.concat([plain, c.getAuthTag(), word]);
}

function srOf(ssrc: number): Buffer {
  const senderInfo = new RtcpSenderInfo({ ntpTimestamp: 1n, rtpTimestamp: 2, packetCount: 3, octetCount: 4 });
  return new RtcpSrPacket({ ssrc, senderInfo }).serialize();
}

function rtcpStream(profile: SrtpProfile): Buffer[] {
  const s = sessions(profile).rtcp;
  const out: Buffer[] = [];
  for (let i = 0; i < 40; i++) {
    const ssrc = i < 30 ? 0x55 : 0x2000 + i; // the last ten: more SSRCs than a receiver keeps
    const sr = srOf(ssrc);
    const rr = new RtcpRrPacket({ ssrc }).serialize();
    const plain = Buffer.concat([sr, rr, pattern(4 * (i % 5), i)]);
    plain.writeUInt16BE(plain.length / 4 - 1 - rr.length / 4, 2); // the SR's length covers the filler
    const p = s.encrypt(plain);
    const tamper = i % 7 === 3 && i < 30;
    if (tamper) out.push(flipped(p, 1), flipped(p, 12), flipped(p, p.length - 6)); // 6: in both tags
    out.push(p);
    if (tamper) out.push(Buffer.from(p)); // a replay
  }
  const clear = clearSrtcp(profile, srOf(0x55), 1000);
  out.push(flipped(clear, 9), clear, Buffer.from(clear), clearSrtcp(profile, srOf(0x55), 1001));
  return out;
}

function feedRtcp(rx: SrtcpUnprotect, stream: Buffer[], copy: boolean): Outcome[] {
  return stream.map((p0) => {
    const p = copy ? Buffer.from(p0) : p0;
    const before = Buffer.from(p);
    const out = rx.unprotect(p);
    if (out !== null && copy) assert.equal(out.buffer, p.buffer, "the packet is a view of the datagram");
    if (out === null) assert.deepEqual(p, before, "a rejected packet is left as it came");
    return { out: out === null ? null : Buffer.from(out), counters: JSON.stringify(rx.counters) };
  });
}

for (const p of PROFILES) {
  test(`${p.name}: OpenSSL in place and node:crypto agree packet by packet on SRTCP`, { skip }, () => {
    const stream = rtcpStream(p.id);
    const a = feedRtcp(new OpensslSrtcpReceiver(p.id, KEY, saltOf(p.id)), stream, true);
    const b = feedRtcp(new SrtcpReceiver(p.id, KEY, saltOf(p.id)), stream, false);
    assert.deepEqual(a, b);
    const last = JSON.parse(a[a.length - 1]!.counters) as Record<string, number>;
    assert.deepEqual(last, { authFailures: 13, replays: 5, repeats: 0, malformed: 0, foreignSsrc: 3 });
    assert.ok(a[a.length - 3]!.out !== null && a[a.length - 1]!.out !== null, "the clear packets pass");
  });
}

test("srtpReceivers: OpenSSL where it loaded, node:crypto when told it is unavailable", () => {
  for (const p of PROFILES) {
    const down = srtpReceivers(p.id, KEY, saltOf(p.id), { ok: false, reason: "no koffi binary" });
    assert.equal(down.backend, "node:crypto");
    assert.equal(down.fallbackReason, "no koffi binary");
    assert.ok(down.rtp instanceof SrtpReceiver && down.rtcp instanceof SrtcpReceiver);
    if (!native.ok) continue;
    const up = srtpReceivers(p.id, KEY, saltOf(p.id));
    assert.equal(up.backend, "openssl");
    assert.equal(up.fallbackReason, null);
    assert.ok(up.rtp instanceof OpensslSrtpReceiver && up.rtcp instanceof OpensslSrtcpReceiver);
  }
});

test("a worker thread reaches OpenSSL too and unprotects in place there", { skip }, async () => {
  const packet = rtp(sessions(SRTP_AEAD_AES_128_GCM).rtp, 9, 0x77, pattern(1100, 3));
  const w = new Worker(new URL("./srtp-native.worker.ts", import.meta.url), {
    workerData: { key: KEY, salt: saltOf(SRTP_AEAD_AES_128_GCM), packet },
  });
  const reply = await new Promise<{ ok: boolean; backend: string; payload: Uint8Array | null }>(
    (resolve, reject) => {
      w.once("message", resolve);
      w.once("error", reject);
    },
  );
  await w.terminate();
  assert.equal(reply.ok, true);
  assert.equal(reply.backend, "openssl");
  assert.deepEqual(Buffer.from(reply.payload ?? []), pattern(1100, 3));
});

test("net/srtp/openssl: a byte range outside the buffer throws before native code sees it", { skip }, () => {
  const g = new AesGcmDecrypt(KEY);
  g.begin(Buffer.alloc(12));
  const b = Buffer.alloc(64);
  assert.throws(() => g.decrypt(b, 60, 5), RangeError);
  assert.throws(() => g.aad(b, -1, 4), RangeError);
  assert.throws(() => g.verify(b, 50), RangeError);
  assert.throws(() => new AesGcmDecrypt(Buffer.alloc(15)), RangeError);
});
