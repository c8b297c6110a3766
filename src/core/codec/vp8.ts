// VP8 RTP payload format (RFC 7741): payloader, depacketiser and keyframe-start test.
//
//        0 1 2 3 4 5 6 7
//       +-+-+-+-+-+-+-+-+
//       |X|R|N|S|R| PID |  required
//       +-+-+-+-+-+-+-+-+
//   X:  |I|L|T|K| RSV   |  optional
//   I:  |M| PictureID   |  optional, 7 or 15 bits (M = 1: 15 bits)
//   L:  |   TL0PICIDX   |  optional
//  T/K: |TID|Y| KEYIDX  |  optional

import { FramePieces } from "./pieces.ts";

/** Size of the descriptor this payloader writes: required byte, X byte, 15-bit picture ID. */
const DESCRIPTOR_BYTES = 4;

/**
 * A frame's temporal-layer fields (RFC 7741 section 4.2): its layer index (TID, 0..3), whether it
 * is a layer sync (Y: it references only base-layer frames), and TL0PICIDX (the running index of
 * the base-layer frames, mod 256).
 */
export interface Vp8Temporal {
  tid: number;
  sync: boolean;
  tl0PicIdx: number;
}

/**
 * Splits one VP8 frame into RTP payloads of at most `mtu` bytes, each with a descriptor: X = 1,
 * I = 1, a 15-bit picture ID (M = 1), S = 1 on the first packet only, partition index 0; with
 * `temporal`, L = 1 and T = 1 too, TL0PICIDX and the TID/Y byte (K = 0) after the picture ID
 * (6 bytes instead of 4). The caller advances `pictureId` per frame (mod 2^15). All payloads
 * are views into one buffer allocated for the frame. Nothing comes out for an empty frame or an
 * MTU that leaves no room for data.
 */
export function packetizeVp8(
  frame: Uint8Array,
  mtu: number,
  pictureId: number,
  temporal?: Vp8Temporal,
): Uint8Array[] {
  const head = temporal === undefined ? DESCRIPTOR_BYTES : DESCRIPTOR_BYTES + 2;
  // capped at the frame's length, so that an unbounded MTU (Infinity) still gives one packet
  const maxFragment = Math.min(Math.floor(mtu) - head, frame.length);
  if (frame.length === 0 || !(maxFragment > 0)) return [];
  const count = Math.ceil(frame.length / maxFragment);
  const buf = new Uint8Array(frame.length + count * head);
  const out = new Array<Uint8Array>(count);
  const pidHigh = 0x80 | ((pictureId >>> 8) & 0x7f);
  const pidLow = pictureId & 0xff;
  let src = 0;
  let dst = 0;
  for (let i = 0; i < count; i++) {
    const size = Math.min(maxFragment, frame.length - src);
    buf[dst] = i === 0 ? 0x90 : 0x80; // X, and S on the first packet; PID 0
    buf[dst + 1] = temporal === undefined ? 0x80 : 0xe0; // I, and L and T with layers
    buf[dst + 2] = pidHigh;
    buf[dst + 3] = pidLow;
    if (temporal !== undefined) {
      buf[dst + 4] = temporal.tl0PicIdx & 0xff;
      buf[dst + 5] = ((temporal.tid & 3) << 6) | (temporal.sync ? 0x20 : 0);
    }
    buf.set(frame.subarray(src, src + size), dst + head);
    out[i] = buf.subarray(dst, dst + head + size);
    src += size;
    dst += head + size;
  }
  return out;
}

/**
 * Offset of the VP8 payload after the descriptor, or -1 when the descriptor is malformed:
 * a field it announces is missing, or no payload byte follows it.
 */
export function vp8DescriptorBytes(payload: Uint8Array): number {
  const len = payload.length;
  if (len === 0) return -1;
  let i = 1;
  if ((payload[0]! & 0x80) !== 0) {
    if (i >= len) return -1;
    const ext = payload[i++]!;
    if ((ext & 0x80) !== 0) {
      // I: picture ID, 2 bytes when its M bit is set
      if (i >= len) return -1;
      i += (payload[i]! & 0x80) !== 0 ? 2 : 1;
    }
    if ((ext & 0x40) !== 0) i++; // L: TL0PICIDX
    if ((ext & 0x30) !== 0) i++; // T or K: TID/Y/KEYIDX
  }
  return i < len ? i : -1;
}

/**
 * The data pieces of one frame's payloads (in sequence order) as ranges, each payload past its
 * descriptor, into `out`; their concatenation is the VP8 frame. false when a descriptor is
 * malformed (the frame is rejected).
 */
export function vp8Pieces(payloads: readonly Uint8Array[], out: FramePieces): boolean {
  out.n = 0;
  for (let i = 0; i < payloads.length; i++) {
    const p = payloads[i]!;
    const skip = vp8DescriptorBytes(p);
    if (skip < 0) return false;
    out.add(p, skip, p.length - skip);
  }
  return true;
}

/** vp8Pieces as views into the payloads (no copy); null when the frame is rejected. */
export function depacketizeVp8(payloads: readonly Uint8Array[]): Uint8Array[] | null {
  const out = new FramePieces();
  return vp8Pieces(payloads, out) ? out.views() : null;
}

/**
 * Whether a payload starts a VP8 keyframe (docs/definitions.md#keyframe-start): S set with
 * partition index 0, and the first byte of the VP8 payload header has P (bit 0) = 0.
 */
export function keyframeStartVp8(payload: Uint8Array): boolean {
  if (payload.length === 0 || (payload[0]! & 0x17) !== 0x10) return false;
  const skip = vp8DescriptorBytes(payload);
  return skip >= 0 && (payload[skip]! & 0x01) === 0;
}

/**
 * Frame-start class of a payload, for the reassembler's codec head proof: 0 when the
 * descriptor has S = 1 with partition index 0 — the first packet of a VP8 frame, whatever frame
 * it is — else -1 (the packet can follow another of its frame).
 */
export function frameStartVp8(payload: Uint8Array): number {
  return payload.length > 0 && (payload[0]! & 0x17) === 0x10 ? 0 : -1;
}

/** VP8's frame start (S with partition 0) marks only a first packet, in every kind of frame: one kind. */
export function keyPartVp8(_payload: Uint8Array): boolean {
  return false;
}

/**
 * The picture ID of a VP8 payload descriptor (7 or 15 bits), or −1 when it has none (no X or
 * no I) or is malformed; `pictureIdBits` tells which width it was written with.
 */
export function vp8PictureId(payload: Uint8Array): number {
  const len = payload.length;
  if (len < 3 || (payload[0]! & 0x80) === 0 || (payload[1]! & 0x80) === 0) return -1;
  const b = payload[2]!;
  if ((b & 0x80) === 0) return b;
  return len < 4 ? -1 : ((b & 0x7f) << 8) | payload[3]!;
}

/** 15 when the descriptor's picture ID is 15 bits wide (M = 1), else 7 (call only when it has one). */
export function pictureIdBits(payload: Uint8Array): number {
  return (payload[2]! & 0x80) !== 0 ? 15 : 7;
}
