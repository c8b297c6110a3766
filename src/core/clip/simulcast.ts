// The simulcast layers (docs/definitions.md#simulcast-layers): three embedded encodings of one source,
// rid l (320×180), m (640×360) and h (1280×720), with the same frame count, frame duration and
// keyframes, so one absolute frame index names the same picture on every layer. Their frames
// together are one fingerprint table (the layers' frames in rid order, lowest first): layer j's
// clip frame i is index j·N + i, so a viewer's frame says which layer it came from.

import { fileURLToPath } from "node:url";
import { ClipError } from "../errors.ts";
import { SIMULCAST_RIDS } from "../layer/spec.ts";
import type { Codec } from "../types.ts";
import { loadClip } from "./clip.ts";
import { type Clip, makeClip } from "./model.ts";

// the rids of the embedded layers, lowest first: a leaf the scenario's layer keys see too
export { SIMULCAST_RIDS };

const EXT: Record<Codec, string> = { vp8: "ivf", h264: "h264" };

/** One layer: its rid and its clip. */
export interface Layer {
  rid: string;
  clip: Clip;
}

/** The layers a simulcast publisher sends, lowest first, and their frames as one table. */
export interface SimulcastClips {
  codec: Codec;
  layers: Layer[];
  /** every layer's frames in layer order: layer j's frame i at j·N + i (the fingerprint table's clip) */
  combined: Clip;
  /** N, the frames of one layer's loop */
  layerFrames: number;
}

/** Path of an embedded layer's clip (clips/clip-<codec>-<rid>.<ext>). */
export function embeddedLayerPath(codec: Codec, rid: string): string {
  return fileURLToPath(new URL(`../../../clips/clip-${codec}-${rid}.${EXT[codec]}`, import.meta.url));
}

/**
 * Checks that `clips` can be one simulcast: at least one, all of `codec`, the same frame count,
 * frame duration and keyframes (a keyframe on request cuts every layer's GOP at the same frame).
 */
export function checkLayers(codec: Codec, layers: readonly Layer[]): void {
  const first = layers[0];
  if (first === undefined) throw new ClipError("simulcast: no layer");
  for (const { rid, clip } of layers) {
    const what = `simulcast layer ${rid}`;
    if (clip.codec !== codec) throw new ClipError(`${what}: ${clip.codec}, not ${codec}`);
    if (clip.frames.length !== first.clip.frames.length)
      throw new ClipError(
        `${what}: ${clip.frames.length} frames, layer ${first.rid} has ${first.clip.frames.length}`,
      );
    if (clip.ticks !== first.clip.ticks)
      throw new ClipError(`${what}: ${clip.ticks} ticks a frame, layer ${first.rid} has ${first.clip.ticks}`);
    const k = clip.keyframes.findIndex((key, i) => key !== first.clip.keyframes[i]);
    if (k >= 0)
      throw new ClipError(
        `${what}: frame ${k} is ${clip.keyframes[k] ? "" : "not "}a keyframe on layer ${first.rid}`,
      );
  }
}

/** The layers' frames as one clip, layer j's frame i at j·N + i. */
export function combineLayers(codec: Codec, layers: readonly Layer[]): Clip {
  checkLayers(codec, layers);
  const frames: Uint8Array[] = [];
  const keyframes: boolean[] = [];
  for (const { clip } of layers) {
    frames.push(...clip.frames);
    keyframes.push(...clip.keyframes);
  }
  return makeClip(codec, frames, keyframes, (layers[0] as Layer).clip.ticks);
}

/** The layer of an index of the combined table, and its clip index on that layer. */
export function layerOfIndex(index: number, layerFrames: number): { layer: number; i: number } {
  return { layer: Math.floor(index / layerFrames), i: index % layerFrames };
}

/**
 * Loads the embedded layers named by `rids` (a non-empty subset of SIMULCAST_RIDS, each once),
 * sorted lowest first. Every problem is a ClipError.
 */
export function loadSimulcastClips(codec: Codec, rids: readonly string[] = SIMULCAST_RIDS): SimulcastClips {
  if (rids.length === 0) throw new ClipError("simulcast: no layer");
  for (const rid of rids) {
    if (!SIMULCAST_RIDS.includes(rid))
      throw new ClipError(`simulcast: no embedded layer "${rid}" (want ${SIMULCAST_RIDS.join(", ")})`);
  }
  if (new Set(rids).size !== rids.length) throw new ClipError("simulcast: a layer is named twice");
  const sorted = SIMULCAST_RIDS.filter((r) => rids.includes(r));
  const layers = sorted.map((rid) => ({
    rid,
    clip: loadClip(codec, { path: embeddedLayerPath(codec, rid) }),
  }));
  const combined = combineLayers(codec, layers);
  return { codec, layers, combined, layerFrames: (layers[0] as Layer).clip.frames.length };
}
