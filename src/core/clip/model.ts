// The clip model shared by the IVF and Annex-B readers: the error every reader throws, the parsed
// clip, and the validation a clip passes before it is handed out
// (docs/definitions.md#vp8-ivf-clips, docs/definitions.md#keyframe-interval-of-a-clip).

import { ClipError } from "../errors.ts";
import type { Codec } from "../types.ts";

/** RTP clock of every video codec WebRTC carries (RFC 7741, RFC 6184). */
export const CLOCK_RATE = 90000;

/**
 * A loopable sequence of encoded frames at a constant frame rate. VP8 frames are the IVF
 * frame payloads; H.264 frames are access units in Annex-B form with 4-byte start codes.
 */
export interface Clip {
  codec: Codec;
  frames: Uint8Array[];
  keyframes: boolean[];
  /** frame duration in 90 kHz RTP ticks (3000 at 30 fps) */
  ticks: number;
  /** frames per second, CLOCK_RATE / ticks */
  fps: number;
  /**
   * spacing of keyframes in frames when constant, else 0
   * (docs/definitions.md#keyframe-interval-of-a-clip)
   */
  keyframeInterval: number;
  /**
   * VP8 temporal layers: each frame's layer id (TID), absent for a clip without layers
   * (docs/definitions.md#vp8-temporal-layer-clip)
   */
  tids?: Uint8Array;
}

/**
 * Spacing in frames between successive keyframes if it is constant, else 0
 * (docs/definitions.md#keyframe-interval-of-a-clip).
 */
export function keyframeIntervalOf(keyframes: readonly boolean[]): number {
  let prev = -1;
  let gap = 0;
  for (let i = 0; i < keyframes.length; i++) {
    if (!keyframes[i]) continue;
    if (prev >= 0) {
      if (gap !== 0 && i - prev !== gap) return 0;
      gap = i - prev;
    }
    prev = i;
  }
  return gap;
}

/**
 * Validates the parsed frames (docs/definitions.md#vp8-ivf-clips: ≥ 1 frame, a keyframe first,
 * ticks > 0) and builds the clip.
 */
export function makeClip(codec: Codec, frames: Uint8Array[], keyframes: boolean[], ticks: number): Clip {
  if (frames.length === 0) throw new ClipError(`${codec}: the clip has no frames`);
  if (!keyframes[0]) {
    throw new ClipError(
      `${codec}: the clip must start with a keyframe, or the first pass of the loop is undecodable`,
    );
  }
  if (!(ticks > 0)) throw new ClipError(`${codec}: the clip's frame duration is zero`);
  return {
    codec,
    frames,
    keyframes,
    ticks,
    fps: CLOCK_RATE / ticks,
    keyframeInterval: keyframeIntervalOf(keyframes),
  };
}
