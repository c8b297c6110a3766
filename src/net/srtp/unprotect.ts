// SRTP and SRTCP unprotect in place with the OpenSSL inside the node binary (./openssl.ts): the
// same index, replay and commit rules as the node:crypto receivers (core/srtp/unprotect.ts), but
// the payload is decrypted where it lies and the result is a view of the packet's own bytes. A
// packet that fails authentication is left as it arrived (GCM decrypts before its tag is known,
// so a failed packet is encrypted back with the same keystream). `srtpReceivers` picks these where
// OpenSSL loaded in this thread and node:crypto's elsewhere, and says which.

import { errorMessage } from "../../core/errors.ts";
import type { SrtpProfile } from "../../core/srtp/kdf.ts";
import { SrtcpReceiver, SrtpReceiver } from "../../core/srtp/srtp.ts";
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
} from "../../core/srtp/unprotect.ts";
import { AesCtrDecrypt, AesGcmDecrypt, HmacSha1, type OpensslAvailability, openssl } from "./openssl.ts";

/** The two ciphers of one direction: GCM alone, or AES-CM with its HMAC-SHA1. */
class Ciphers {
  readonly gcm: AesGcmDecrypt | null;
  readonly ctr: AesCtrDecrypt | null;
  readonly hmac: HmacSha1 | null;
  readonly mac = Buffer.alloc(20);

  constructor(gcm: boolean, key: Buffer, auth: Buffer) {
    this.gcm = gcm ? new AesGcmDecrypt(key) : null;
    this.ctr = gcm ? null : new AesCtrDecrypt(key);
    this.hmac = gcm ? null : new HmacSha1(auth);
  }
}

/** Inbound SRTP of one DTLS-SRTP session, decrypted in place with OpenSSL. */
export class OpensslSrtpReceiver extends SrtpUnprotect {
  private readonly c: Ciphers;
  private readonly salt: Buffer;
  private readonly roc4 = Buffer.alloc(4);

  constructor(profile: SrtpProfile, masterKey: Uint8Array, masterSalt: Uint8Array) {
    super(profile, masterKey, masterSalt);
    this.c = new Ciphers(this.gcm, this.keys.rtpKey, this.keys.rtpAuth);
    this.salt = this.keys.rtpSalt;
  }

  protected open(p: Buffer, h: number, end: number, ssrc: number, roc: number, seq: number): Buffer | null {
    // the payload's view is the result and also what native code is given (no address lookup)
    const len = end - h;
    const g = this.c.gcm;
    if (g !== null) {
      const out = p.subarray(h, end);
      gcmRtpIv(this.iv, this.salt, ssrc, roc, seq);
      g.begin(this.iv);
      g.aad(p, 0, h);
      g.decrypt(out, 0, len);
      if (g.verify(p, end)) return out;
      g.begin(this.iv);
      g.decrypt(out, 0, len);
      return null;
    }
    // RFC 3711 section 4.2: tag = HMAC-SHA1(header ‖ encrypted payload ‖ ROC), first 80 bits
    const m = this.c.hmac!;
    this.roc4.writeUInt32BE(roc, 0);
    m.begin();
    m.update(p, 0, end);
    m.update(this.roc4, 0, 4);
    m.finish(this.c.mac);
    if (!tagEqual(p, end, this.c.mac, CM_TAG_BYTES)) return null;
    cmRtpIv(this.iv, this.salt, ssrc, roc, seq);
    const out = p.subarray(h, end);
    this.c.ctr!.decrypt(this.iv, out, 0, len);
    return out;
  }
}

/** Inbound SRTCP of one DTLS-SRTP session, decrypted in place with OpenSSL. */
export class OpensslSrtcpReceiver extends SrtcpUnprotect {
  private readonly c: Ciphers;
  private readonly salt: Buffer;

  constructor(profile: SrtpProfile, masterKey: Uint8Array, masterSalt: Uint8Array) {
    super(profile, masterKey, masterSalt);
    this.c = new Ciphers(this.gcm, this.keys.rtcpKey, this.keys.rtcpAuth);
    this.salt = this.keys.rtcpSalt;
  }

  protected open(p: Buffer, indexAt: number, ssrc: number, index: number, enc: boolean): Buffer | null {
    const g = this.c.gcm;
    if (g !== null) {
      // RFC 7714 section 9.3: AAD = header ‖ E|index when encrypted, all but the tag otherwise
      const tagAt = indexAt - GCM_TAG_BYTES;
      gcmRtcpIv(this.iv, this.salt, ssrc, index);
      g.begin(this.iv);
      g.aad(p, 0, enc ? 8 : tagAt);
      g.aad(p, indexAt, SRTCP_INDEX_BYTES);
      if (enc) g.decrypt(p, 8, tagAt - 8);
      if (g.verify(p, tagAt)) return p.subarray(0, tagAt);
      if (enc) {
        g.begin(this.iv);
        g.decrypt(p, 8, tagAt - 8);
      }
      return null;
    }
    const tagAt = indexAt + SRTCP_INDEX_BYTES;
    const m = this.c.hmac!;
    m.begin();
    m.update(p, 0, tagAt);
    m.finish(this.c.mac);
    if (!tagEqual(p, tagAt, this.c.mac, CM_TAG_BYTES)) return null;
    if (enc) {
      cmRtcpIv(this.iv, this.salt, ssrc, index);
      this.c.ctr!.decrypt(this.iv, p, 8, indexAt - 8);
    }
    return p.subarray(0, indexAt);
  }
}

/** Which implementation unprotects a thread's SRTP (the per-thread receive-path field). */
export type SrtpBackend = "openssl" | "node:crypto";

/** One session's receivers, which backend they use, and why not OpenSSL when they do not. */
export interface SrtpReceivers {
  rtp: SrtpUnprotect;
  rtcp: SrtcpUnprotect;
  backend: SrtpBackend;
  /** why node:crypto was taken; null with OpenSSL */
  fallbackReason: string | null;
}

/**
 * The in-place OpenSSL receivers where `native` (this thread's OpenSSL, by default) is available,
 * node:crypto's otherwise.
 */
export function srtpReceivers(
  profile: SrtpProfile,
  masterKey: Uint8Array,
  masterSalt: Uint8Array,
  native: OpensslAvailability = openssl(),
): SrtpReceivers {
  let reason = native.ok ? null : native.reason;
  if (native.ok) {
    try {
      return {
        rtp: new OpensslSrtpReceiver(profile, masterKey, masterSalt),
        rtcp: new OpensslSrtcpReceiver(profile, masterKey, masterSalt),
        backend: "openssl",
        fallbackReason: null,
      };
    } catch (err) {
      reason = `OpenSSL receivers could not be made (${errorMessage(err)})`;
    }
  }
  return {
    rtp: new SrtpReceiver(profile, masterKey, masterSalt),
    rtcp: new SrtcpReceiver(profile, masterKey, masterSalt),
    backend: "node:crypto",
    fallbackReason: reason,
  };
}
