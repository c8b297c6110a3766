// The embedded VP8 clip with two temporal layers (docs/definitions.md#vp8-temporal-layer-clip):
// IVF carries no layer id, so each frame's is the encoder's layer pattern at the frame's index.
import { fileURLToPath } from "node:url";
import { ClipError } from "../errors.ts";
import { loadClip } from "./clip.ts";
import type { Clip } from "./model.ts";

/** The scenario's `clip` value that selects this clip. */
export const TEMPORAL_CLIP = "vp8-tl";

/** libvpx's 2-layer pattern (ts_layering_mode=2, ts_layer_id=0,1): frame i is layer PATTERN[i % 2]. */
export const TEMPORAL_PATTERN: readonly number[] = [0, 1];

/** Path of the embedded temporal-layer clip (clips/ at the project root). */
export function temporalClipPath(): string {
  return fileURLToPath(new URL("../../../clips/clip-vp8-tl.ivf", import.meta.url));
}

/**
 * Each frame's layer id from the pattern. Every keyframe must fall on layer 0 (a keyframe
 * starts the pattern's period), else the clip is refused.
 */
export function patternTids(keyframes: readonly boolean[], pattern: readonly number[]): Uint8Array {
  const tids = new Uint8Array(keyframes.length);
  for (let i = 0; i < tids.length; i++) {
    tids[i] = pattern[i % pattern.length]!;
    if (keyframes[i] && tids[i] !== 0) {
      throw new ClipError(`vp8 temporal layers: keyframe ${i} falls on layer ${tids[i]}, want 0`);
    }
  }
  return tids;
}

/** The embedded VP8 clip with two temporal layers, each frame's TID set. */
export function loadTemporalClip(): Clip {
  const clip = loadClip("vp8", { path: temporalClipPath() });
  return { ...clip, tids: patternTids(clip.keyframes, TEMPORAL_PATTERN) };
}

/** The clip a scenario publishes: the codec's embedded clip, or the one its `clip` key names. */
export function scenarioClip(codec: "vp8" | "h264", clip: string | undefined): Clip {
  return clip === TEMPORAL_CLIP ? loadTemporalClip() : loadClip(codec);
}
