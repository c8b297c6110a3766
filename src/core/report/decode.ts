// A viewer record as the report reads it: every histogram it carries decoded, once, here, where a
// record that crossed a thread or a host becomes the report's input (docs/definitions.md#many-hosts:
// the merge is exact). Nothing else in the report decodes a record's histograms; their list is
// core/figures/histograms.ts.
import { VIEWER_HISTOGRAM_KEYS, type ViewerHistogramKey } from "../figures/histograms.ts";
import { DelayHistogram } from "../stats/summaries.ts";
import type { AudioRecord, ViewerRecord } from "../types.ts";
import type { DecodedAudio } from "./audio.ts";
import type { DecodedViewer } from "./input.ts";

export function decodeAudio(a: AudioRecord): DecodedAudio {
  return { ...a, delayHist: DelayHistogram.decode(a.delayHist) };
}

export function decodeViewer(r: ViewerRecord): DecodedViewer {
  const { audio, layerDelayHists, ...rest } = r;
  const hists = {} as Record<ViewerHistogramKey, DelayHistogram>;
  for (const k of VIEWER_HISTOGRAM_KEYS) hists[k] = DelayHistogram.decode(r[k]);
  return {
    ...rest,
    ...hists,
    ...(audio !== undefined ? { audio: decodeAudio(audio) } : {}),
    ...(layerDelayHists !== undefined
      ? { layerDelayHists: layerDelayHists.map((h) => DelayHistogram.decode(h)) }
      : {}),
  };
}
