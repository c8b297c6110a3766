// SRTP and SRTCP unprotect (receive side) with node:crypto, for AEAD_AES_128_GCM (RFC 7714)
// and AES_CM_128_HMAC_SHA1_80 (RFC 3711); the index, replay and commit rules are ./unprotect.ts's.
// The only objects made per packet are node:crypto's own (one decipher, plus one HMAC for
// AES-CM; node:crypto cannot re-key a context with a new IV) and the views it needs; the IV
// buffers are reused.
import { createDecipheriv, createHmac, createSecretKey, type KeyObject } from "node:crypto";
import type { SrtpProfile } from "./kdf.ts";
import {
  CM_TAG_BYTES,
  cmRtcpIv,
  cmRtpIv,
  GCM_TAG_BYTES,
  gcmRtcpIv,
  gcmRtpIv,
  SRTCP_INDEX_BYTES,
  SrtcpUnprotect,
  SrtpUnprotect,
  tagEqual,
} from "./unprotect.ts";

export { MAX_SSRCS, SrtcpUnprotect, SrtpUnprotect, type UnprotectCounters } from "./unprotect.ts";

const GCM_OPTIONS = { authTagLength: GCM_TAG_BYTES } as const;

/** Inbound SRTP of one DTLS-SRTP session (the remote side's master key and salt), node:crypto. */
export class SrtpReceiver extends SrtpUnprotect {
  private readonly key: KeyObject;
  private readonly auth: KeyObject | null;
  private readonly salt: Buffer;
  private readonly roc4 = Buffer.alloc(4);

  constructor(profile: SrtpProfile, masterKey: Uint8Array, masterSalt: Uint8Array) {
    super(profile, masterKey, masterSalt);
    this.key = createSecretKey(this.keys.rtpKey);
    this.auth = this.gcm ? null : createSecretKey(this.keys.rtpAuth);
    this.salt = this.keys.rtpSalt;
  }

  protected open(p: Buffer, h: number, end: number, ssrc: number, roc: number, seq: number): Buffer | null {
    return this.gcm ? this.openGcm(p, h, end, ssrc, roc, seq) : this.openCm(p, h, end, ssrc, roc, seq);
  }

  private openGcm(p: Buffer, h: number, end: number, ssrc: number, roc: number, seq: number): Buffer | null {
    gcmRtpIv(this.iv, this.salt, ssrc, roc, seq);
    const d = createDecipheriv("aes-128-gcm", this.key, this.iv, GCM_OPTIONS);
    d.setAAD(p.subarray(0, h));
    d.setAuthTag(p.subarray(end, end + GCM_TAG_BYTES));
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
    if (!tagEqual(p, end, mac, CM_TAG_BYTES)) return null;
    cmRtpIv(this.iv, this.salt, ssrc, roc, seq);
    return createDecipheriv("aes-128-ctr", this.key, this.iv).update(p.subarray(h, end));
  }
}

/** Inbound SRTCP of one DTLS-SRTP session, node:crypto. */
export class SrtcpReceiver extends SrtcpUnprotect {
  private readonly key: KeyObject;
  private readonly auth: KeyObject | null;
  private readonly salt: Buffer;

  constructor(profile: SrtpProfile, masterKey: Uint8Array, masterSalt: Uint8Array) {
    super(profile, masterKey, masterSalt);
    this.key = createSecretKey(this.keys.rtcpKey);
    this.auth = this.gcm ? null : createSecretKey(this.keys.rtcpAuth);
    this.salt = this.keys.rtcpSalt;
  }

  protected open(p: Buffer, indexAt: number, ssrc: number, index: number, enc: boolean): Buffer | null {
    return this.gcm ? this.openGcm(p, indexAt, ssrc, index, enc) : this.openCm(p, indexAt, ssrc, index, enc);
  }

  private openGcm(p: Buffer, indexAt: number, ssrc: number, index: number, enc: boolean): Buffer | null {
    // RFC 7714 section 9.3: AAD = header ‖ E|index when encrypted, all but the tag otherwise
    const tagAt = indexAt - GCM_TAG_BYTES;
    gcmRtcpIv(this.iv, this.salt, ssrc, index);
    const d = createDecipheriv("aes-128-gcm", this.key, this.iv, GCM_OPTIONS);
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
    const tagAt = indexAt + SRTCP_INDEX_BYTES;
    const mac = createHmac("sha1", this.auth!).update(p.subarray(0, tagAt)).digest();
    if (!tagEqual(p, tagAt, mac, CM_TAG_BYTES)) return null;
    const out = Buffer.allocUnsafe(indexAt);
    p.copy(out, 0, 0, 8);
    if (!enc) {
      p.copy(out, 8, 8, indexAt);
      return out;
    }
    cmRtcpIv(this.iv, this.salt, ssrc, index);
    createDecipheriv("aes-128-ctr", this.key, this.iv).update(p.subarray(8, indexAt)).copy(out, 8);
    return out;
  }
}
