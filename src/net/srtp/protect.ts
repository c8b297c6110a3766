// SRTP protect in place with the OpenSSL inside the node binary (./openssl.ts), for the relay's
// native send path (docs/definitions.md#built-in-relay): a clear RTP packet already lies in a
// buffer with room after it; its payload is encrypted where it lies and the tag is written after
// it, so nothing is allocated per packet. Both DTLS-SRTP profiles a relay leg negotiates:
// AEAD_AES_128_GCM (RFC 7714: AAD = the clear header) and AES_CM_128_HMAC_SHA1_80 (RFC 3711: tag =
// first 80 bits of HMAC-SHA1(header ‖ encrypted payload ‖ ROC)). The ROC is kept per SSRC as werift
// keeps it (core/srtp/send-roc.ts), so the bytes are werift's own protect's.
import { deriveSessionKeys, SRTP_AEAD_AES_128_GCM, type SrtpProfile } from "../../core/srtp/kdf.ts";
import { SendRoc } from "../../core/srtp/send-roc.ts";
import { CM_TAG_BYTES, cmRtpIv, GCM_TAG_BYTES, gcmRtpIv } from "../../core/srtp/unprotect.ts";
import { AesCtrDecrypt, AesGcmEncrypt, HmacSha1 } from "./openssl.ts";

/** SSRCs one sender keeps a ROC for (a relay leg sends one). */
const MAX_SSRCS = 8;

/**
 * The OpenSSL contexts one direction protects with, keyed once from the session keys (RFC 3711
 * section 4.3) of RTP or of RTCP (`rtcp`), and the scratch a message reuses.
 */
export abstract class NativeProtect {
  readonly profile: SrtpProfile;
  protected readonly gcm: AesGcmEncrypt | null;
  protected readonly ctr: AesCtrDecrypt | null;
  protected readonly hmac: HmacSha1 | null;
  protected readonly salt: Buffer;
  protected readonly iv: Buffer;
  protected readonly mac = Buffer.alloc(20);

  /** Throws where OpenSSL is unavailable in this thread (openssl.ts says why). */
  constructor(profile: SrtpProfile, masterKey: Uint8Array, masterSalt: Uint8Array, rtcp: boolean) {
    this.profile = profile;
    const k = deriveSessionKeys(profile, masterKey, masterSalt);
    const gcm = profile === SRTP_AEAD_AES_128_GCM;
    const key = rtcp ? k.rtcpKey : k.rtpKey;
    this.gcm = gcm ? new AesGcmEncrypt(key) : null;
    this.ctr = gcm ? null : new AesCtrDecrypt(key);
    this.hmac = gcm ? null : new HmacSha1(rtcp ? k.rtcpAuth : k.rtpAuth);
    this.salt = rtcp ? k.rtcpSalt : k.rtpSalt;
    this.iv = Buffer.alloc(gcm ? 12 : 16);
  }
}

/** Outbound SRTP of one DTLS-SRTP session (the local side's master key and salt), in place. */
export class OpensslSrtpSender extends NativeProtect {
  /** bytes of tag written after every payload */
  readonly tagLength: number;
  private readonly roc4 = Buffer.alloc(4);
  private readonly rocs = new Map<number, SendRoc>();
  private lastSsrc = -1;
  private last: SendRoc | null = null;

  /** Throws where OpenSSL is unavailable in this thread (openssl.ts says why). */
  constructor(profile: SrtpProfile, masterKey: Uint8Array, masterSalt: Uint8Array) {
    super(profile, masterKey, masterSalt, false);
    this.tagLength = profile === SRTP_AEAD_AES_128_GCM ? GCM_TAG_BYTES : CM_TAG_BYTES;
  }

  private rocState(ssrc: number): SendRoc {
    if (ssrc === this.lastSsrc && this.last !== null) return this.last;
    let s = this.rocs.get(ssrc);
    if (s === undefined) {
      if (this.rocs.size >= MAX_SSRCS) this.rocs.clear();
      s = new SendRoc();
      this.rocs.set(ssrc, s);
    }
    this.lastSsrc = ssrc;
    this.last = s;
    return s;
  }

  /**
   * Protects the clear RTP packet at `buf[at..at+headerLen+payloadLen)` (its header `headerLen`
   * bytes) in place and writes the tag after it; `buf` must hold `tagLength` more bytes. Returns
   * the protected packet's length.
   */
  protect(buf: Uint8Array, at: number, headerLen: number, payloadLen: number): number {
    const end = at + headerLen + payloadLen;
    // internal: invariant, the relay protects packets it laid out with room for the tag
    if (headerLen < 12 || payloadLen < 0 || at < 0 || end + this.tagLength > buf.length)
      throw new RangeError("SRTP protect: packet or tag outside the buffer");
    const seq = (buf[at + 2]! << 8) | buf[at + 3]!;
    const ssrc = ((buf[at + 8]! << 24) | (buf[at + 9]! << 16) | (buf[at + 10]! << 8) | buf[at + 11]!) >>> 0;
    const roc = this.rocState(ssrc).next(seq);
    const g = this.gcm;
    if (g !== null) {
      gcmRtpIv(this.iv, this.salt, ssrc, roc, seq);
      g.begin(this.iv);
      g.aad(buf, at, headerLen);
      g.encrypt(buf, at + headerLen, payloadLen);
      g.tag(buf, end);
      return end - at + GCM_TAG_BYTES;
    }
    cmRtpIv(this.iv, this.salt, ssrc, roc, seq);
    this.ctr!.decrypt(this.iv, buf, at + headerLen, payloadLen);
    const m = this.hmac!;
    this.roc4.writeUInt32BE(roc, 0);
    m.begin();
    m.update(buf, at, end - at);
    m.update(this.roc4, 0, 4);
    m.finish(this.mac);
    for (let i = 0; i < CM_TAG_BYTES; i++) buf[end + i] = this.mac[i]!;
    return end - at + CM_TAG_BYTES;
  }
}
