// The receive-side rules of SRTP and SRTCP that do not depend on how the bytes are decrypted:
// read SSRC/SEQ (or the SRTCP index) from the clear header, estimate the index (ROC), reject a
// replay before any crypto, try the neighbouring ROC once when the estimate fails, and commit ROC
// and replay state only after authentication; plus the IVs of both profiles (RFC 7714, RFC 3711).
// A subclass supplies `open`, the authenticate-and-decrypt step (node:crypto in ./srtp.ts).
import { deriveSessionKeys, type SessionKeys, SRTP_AEAD_AES_128_GCM, type SrtpProfile } from "./kdf.ts";
import { ReplayWindow, RtpIndexState } from "./replay.ts";

/** SSRCs one receiver keeps contexts for; packets of further SSRCs are rejected. */
export const MAX_SSRCS = 8;
export const GCM_TAG_BYTES = 16;
export const CM_TAG_BYTES = 10;
export const SRTCP_INDEX_BYTES = 4;

/** Why the last packet was rejected (counters for a viewer's diagnostics). */
export interface UnprotectCounters {
  authFailures: number;
  /** rejected by the replay rules: already seen, or older than the window */
  replays: number;
  /**
   * of the replays, those already seen inside the window: the same packet again (SRTP only; counted
   * before authentication)
   */
  repeats: number;
  malformed: number;
  foreignSsrc: number;
}

function counters(): UnprotectCounters {
  return { authFailures: 0, replays: 0, repeats: 0, malformed: 0, foreignSsrc: 0 };
}

/** Constant-time compare of a[ao..ao+n) with b[0..n). */
export function tagEqual(a: Uint8Array, ao: number, b: Uint8Array, n: number): boolean {
  let acc = 0;
  for (let i = 0; i < n; i++) acc |= a[ao + i]! ^ b[i]!;
  return acc === 0;
}

/** iv[at..at+4) = s[at..at+4) XOR the 32-bit big-endian `v`, byte by byte (no number is boxed). */
function xor32(iv: Buffer, s: Buffer, at: number, v: number): void {
  iv[at] = s[at]! ^ (v >>> 24);
  iv[at + 1] = s[at + 1]! ^ ((v >>> 16) & 0xff);
  iv[at + 2] = s[at + 2]! ^ ((v >>> 8) & 0xff);
  iv[at + 3] = s[at + 3]! ^ (v & 0xff);
}

/** RFC 7714 section 8.1: IV = (00 00 ‖ SSRC ‖ ROC ‖ SEQ) XOR salt, into the 12-byte `iv`. */
export function gcmRtpIv(iv: Buffer, s: Buffer, ssrc: number, roc: number, seq: number): void {
  iv[0] = s[0]!;
  iv[1] = s[1]!;
  xor32(iv, s, 2, ssrc);
  xor32(iv, s, 6, roc);
  iv[10] = (seq >>> 8) ^ s[10]!;
  iv[11] = (seq & 0xff) ^ s[11]!;
}

/** RFC 3711 section 4.1.1: IV = (salt · 2¹⁶) XOR (SSRC · 2⁶⁴) XOR (index · 2¹⁶), into the 16-byte `iv`. */
export function cmRtpIv(iv: Buffer, s: Buffer, ssrc: number, roc: number, seq: number): void {
  iv.set(s, 0);
  iv[14] = 0;
  iv[15] = 0;
  xor32(iv, s, 4, ssrc);
  xor32(iv, s, 8, roc);
  iv[12] = (seq >>> 8) ^ s[12]!;
  iv[13] = (seq & 0xff) ^ s[13]!;
}

/** RFC 7714 section 9.1: IV = (00 00 ‖ SSRC ‖ 00 00 ‖ 0 ‖ index) XOR salt. */
export function gcmRtcpIv(iv: Buffer, s: Buffer, ssrc: number, index: number): void {
  iv[0] = s[0]!;
  iv[1] = s[1]!;
  xor32(iv, s, 2, ssrc);
  iv[6] = s[6]!;
  iv[7] = s[7]!;
  xor32(iv, s, 8, index);
}

/** The AES-CM SRTCP IV: as for RTP, with the 31-bit SRTCP index in bytes 10..13. */
export function cmRtcpIv(iv: Buffer, s: Buffer, ssrc: number, index: number): void {
  iv.set(s, 0);
  iv[14] = 0;
  iv[15] = 0;
  xor32(iv, s, 4, ssrc);
  iv[8] = s[8]!;
  iv[9] = s[9]!;
  xor32(iv, s, 10, index);
}

/** What both directions keep: the profile, the counters, the session keys and an IV to reuse. */
export abstract class SessionUnprotect {
  readonly profile: SrtpProfile;
  readonly counters = counters();
  protected readonly gcm: boolean;
  /** the session keys of this direction (SRTP's or SRTCP's are used) */
  protected readonly keys: SessionKeys;
  /** the IV, rewritten for every packet */
  protected readonly iv: Buffer;

  constructor(profile: SrtpProfile, masterKey: Uint8Array, masterSalt: Uint8Array) {
    this.profile = profile;
    this.gcm = profile === SRTP_AEAD_AES_128_GCM;
    this.keys = deriveSessionKeys(profile, masterKey, masterSalt);
    this.iv = Buffer.alloc(this.gcm ? 12 : 16);
  }
}

/**
 * Inbound SRTP of one DTLS-SRTP session (the remote side's master key and salt): the index, replay
 * and commit rules.
 */
export abstract class SrtpUnprotect extends SessionUnprotect {
  private readonly states = new Map<number, RtpIndexState>();
  private lastSsrc = -1;
  private last: RtpIndexState | null = null;

  /** Bytes of authentication tag at the end of every packet. */
  get tagLength(): number {
    return this.gcm ? GCM_TAG_BYTES : CM_TAG_BYTES;
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
   * Authenticates and decrypts `p` (clear header `h` bytes, tag from `end`) with this ROC;
   * returns the payload, or null when the tag does not hold (and then leaves `p` as it was).
   */
  protected abstract open(
    p: Buffer,
    h: number,
    end: number,
    ssrc: number,
    roc: number,
    seq: number,
  ): Buffer | null;

  /**
   * Unprotects one SRTP packet whose clear RTP header (fixed part, CSRCs and extension) is
   * `headerLen` bytes and which fills the first `length` bytes of `packet` (a reused buffer may
   * be longer). Returns the decrypted payload (RTP padding still included), or null when the
   * packet is malformed, a replay, too old, or fails authentication.
   */
  unprotect(packet: Buffer, headerLen: number, length = packet.length): Buffer | null {
    const end = length - this.tagLength;
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
      if (index >= 0 && st.replay.seen(index)) this.counters.repeats++;
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
}

/** Inbound SRTCP of one DTLS-SRTP session: the index, replay and commit rules. */
export abstract class SrtcpUnprotect extends SessionUnprotect {
  private readonly windows = new Map<number, ReplayWindow>();

  /**
   * Authenticates and, when `enc`, decrypts `p` whose E|index word is at `indexAt`; returns
   * the compound RTCP packet in the clear, or null when the tag does not hold.
   */
  protected abstract open(
    p: Buffer,
    indexAt: number,
    ssrc: number,
    index: number,
    enc: boolean,
  ): Buffer | null;

  /**
   * Unprotects one SRTCP packet; returns the compound RTCP packet in the clear, or null when
   * it is malformed, a replay or fails authentication.
   */
  unprotect(packet: Buffer): Buffer | null {
    const tag = this.gcm ? GCM_TAG_BYTES : CM_TAG_BYTES;
    if (packet.length < 8 + SRTCP_INDEX_BYTES + tag) {
      this.counters.malformed++;
      return null;
    }
    const ssrc = packet.readUInt32BE(4);
    // GCM: … ‖ tag ‖ E|index; AES-CM: … ‖ E|index ‖ tag
    const indexAt = this.gcm ? packet.length - SRTCP_INDEX_BYTES : packet.length - tag - SRTCP_INDEX_BYTES;
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
    const out = this.open(packet, indexAt, ssrc, index, encrypted);
    if (out === null) {
      this.counters.authFailures++;
      return null;
    }
    win.commit(index);
    return out;
  }
}
