// H.264 RTP payload format (RFC 6184, non-interleaved mode): payloader, depacketiser and
// keyframe-start test.
import { splitAnnexB } from "../clip/annexb.ts";
import { copyRange, FramePieces } from "./pieces.ts";

const NAL_TYPE_MASK = 0x1f;
const NAL_NRI_MASK = 0x60;
const TYPE_IDR = 5;
const TYPE_SPS = 7;
const TYPE_PPS = 8;
const TYPE_AUD = 9;
const TYPE_FILLER = 12;
const TYPE_STAP_A = 24;
const TYPE_FU_A = 28;
/** STAP-A NAL header as pion writes it: F = 0, NRI = 3, type 24. */
const STAP_A_HEADER = 0x78;
const FU_START = 0x80;
const FU_END = 0x40;

function singleOrFuA(nal: Uint8Array, mtu: number, out: Uint8Array[]): void {
  if (nal.length <= mtu) {
    out.push(nal); // a view into the access unit: sent as it is
    return;
  }
  const maxFragment = mtu - 2;
  if (maxFragment <= 0) return;
  const indicator = (nal[0]! & NAL_NRI_MASK) | TYPE_FU_A;
  const type = nal[0]! & NAL_TYPE_MASK;
  const end = nal.length;
  for (let src = 1; src < end; ) {
    const size = Math.min(maxFragment, end - src);
    const pkt = new Uint8Array(2 + size);
    pkt[0] = indicator;
    pkt[1] = type | (src === 1 ? FU_START : 0) | (src + size === end ? FU_END : 0);
    pkt.set(nal.subarray(src, src + size), 2);
    out.push(pkt);
    src += size;
  }
}

function stapA(a: Uint8Array, b: Uint8Array): Uint8Array {
  const pkt = new Uint8Array(1 + 2 + a.length + 2 + b.length);
  pkt[0] = STAP_A_HEADER;
  pkt[1] = a.length >>> 8;
  pkt[2] = a.length & 0xff;
  pkt.set(a, 3);
  const off = 3 + a.length;
  pkt[off] = b.length >>> 8;
  pkt[off + 1] = b.length & 0xff;
  pkt.set(b, off + 2);
  return pkt;
}

/**
 * Splits one Annex-B access unit into RTP payloads of at most `mtu` bytes, the way pion's
 * H264Payloader does: AUD (9) and filler (12) are dropped; SPS and PPS are held and go out together
 * as one STAP-A just before the next NAL unit; a unit that fits is sent as a single NAL unit packet
 * (a view into `accessUnit`: do not modify either); a larger one as FU-A fragments. A buffer with
 * no start code is one NAL unit. Differences from pion, which keeps SPS/PPS across calls: the state
 * lives for one access unit, so SPS/PPS still held at its end are sent (STAP-A if both, else
 * single), and an SPS+PPS pair too big for one STAP-A is sent unit by unit instead of being
 * dropped.
 */
export function packetizeH264(accessUnit: Uint8Array, mtu: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  mtu = Math.floor(mtu);
  if (accessUnit.length === 0 || !(mtu > 0)) return out;
  let nals = splitAnnexB(accessUnit);
  if (nals.length === 0) nals = [accessUnit];
  let sps: Uint8Array | null = null;
  let pps: Uint8Array | null = null;
  const flushParameterSets = (): void => {
    if (sps !== null && pps !== null && 5 + sps.length + pps.length <= mtu) {
      out.push(stapA(sps, pps));
    } else {
      if (sps !== null) singleOrFuA(sps, mtu, out);
      if (pps !== null) singleOrFuA(pps, mtu, out);
    }
    sps = null;
    pps = null;
  };
  for (const nal of nals) {
    if (nal.length === 0) continue;
    const type = nal[0]! & NAL_TYPE_MASK;
    if (type === TYPE_AUD || type === TYPE_FILLER) continue;
    if (type === TYPE_SPS) {
      sps = nal;
      continue;
    }
    if (type === TYPE_PPS) {
      pps = nal;
      continue;
    }
    if (sps !== null && pps !== null) flushParameterSets();
    singleOrFuA(nal, mtu, out);
  }
  if (sps !== null || pps !== null) flushParameterSets();
  return out;
}

/** Total bytes of the FU-A NAL unit that starts at payloads[from], or -1 if it is malformed. */
function fuaSize(payloads: readonly Uint8Array[], from: number): number {
  let size = 1;
  for (let i = from; i < payloads.length; i++) {
    const p = payloads[i]!;
    if (p.length < 2 || (p[0]! & NAL_TYPE_MASK) !== TYPE_FU_A) return -1; // interleaved: malformed
    if (i > from && (p[1]! & FU_START) !== 0) return -1; // a new start before the end
    size += p.length - 2;
    if ((p[1]! & FU_END) !== 0) return size;
  }
  return -1; // never ended within the frame
}

/**
 * The complete NAL units (no start codes) carried by one frame's payloads in sequence order, into
 * `out`: single NAL units and STAP-A units as ranges of their payloads (no copy), FU-A fragments
 * joined into one new buffer per unit. A fresh state per call, so fragments never leak between
 * frames. false (frame rejected) for STAP-B, MTAP16/24, FU-B, type 0/30/31, an empty payload, a
 * truncated STAP-A, or an FU-A that does not start with S, is interrupted, or never ends.
 */
export function h264Pieces(payloads: readonly Uint8Array[], out: FramePieces): boolean {
  out.n = 0;
  for (let i = 0; i < payloads.length; i++) {
    const p = payloads[i]!;
    if (p.length === 0) return false;
    const type = p[0]! & NAL_TYPE_MASK;
    if (type >= 1 && type <= 23) {
      out.add(p, 0, p.length);
    } else if (type === TYPE_STAP_A) {
      let off = 1;
      while (off < p.length) {
        if (off + 2 > p.length) return false;
        const size = (p[off]! << 8) | p[off + 1]!;
        off += 2;
        if (off + size > p.length) return false;
        if (size > 0) out.add(p, off, size);
        off += size;
      }
    } else if (type === TYPE_FU_A) {
      if (p.length < 2 || (p[1]! & FU_START) === 0) return false;
      const size = fuaSize(payloads, i);
      if (size < 0) return false;
      const nal = new Uint8Array(size);
      nal[0] = (p[0]! & NAL_NRI_MASK) | (p[1]! & NAL_TYPE_MASK);
      let off = 1;
      for (;;) {
        const q = payloads[i]!;
        copyRange(q, 2, q.length - 2, nal, off);
        off += q.length - 2;
        if ((q[1]! & FU_END) !== 0) break;
        i++;
      }
      out.add(nal, 0, size);
    } else {
      return false; // 0, STAP-B 25, MTAP16 26, MTAP24 27, FU-B 29, 30, 31
    }
  }
  return true;
}

/** h264Pieces as views (single and STAP-A units into the payloads); null when the frame is rejected. */
export function depacketizeH264(payloads: readonly Uint8Array[]): Uint8Array[] | null {
  const out = new FramePieces();
  return h264Pieces(payloads, out) ? out.views() : null;
}

/**
 * Whether a payload starts an H.264 keyframe (docs/definitions.md#keyframe-start): a single IDR or
 * SPS unit; a STAP-A holding one (a zero length or an overrun ends the walk as not key); or the
 * first FU-A fragment of one.
 */
export function keyframeStartH264(payload: Uint8Array): boolean {
  if (payload.length === 0) return false;
  const type = payload[0]! & NAL_TYPE_MASK;
  if (type >= 1 && type <= 23) return type === TYPE_IDR || type === TYPE_SPS;
  if (type === TYPE_STAP_A) {
    let off = 1;
    while (off + 2 <= payload.length) {
      const size = (payload[off]! << 8) | payload[off + 1]!;
      off += 2;
      if (size === 0 || off + size > payload.length) return false;
      const unit = payload[off]! & NAL_TYPE_MASK;
      if (unit === TYPE_IDR || unit === TYPE_SPS) return true;
      off += size;
    }
    return false;
  }
  if (type === TYPE_FU_A) {
    if (payload.length < 2 || (payload[1]! & FU_START) === 0) return false;
    const unit = payload[1]! & NAL_TYPE_MASK;
    return unit === TYPE_IDR || unit === TYPE_SPS;
  }
  return false;
}

/**
 * The start class of one NAL unit from its header byte and the byte after it: its NAL type when
 * it can be the first NAL unit of an access unit — a slice (1, 2 or 5) only with
 * first_mb_in_slice = 0 (ue(v) coded as the single bit 1), a partition B/C (3, 4) never — else -1.
 */
function nalStartClass(header: number, next: number): number {
  const type = header & NAL_TYPE_MASK;
  if (type === 1 || type === 2 || type === 5) return next >= 0 && (next & 0x80) !== 0 ? type : -1;
  if (type === 0 || type === 3 || type === 4) return -1;
  return type;
}

/**
 * Frame-start class of a payload, for the reassembler's codec head proof: the NAL type
 * of the first NAL unit it starts — a single NAL unit, the first unit of a STAP-A, or the unit an
 * FU-A fragment with the start bit begins — when that unit can begin an access unit (a parameter
 * set, an AUD, an SEI, or a slice with first_mb_in_slice = 0), else -1. Which of these classes
 * really begin access units depends on the sender (an SEI or a PPS may follow an SPS, an IDR slice
 * follows its parameter sets): the reassembler learns that from the stream itself.
 */
export function frameStartH264(payload: Uint8Array): number {
  const len = payload.length;
  if (len === 0) return -1;
  const type = payload[0]! & NAL_TYPE_MASK;
  if (type >= 1 && type <= 23) return nalStartClass(payload[0]!, len > 1 ? payload[1]! : -1);
  if (type === TYPE_STAP_A) {
    if (len < 4) return -1;
    const size = (payload[1]! << 8) | payload[2]!;
    if (size === 0 || 3 + size > len) return -1;
    return nalStartClass(payload[3]!, size > 1 ? payload[4]! : -1);
  }
  if (type === TYPE_FU_A) {
    if (len < 3 || (payload[1]! & FU_START) === 0) return -1;
    return nalStartClass(payload[1]!, payload[2]!);
  }
  return -1;
}

/**
 * Whether a payload carries part of an IDR picture: a single IDR slice, a STAP-A holding one,
 * or any FU-A fragment of one (for the reassembler's frame kinds).
 */
export function idrPartH264(payload: Uint8Array): boolean {
  const len = payload.length;
  if (len === 0) return false;
  const type = payload[0]! & NAL_TYPE_MASK;
  if (type === TYPE_IDR) return true;
  if (type === TYPE_FU_A) return len >= 2 && (payload[1]! & NAL_TYPE_MASK) === TYPE_IDR;
  if (type !== TYPE_STAP_A) return false;
  for (let off = 1; off + 2 < len; ) {
    const size = (payload[off]! << 8) | payload[off + 1]!;
    off += 2;
    if (size === 0 || off + size > len) return false;
    if ((payload[off]! & NAL_TYPE_MASK) === TYPE_IDR) return true;
    off += size;
  }
  return false;
}
