// The codec head proof of the reassembler (a deviation from the reference, see
// docs/definitions.md#reassembly): which frame-start classes begin frames in this stream, learnt
// for keyframes and other frames apart, and whether a pending frame's lowest packet proves its head;
// and what a completed frame carries out of the reassembler (describeFrame).
import type { CompletedFrame, PendingFrame } from "./frames.ts";

/** The codec's marks of a frame's first packet. See StartProof for how they become a head proof. */
export interface FrameStart {
  /**
   * 0…31 when the packet's first unit can begin a frame (VP8: S = 1, partition 0; H.264: the
   * NAL type of a unit that can begin an access unit), −1 when it cannot.
   */
  startClass(payload: Uint8Array): number;
  /**
   * The packet carries part of a keyframe's picture (H.264: an IDR slice): a sender's habits
   * differ between keyframes and other frames (an SEI first in a delta frame follows the
   * parameter sets in a keyframe), so classes are learnt for the two kinds apart.
   */
  keyPart(payload: Uint8Array): boolean;
  /**
   * Whether a complete frame is a keyframe (docs/definitions.md#decodable-frames), from `head`
   * (the payload at its lowest sequence number) and its `count` payloads in arrival order.
   */
  frameKey?(head: Uint8Array, payloads: readonly Uint8Array[], count: number): boolean;
  /**
   * Classes (bit c for class c) that begin a frame with certainty, nothing learnt (VP8: S with
   * partition 0; H.264: an AUD, first in its access unit by the standard).
   */
  certain?: number;
  /**
   * Classes that also begin the viewer's first frame (its earliest timestamp: no packet of an
   * earlier frame received to prove it; H.264: an SPS, which WebRTC senders put first in a keyframe).
   */
  streamFirst?: number;
}
/** Frame-start classes are below this (one bit each of an int32), learnt per class and frame kind. */
const START_CLASSES = 32;

/**
 * A frame whose lowest packet starts with a frame-start class is whole without the packet before
 * it when the class is certain (the codec's `certain`; `streamFirst` at the viewer's first packet),
 * else once this stream has shown that class at the head of a frame of the same kind (keyframe or
 * not) proven by its previous packet, and never past the head of a complete frame of that kind.
 * So a lost last packet of frame N does not cost the complete frame N + 1 its head proof, and a
 * frame whose real first packet was lost stays incomplete: VP8's S bit with partition 0 marks
 * only a first packet; for H.264 a sender that puts an SEI, PPS or the IDR slice after another
 * unit of the access unit shows it within its first complete frames of that kind.
 */
export class StartProof {
  private readonly rule: FrameStart;
  // bit c: class c seen at lo of a frame whose head the packet before proved / seen past lo; in
  // other frames and in keyframes apart (no allocation per viewer)
  private startFirst = 0;
  private startLater = 0;
  private startFirstKey = 0;
  private startLaterKey = 0;
  private readonly certain: number;
  private readonly streamFirst: number;

  constructor(rule: FrameStart) {
    this.rule = rule;
    this.certain = rule.certain ?? 0;
    this.streamFirst = rule.streamFirst ?? 0;
  }

  startClass(payload: Uint8Array): number {
    const c = this.rule.startClass(payload);
    return c >= 0 && c < START_CLASSES ? c : -1;
  }

  /** Whether a packet of the frame carries part of a keyframe's picture. */
  private isKey(f: PendingFrame): boolean {
    for (let j = 0; j < f.count; j++) if (this.rule.keyPart(f.payloads[j]!)) return true;
    return false;
  }

  /**
   * Whether the codec proves the head: lo's class is certain (`streamFirst`: the frame is the
   * viewer's first, its earliest timestamp), or has begun proven frames of this frame's kind and
   * never followed another packet in a complete frame of that kind.
   */
  codecHead(f: PendingFrame, streamFirst: boolean): boolean {
    if (f.loClass < 0) return false;
    const bit = 1 << f.loClass;
    if ((this.certain & bit) !== 0 || (streamFirst && (this.streamFirst & bit) !== 0)) return true;
    const key = this.isKey(f);
    const first = key ? this.startFirstKey : this.startFirst;
    const later = key ? this.startLaterKey : this.startLater;
    return (first & bit) !== 0 && (later & bit) === 0;
  }

  /**
   * Learns from a complete frame which classes begin frames of its kind in this stream and which
   * may follow.
   */
  learn(f: PendingFrame): void {
    let first = 0;
    let later = 0;
    if (f.headBySeq && f.loClass >= 0) first = 1 << f.loClass;
    for (let j = 0; j < f.count; j++) {
      if (f.exts[j] === f.lo) continue;
      const c = this.startClass(f.payloads[j]!);
      if (c >= 0) later |= 1 << c;
    }
    if (this.isKey(f)) {
      this.startFirstKey |= first;
      this.startLaterKey |= later;
    } else {
      this.startFirst |= first;
      this.startLater |= later;
    }
  }
}

/** Fills a completed frame's fields (all but `pieces`) from the pending frame closed at `now`. */
export function describeFrame(
  done: CompletedFrame,
  f: PendingFrame,
  now: number,
  late: boolean,
  rule: FrameStart | null,
): void {
  const head = f.payloadAt(f.lo);
  done.timestamp = f.ts;
  done.lo = f.lo;
  done.hi = f.hi;
  done.head = head;
  done.keyframe = rule?.frameKey?.(head, f.payloads, f.count) ?? false;
  done.arrivalNs = f.hiNs;
  done.completedNs = now;
  done.firstNs = f.firstNs;
  done.late = late;
}
