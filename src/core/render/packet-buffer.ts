// libwebrtc's H.264 packet buffer where it hands out frames our reassembler does not
// (docs/definitions.md#decodable-frames; modules/video_coding/packet_buffer.cc FindFrames,
// h264_sps_pps_tracker.cc). H.264 has no frame-begin bit: libwebrtc walks back from a frame's marker
// packet while the packet before is present with the same timestamp, and stops at a hole. A frame
// found that way is a keyframe when one of its packets carries an IDR NAL unit, and a keyframe is
// handed out even when its leading packets (the STAP-A with SPS/PPS, a first FU-A) are missing — the
// SPS/PPS tracker puts back parameter sets it knows from earlier; a delta frame with a hole before
// it is not. Such a keyframe is handed to the model here, at the instant libwebrtc would, and the
// reassembler's later copy (should the hole be repaired) is left out. An IDR packet that arrives
// before any SPS and PPS is dropped by the tracker, which asks for a keyframe. (VP8 needs no buffer
// here: the reassembler proves a frame's head by its S bit, as libwebrtc's VP8 buffer does.) Fixed
// arrays; no allocation per packet.

import { EXT_BASE } from "../rtp/seen-ring.ts";

const SLOTS = 1024;
const MASK = SLOTS - 1;
/** a packet libwebrtc's depacketizer marks first in its frame: single NAL, STAP-A, FU-A start */
const FIRST = 1;
/** it carries an IDR NAL unit as the depacketizer records it (an FU-A only in its first fragment) */
const IDR = 2;
const MARKER = 4;
/** timestamps of frames released here, kept to leave out the reassembler's later copy */
const RELEASED = 16;

/** A frame released here: its extended sequence numbers and timestamp. */
export interface ReleasedFrame {
  lo: number;
  hi: number;
  timestamp: number;
}

export class PacketBuffer {
  /** what the last packet released, valid until the next packet */
  readonly out: ReleasedFrame = { lo: 0, hi: 0, timestamp: 0 };
  private readonly seq = new Float64Array(SLOTS).fill(-1);
  private readonly ts = new Float64Array(SLOTS);
  private readonly flags = new Uint8Array(SLOTS);
  private readonly released = new Float64Array(RELEASED).fill(-1);
  private releasedAt = 0;
  /** frames released here so far (none: every frame is the reassembler's, nothing to look up) */
  private releasedN = 0;
  private haveSeq = false;
  private maxExt = 0;
  private sps = false;
  private pps = false;

  /**
   * One packet (16-bit `seq`). Returns "release" when it completes a frame without the packet
   * before it (then `out` holds it), "ask" when it is an IDR packet the tracker drops for want of
   * SPS/PPS, else "none".
   */
  packet(seq: number, ts: number, marker: boolean, payload: Uint8Array): "release" | "ask" | "none" {
    const ext = this.extend(seq);
    const slot = ext & MASK;
    const f = this.kinds(payload);
    if ((f & IDR) !== 0 && !(this.sps && this.pps)) return "ask";
    this.seq[slot] = ext;
    this.ts[slot] = ts;
    this.flags[slot] = f | (marker ? MARKER : 0);
    // the frame's marker packet: this one, or a later one already here (a hole was filled); none is
    // when this packet is the newest (every packet kept was extended to maxExt at most), so its
    // successor's slot, last written SLOTS packets ago and likely out of the cache, is not read
    if (!marker && ext === this.maxExt) return "none";
    let end = ext;
    while ((this.flags[end & MASK]! & MARKER) === 0 || this.seq[end & MASK] !== end) {
      if (!this.present(end + 1, ts) || end - ext >= SLOTS - 1) return "none";
      end++;
    }
    let start = end;
    let first = false;
    let idr = false;
    for (;;) {
      const g = this.flags[start & MASK]!;
      first ||= (g & FIRST) !== 0;
      idr ||= (g & IDR) !== 0;
      if (!this.present(start - 1, ts) || end - start >= SLOTS - 1) break;
      start--;
    }
    // a frame whose packet before is present (another timestamp) is our reassembler's to complete
    if (this.seq[(start - 1) & MASK] === start - 1 || !first || !idr || this.wasReleased(ts)) return "none";
    this.released[this.releasedAt] = ts;
    this.releasedAt = (this.releasedAt + 1) % RELEASED;
    this.releasedN++;
    this.out.lo = start;
    this.out.hi = end;
    this.out.timestamp = ts;
    return "release";
  }

  /** Whether a frame with this timestamp was released here (the reassembler's copy is not shown). */
  wasReleased(ts: number): boolean {
    if (this.releasedN === 0) return false;
    for (let i = 0; i < RELEASED; i++) if (this.released[i] === ts) return true;
    return false;
  }

  private present(ext: number, ts: number): boolean {
    const slot = ext & MASK;
    return this.seq[slot] === ext && this.ts[slot] === ts;
  }

  /** The packet's kinds as libwebrtc's H.264 depacketizer records them; SPS/PPS seen noted. */
  private kinds(p: Uint8Array): number {
    if (p.length === 0) return 0;
    const type = p[0]! & 0x1f;
    if (type === 28) {
      // FU-A: first in frame with its start bit, its NAL type recorded only then
      if (p.length < 2 || (p[1]! & 0x80) === 0) return 0;
      return FIRST | ((p[1]! & 0x1f) === 5 ? IDR : 0);
    }
    if (type !== 24) return FIRST | this.unit(type);
    let f = FIRST;
    for (let off = 1; off + 2 < p.length; ) {
      const size = (p[off]! << 8) | p[off + 1]!;
      off += 2;
      if (size === 0 || off + size > p.length) break;
      f |= this.unit(p[off]! & 0x1f);
      off += size;
    }
    return f;
  }

  private unit(type: number): number {
    if (type === 7) this.sps = true;
    else if (type === 8) this.pps = true;
    return type === 5 ? IDR : 0;
  }

  /** As the reassembler extends sequence numbers, so that the ids match. */
  private extend(seq: number): number {
    if (!this.haveSeq) {
      this.haveSeq = true;
      this.maxExt = EXT_BASE + seq;
      return this.maxExt;
    }
    const ext = this.maxExt + (((seq - this.maxExt) << 16) >> 16);
    if (ext > this.maxExt) this.maxExt = ext;
    return ext;
  }
}
