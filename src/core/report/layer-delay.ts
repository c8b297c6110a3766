// One-way delay per simulcast layer (docs/definitions.md#layer-delay): each viewer's samples split
// by the layer its frame's fingerprint names (`viewers[].layers[].delayMs`), and pooled per layer
// over the run's viewers and each cohort's (`aggregate.layerDelay`, `aggregate.cohorts[].layerDelay`).
// A layer without samples has no summary and says why, never zeros.
import { DelayHistogram } from "../stats/summaries.ts";
import type { Summary } from "../types.ts";

/** `viewers[].layers[]`: a layer's samples, time on it and, with samples, their summary. */
export interface ViewerLayer {
  rid: string;
  samples: number;
  timeMs: number;
  delayMs?: Summary;
  /** with no samples: why (the report says "unavailable, because …") */
  reason?: string;
}

/** `aggregate.layerDelay[]`: a layer's samples pooled over the viewers. */
export interface PooledLayerDelay {
  rid: string;
  /** viewers with at least one sample of the layer */
  viewers: number;
  samples: number;
  delayMs?: Summary;
  reason?: string;
}

export const LAYER_NO_FRAME = "no frame of this layer arrived";
export const LAYER_EXCLUDED = "its frames arrived inside the excluded first seconds (excludeFirstSeconds)";
export const LAYER_UNMATCHED = "none of its frames was matched to a send";

/** A decoded viewer's per-layer fields (input.ts's DecodedViewer), lowest layer first. */
interface LayerFields {
  layerSamples?: number[];
  layerNs?: number[];
  layerDelayHists?: DelayHistogram[];
  layerFrames?: number[];
  layerExcluded?: number[];
}

/** Why layer j has no sample: no frame of it, its frames all excluded (some of them), or unmatched. */
function noSampleReason(frames: number, excluded: number): string {
  if (frames === 0) return LAYER_NO_FRAME;
  return excluded > 0 ? LAYER_EXCLUDED : LAYER_UNMATCHED;
}

/** `viewers[].layers` (docs/definitions.md#layer); undefined without simulcast or without figures. */
export function viewerLayers(rids: readonly string[] | undefined, r: LayerFields): ViewerLayer[] | undefined {
  const { layerSamples: samples, layerNs = [], layerDelayHists: hists = [] } = r;
  if (rids === undefined || samples === undefined) return undefined;
  return rids.map((rid, j) => {
    const n = samples[j] ?? 0;
    const h = hists[j];
    const base = { rid, samples: n, timeMs: (layerNs[j] ?? 0) / 1e6 };
    if (n > 0 && h !== undefined && h.count > 0) return { ...base, delayMs: h.summaryMs() };
    return { ...base, reason: noSampleReason(r.layerFrames?.[j] ?? 0, r.layerExcluded?.[j] ?? 0) };
  });
}

/**
 * Each layer's samples pooled over `viewers` (their histograms merged exactly); undefined without
 * simulcast. A layer no viewer sampled says why: a viewer's frames of it excluded, any of its frames
 * unmatched, or no frame of it at all.
 */
export function pooledLayerDelay(
  rids: readonly string[] | undefined,
  viewers: readonly LayerFields[],
): PooledLayerDelay[] | undefined {
  if (rids === undefined) return undefined;
  return rids.map((rid, j) => {
    const pool = new DelayHistogram();
    let withSamples = 0;
    let frames = 0;
    let excluded = 0;
    for (const v of viewers) {
      const h = v.layerDelayHists?.[j];
      if (h !== undefined && h.count > 0) {
        pool.add(h);
        withSamples++;
      }
      frames += v.layerFrames?.[j] ?? 0;
      excluded += v.layerExcluded?.[j] ?? 0;
    }
    const base = { rid, viewers: withSamples, samples: pool.count };
    if (pool.count > 0) return { ...base, delayMs: pool.summaryMs() };
    return { ...base, reason: noSampleReason(frames, excluded) };
  });
}
