// SRTCP protect with the OpenSSL inside the node binary (./openssl.ts), for the RTCP a lean viewer
// sends (docs/definitions.md#receive-paths): on contexts keyed once, where werift's protect makes a
// node:crypto cipher and several buffers per message. Both DTLS-SRTP profiles, always encrypted
// (E = 1), laid out as werift lays them out so the bytes are its own for the same index:
// AEAD_AES_128_GCM (RFC 7714 section 9: header ‖ ciphertext ‖ tag ‖ E|index, AAD = the first 8
// octets ‖ E|index, IV from the SSRC and the index) and AES_CM_128_HMAC_SHA1_80 (RFC 3711 section
// 3.4: header ‖ ciphertext ‖ E|index ‖ first 80 bits of HMAC-SHA1 over everything before the tag).
// The SRTCP index is the caller's (werift keeps it per SSRC; a lean viewer shares werift's).
import { SRTP_AEAD_AES_128_GCM, type SrtpProfile } from "../../core/srtp/kdf.ts";
import {
  CM_TAG_BYTES,
  cmRtcpIv,
  GCM_TAG_BYTES,
  gcmRtcpIv,
  SRTCP_INDEX_BYTES,
} from "../../core/srtp/unprotect.ts";
import { NativeProtect } from "./protect.ts";

/** The RTCP header's octets left in clear (RFC 3711 section 3.4): V/P/RC, PT, length, SSRC. */
const CLEAR_BYTES = 8;

/** Outbound SRTCP of one DTLS-SRTP session (the local side's master key and salt). */
export class OpensslSrtcpSender extends NativeProtect {
  /** bytes a protected message adds to the clear one: the tag and the E|index word */
  readonly overhead: number;

  /** Throws where OpenSSL is unavailable in this thread (openssl.ts says why). */
  constructor(profile: SrtpProfile, masterKey: Uint8Array, masterSalt: Uint8Array) {
    super(profile, masterKey, masterSalt, true);
    this.overhead = (profile === SRTP_AEAD_AES_128_GCM ? GCM_TAG_BYTES : CM_TAG_BYTES) + SRTCP_INDEX_BYTES;
  }

  /**
   * The compound RTCP packet `rtcp` (clear, at least its 8-octet header) protected with SRTCP
   * index `index` (31 bits), in a new buffer; `rtcp` is not changed.
   */
  protect(rtcp: Uint8Array, index: number): Buffer {
    const len = rtcp.length;
    // internal: invariant, the viewer's RTCP always has its header and the index is werift's 31-bit one
    if (len < CLEAR_BYTES || index < 0 || index > 0x7fffffff)
      throw new RangeError("SRTCP protect: bad input");
    const out = Buffer.allocUnsafe(len + this.overhead);
    out.set(rtcp, 0);
    const ssrc = ((rtcp[4]! << 24) | (rtcp[5]! << 16) | (rtcp[6]! << 8) | rtcp[7]!) >>> 0;
    const body = len - CLEAR_BYTES;
    const g = this.gcm;
    if (g !== null) {
      const indexAt = len + GCM_TAG_BYTES;
      out.writeUInt32BE((index | 0x80000000) >>> 0, indexAt);
      gcmRtcpIv(this.iv, this.salt, ssrc, index);
      g.begin(this.iv);
      g.aad(out, 0, CLEAR_BYTES);
      g.aad(out, indexAt, SRTCP_INDEX_BYTES);
      g.encrypt(out, CLEAR_BYTES, body);
      g.tag(out, len);
      return out;
    }
    cmRtcpIv(this.iv, this.salt, ssrc, index);
    this.ctr!.decrypt(this.iv, out, CLEAR_BYTES, body);
    out.writeUInt32BE((index | 0x80000000) >>> 0, len);
    const m = this.hmac!;
    const tagAt = len + SRTCP_INDEX_BYTES;
    m.begin();
    m.update(out, 0, tagAt);
    m.finish(this.mac);
    this.mac.copy(out, tagAt, 0, CM_TAG_BYTES);
    return out;
  }
}
