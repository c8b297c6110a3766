// SRTP key derivation (RFC 3711 section 4.3, key derivation rate 0) for the two DTLS-SRTP profiles a
// viewer negotiates: AES_CM_128_HMAC_SHA1_80 (RFC 5764) and AEAD_AES_128_GCM (RFC 7714 section 11).
// The PRF is AES-128 in counter mode keyed by the master key, with IV = (label ‖ 0⁴⁸ XOR
// master salt) · 2¹⁶. A 12-byte GCM master salt is right-padded with zero bytes to the
// 112 bits the PRF takes, as libsrtp and werift do.
import { createCipheriv } from "node:crypto";

/** DTLS-SRTP protection profile ids (RFC 5764 section 4.1.2, RFC 7714 section 14.2). */
export const SRTP_AES128_CM_HMAC_SHA1_80 = 1;
export const SRTP_AEAD_AES_128_GCM = 7;
export type SrtpProfile = typeof SRTP_AES128_CM_HMAC_SHA1_80 | typeof SRTP_AEAD_AES_128_GCM;

export function isSrtpProfile(p: number): p is SrtpProfile {
  return p === SRTP_AES128_CM_HMAC_SHA1_80 || p === SRTP_AEAD_AES_128_GCM;
}

/** Master key and salt lengths of a profile, in bytes. */
export function masterLengths(profile: SrtpProfile): { key: number; salt: number } {
  return profile === SRTP_AEAD_AES_128_GCM ? { key: 16, salt: 12 } : { key: 16, salt: 14 };
}

/** The session keys of one direction (SRTP and SRTCP). Auth keys are empty for GCM. */
export interface SessionKeys {
  rtpKey: Buffer;
  rtpSalt: Buffer;
  rtpAuth: Buffer;
  rtcpKey: Buffer;
  rtcpSalt: Buffer;
  rtcpAuth: Buffer;
}

const LABEL_RTP_KEY = 0;
const LABEL_RTP_AUTH = 1;
const LABEL_RTP_SALT = 2;
const LABEL_RTCP_KEY = 3;
const LABEL_RTCP_AUTH = 4;
const LABEL_RTCP_SALT = 5;

/** PRF output of `length` bytes for one label (RFC 3711 section 4.3.1 and section 4.3.3). */
export function prf(masterKey: Uint8Array, masterSalt: Uint8Array, label: number, length: number): Buffer {
  // internal: invariant, the DTLS exporter gives the profile's key length
  if (masterKey.length !== 16) throw new RangeError("SRTP master key must be 16 bytes");
  if (masterSalt.length !== 14 && masterSalt.length !== 12) {
    // internal: invariant, the DTLS exporter gives the profile's salt length
    throw new RangeError("SRTP master salt must be 14 or 12 bytes");
  }
  const iv = Buffer.alloc(16);
  iv.set(masterSalt, 0); // salt in bytes 0..13 (a 12-byte salt is padded with zeros)
  iv[7]! ^= label; // key_id = label ‖ index/kdr (0), aligned to the right of the 112-bit salt
  const c = createCipheriv("aes-128-ctr", masterKey, iv);
  return c.update(Buffer.alloc(length));
}

/** Derives the session keys of one direction from its master key and salt. */
export function deriveSessionKeys(
  profile: SrtpProfile,
  masterKey: Uint8Array,
  masterSalt: Uint8Array,
): SessionKeys {
  const lens = masterLengths(profile);
  // internal: invariant, the DTLS exporter gives the profile's salt length
  if (masterSalt.length !== lens.salt)
    throw new RangeError(`profile ${profile} wants a ${lens.salt}-byte salt`);
  const gcm = profile === SRTP_AEAD_AES_128_GCM;
  const saltLen = gcm ? 12 : 14;
  const authLen = gcm ? 0 : 20;
  return {
    rtpKey: prf(masterKey, masterSalt, LABEL_RTP_KEY, 16),
    rtpSalt: prf(masterKey, masterSalt, LABEL_RTP_SALT, saltLen),
    rtpAuth: authLen ? prf(masterKey, masterSalt, LABEL_RTP_AUTH, authLen) : Buffer.alloc(0),
    rtcpKey: prf(masterKey, masterSalt, LABEL_RTCP_KEY, 16),
    rtcpSalt: prf(masterKey, masterSalt, LABEL_RTCP_SALT, saltLen),
    rtcpAuth: authLen ? prf(masterKey, masterSalt, LABEL_RTCP_AUTH, authLen) : Buffer.alloc(0),
  };
}
