// SRTP and SRTCP unprotect (receive side) with node:crypto, for AEAD_AES_128_GCM (RFC 7714)
// and AES_CM_128_HMAC_SHA1_80 (RFC 3711). Per packet: read SSRC/SEQ from the clear header,
// estimate the index (ROC), reject a replay before any crypto, authenticate and decrypt, and
// only then commit ROC and replay state. The only objects made per packet are node:crypto's
// own (one decipher, plus one HMAC for AES-CM; node:crypto cannot re-key a context with a new
// IV) and the views it needs; the IV buffers are reused.
import { createDecipheriv, createHmac, createSecretKey, type KeyObject } from "node:crypto";
import { deriveSessionKeys, SRTP_AEAD_AES_128_GCM, type SrtpProfile } from "./kdf.ts";
import { ReplayWindow, RtpIndexState } from "./replay.ts";

/** SSRCs one receiver keeps contexts for; packets of further SSRCs are rejected. */
export const MAX_SSRCS = 8;
const GCM_TAG = 16;
const GCM_OPTIONS = { authTagLength: GCM_TAG } as const;
const CM_TAG = 10;
const SRTCP_INDEX = 4;

/** Why the last packet was rejected (counters for a viewer's diagnostics). */
export interface UnprotectCounters {
  authFailures: number;
  replays: number;
  malformed: number;
  foreignSsrc: number;
}

function counters(): UnprotectCounters {
  return { authFailures: 0, replays: 0, malformed: 0, foreignSsrc: 0 };
}

/** Constant-time compare of a[ao..ao+n) with b[0..n). */
function tagEqual(a: Uint8Array, ao: number, b: Uint8Array, n: number): boolean {
  let acc = 0;
  for (let i = 0; i < n; i++) acc |= a[ao + i]! ^ b[i]!;
  return acc === 0;
}

/** Inbound SRTP of one DTLS-SRTP session (the remote side's master key and salt). */
export class SrtpReceiver {
  readonly profile: SrtpProfile;
  readonly counters = counters();
  private readonly gcm: boolean;
  private readonly key: KeyObject;
  private readonly auth: KeyObject | null;
  private readonly salt: Buffer;
  private readonly iv: Buffer;
  private readonly roc4 = Buffer.alloc(4);
  private readonly states = new Map<number, RtpIndexState>();
  private lastSsrc = -1;
  private last: RtpIndexState | null = null;

  constructor(profile: SrtpProfile, masterKey: Uint8Array, masterSalt: Uint8Array) {
    this.profile = profile;
    this.gcm = profile === SRTP_AEAD_AES_128_GCM;
    const k = deriveSessionKeys(profile, masterKey, masterSalt);
    this.key = createSecretKey(k.rtpKey);
    this.auth = this.gcm ? null : createSecretKey(k.rtpAuth);
    this.salt = k.rtpSalt;
    this.iv = Buffer.alloc(this.gcm ? 12 : 16);
  }

  /** Bytes of authentication tag at the end of every packet. */
  get tagLength(): number {
    return this.gcm ? GCM_TAG : CM_TAG;
  }

  /** The ROC of an SSRC's context (for tests and diagnostics); −1 when it has none. */
  rocOf(ssrc: number): number {
    return this.states.get(ssrc)?.roc ?? -1;
  }

  private state(ssrc: number): RtpIndexState | null {
    if (ssrc === this.lastSsrc) return this.last;
    let s = this.states.get(ssrc);
    if (s === undefined) {
      if (this.states.size >= MAX_SSRCS) return null;
      s = new RtpIndexState();
      this.states.set(ssrc, s);
    }
    this.lastSsrc = ssrc;
    this.last = s;
    return s;
  }

  /**
   * Unprotects one SRTP packet whose clear RTP header (fixed part, CSRCs and extension) is
   * `headerLen` bytes and which fills the first `length` bytes of `packet`. Returns the decrypted payload (RTP padding still included), or null
   * when the packet is malformed, a replay, too old, or fails authentication.
   */
  unprotect(packet: Buffer, headerLen: number, length = packet.length): Buffer | null {
    const tag = this.gcm ? GCM_TAG : CM_TAG;
    const end = length - tag;
    if (headerLen < 12 || end < headerLen) {
      this.counters.malformed++;
      return null;
    }
    const seq = (packet[2]! << 8) | packet[3]!;
    const ssrc = packet.readUInt32BE(8);
    const st = this.state(ssrc);
    if (st === null) {
      this.counters.foreignSsrc++;
      return null;
    }
    const index = st.estimate(seq);
    if (index < 0 || !st.replay.check(index)) {
      this.counters.replays++;
      return null;
    }
    let roc = (index - seq) / 65536;
    let out = this.open(packet, headerLen, end, ssrc, roc, seq);
    if (out === null) {
      // Senders disagree on the rollover counter after a large sequence jump: RFC 3711 section 3.3.1
      // counts a jump past 65535 as a wrap (ROC + 1), werift's sender counts only a wrap close
      // to 65535. When the estimate fails, the neighbouring ROC is tried once; it authenticates
      // only if the sender really used it (the tag still guards every byte), and the receive
      // state then follows the sender's count (its window restarts if that index went back).
      const alt = roc !== st.roc ? st.roc : st.roc + 1;
      if (alt >= 0) out = this.open(packet, headerLen, end, ssrc, alt, seq);
      if (out === null) {
        this.counters.authFailures++;
        return null;
      }
      roc = alt;
    }
    const taken = roc * 65536 + seq;
    if (taken === index) st.commit(seq, taken);
    else st.follow(seq, taken);
    return out;
  }

  private open(p: Buffer, h: number, end: number, ssrc: number, roc: number, seq: number): Buffer | null {
    return this.gcm ? this.openGcm(p, h, end, ssrc, roc, seq) : this.openCm(p, h, end, ssrc, roc, seq);
  }

  private openGcm(p: Buffer, h: number, end: number, ssrc: number, roc: number, seq: number): Buffer | null {
    // RFC 7714 section 8.1: IV = (00 00 ‖ SSRC ‖ ROC ‖ SEQ) XOR salt
    const iv = this.iv;
    const s = this.salt;
    iv[0] = s[0]!;
    iv[1] = s[1]!;
    iv.writeUInt32BE((ssrc ^ s.readUInt32BE(2)) >>> 0, 2);
    iv.writeUInt32BE((roc ^ s.readUInt32BE(6)) >>> 0, 6);
    iv[10] = (seq >>> 8) ^ s[10]!;
    iv[11] = (seq & 0xff) ^ s[11]!;
    const d = createDecipheriv("aes-128-gcm", this.key, iv, GCM_OPTIONS);
    d.setAAD(p.subarray(0, h));
    d.setAuthTag(p.subarray(end, end + GCM_TAG));
    const out = d.update(p.subarray(h, end));
    try {
      d.final();
    } catch {
      return null;
    }
    return out;
  }

  private openCm(p: Buffer, h: number, end: number, ssrc: number, roc: number, seq: number): Buffer | null {
    // RFC 3711 section 4.2: tag = HMAC-SHA1(header ‖ encrypted payload ‖ ROC), first 80 bits
    this.roc4.writeUInt32BE(roc, 0);
    const mac = createHmac("sha1", this.auth!).update(p.subarray(0, end)).update(this.roc4).digest();
    if (!tagEqual(p, end, mac, CM_TAG)) return null;
    // section 4.1.1: IV = (salt · 2¹⁶) XOR (SSRC · 2⁶⁴) XOR (index · 2¹⁶)
    const iv = this.iv;
    const s = this.salt;
    iv.set(s, 0);
    iv[14] = 0;
    iv[15] = 0;
    iv.writeUInt32BE((ssrc ^ s.readUInt32BE(4)) >>> 0, 4);
    iv.writeUInt32BE((roc ^ s.readUInt32BE(8)) >>> 0, 8);
    iv[12] = (seq >>> 8) ^ s[12]!;
    iv[13] = (seq & 0xff) ^ s[13]!;
    return createDecipheriv("aes-128-ctr", this.key, iv).update(p.subarray(h, end));
  }
}

/** Inbound SRTCP of one DTLS-SRTP session. */
export class SrtcpReceiver {
  readonly profile: SrtpProfile;
  readonly counters = counters();
  private readonly gcm: boolean;
  private readonly key: KeyObject;
  private readonly auth: KeyObject | null;
  private readonly salt: Buffer;
  private readonly iv: Buffer;
  private readonly windows = new Map<number, ReplayWindow>();

  constructor(profile: SrtpProfile, masterKey: Uint8Array, masterSalt: Uint8Array) {
    this.profile = profile;
    this.gcm = profile === SRTP_AEAD_AES_128_GCM;
    const k = deriveSessionKeys(profile, masterKey, masterSalt);
    this.key = createSecretKey(k.rtcpKey);
    this.auth = this.gcm ? null : createSecretKey(k.rtcpAuth);
    this.salt = k.rtcpSalt;
    this.iv = Buffer.alloc(this.gcm ? 12 : 16);
  }

  /**
   * Unprotects one SRTCP packet; returns the compound RTCP packet in the clear, or null when
   * it is malformed, a replay or fails authentication.
   */
  unprotect(packet: Buffer): Buffer | null {
    const tag = this.gcm ? GCM_TAG : CM_TAG;
    if (packet.length < 8 + SRTCP_INDEX + tag) {
      this.counters.malformed++;
      return null;
    }
    const ssrc = packet.readUInt32BE(4);
    // GCM: … ‖ tag ‖ E|index; AES-CM: … ‖ E|index ‖ tag
    const indexAt = this.gcm ? packet.length - SRTCP_INDEX : packet.length - tag - SRTCP_INDEX;
    const word = packet.readUInt32BE(indexAt);
    const encrypted = word >>> 31 === 1;
    const index = word & 0x7fffffff;
    let win = this.windows.get(ssrc);
    if (win === undefined) {
      if (this.windows.size >= MAX_SSRCS) {
        this.counters.foreignSsrc++;
        return null;
      }
      win = new ReplayWindow();
      this.windows.set(ssrc, win);
    }
    if (!win.check(index)) {
      this.counters.replays++;
      return null;
    }
    const out = this.gcm
      ? this.openGcm(packet, indexAt, ssrc, index, encrypted)
      : this.openCm(packet, indexAt, ssrc, index, encrypted);
    if (out === null) {
      this.counters.authFailures++;
      return null;
    }
    win.commit(index);
    return out;
  }

  private openGcm(p: Buffer, indexAt: number, ssrc: number, index: number, enc: boolean): Buffer | null {
    // RFC 7714 section 9.1: IV = (00 00 ‖ SSRC ‖ 00 00 ‖ 0 ‖ index) XOR salt; section 9.3 AAD
    const tagAt = indexAt - GCM_TAG;
    const iv = this.iv;
    const s = this.salt;
    iv[0] = s[0]!;
    iv[1] = s[1]!;
    iv.writeUInt32BE((ssrc ^ s.readUInt32BE(2)) >>> 0, 2);
    iv[6] = s[6]!;
    iv[7] = s[7]!;
    iv.writeUInt32BE((index ^ s.readUInt32BE(8)) >>> 0, 8);
    const d = createDecipheriv("aes-128-gcm", this.key, iv, GCM_OPTIONS);
    const idx = p.subarray(indexAt);
    d.setAAD(enc ? Buffer.concat([p.subarray(0, 8), idx]) : Buffer.concat([p.subarray(0, tagAt), idx]));
    d.setAuthTag(p.subarray(tagAt, indexAt));
    const body = enc ? d.update(p.subarray(8, tagAt)) : null;
    try {
      d.final();
    } catch {
      return null;
    }
    const out = Buffer.allocUnsafe(tagAt);
    p.copy(out, 0, 0, 8);
    if (body !== null) body.copy(out, 8);
    else p.copy(out, 8, 8, tagAt);
    return out;
  }

  private openCm(p: Buffer, indexAt: number, ssrc: number, index: number, enc: boolean): Buffer | null {
    const tagAt = indexAt + SRTCP_INDEX;
    const mac = createHmac("sha1", this.auth!).update(p.subarray(0, tagAt)).digest();
    if (!tagEqual(p, tagAt, mac, CM_TAG)) return null;
    const out = Buffer.allocUnsafe(indexAt);
    p.copy(out, 0, 0, 8);
    if (!enc) {
      p.copy(out, 8, 8, indexAt);
      return out;
    }
    const iv = this.iv;
    const s = this.salt;
    iv.set(s, 0);
    iv[14] = 0;
    iv[15] = 0;
    iv.writeUInt32BE((ssrc ^ s.readUInt32BE(4)) >>> 0, 4);
    // index · 2¹⁶: the 31-bit SRTCP index in bytes 10..13
    iv[8] = s[8]!;
    iv[9] = s[9]!;
    iv.writeUInt32BE((index ^ s.readUInt32BE(10)) >>> 0, 10);
    createDecipheriv("aes-128-ctr", this.key, iv).update(p.subarray(8, indexAt)).copy(out, 8);
    return out;
  }
}
