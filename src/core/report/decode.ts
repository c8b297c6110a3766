// A viewer record as the report reads it: every histogram it carries decoded, once, here, where a
// record that crossed a thread or a host becomes the report's input (docs/definitions.md#many-hosts:
// the merge is exact). Nothing else in the report decodes a record's histograms.
import { DelayHistogram } from "../stats/summaries.ts";
import type { AudioRecord, ViewerRecord } from "../types.ts";
import type { DecodedAudio } from "./audio.ts";
import type { DecodedViewer } from "./input.ts";

export function decodeAudio(a: AudioRecord): DecodedAudio {
  return { ...a, delayHist: DelayHistogram.decode(a.delayHist) };
}

export function decodeViewer(r: ViewerRecord): DecodedViewer {
  const { audio, layerDelayHists, ...rest } = r;
  return {
    ...rest,
    delayHist: DelayHistogram.decode(r.delayHist),
    delayKeyHist: DelayHistogram.decode(r.delayKeyHist),
    delayDeltaHist: DelayHistogram.decode(r.delayDeltaHist),
    transitHist: DelayHistogram.decode(r.transitHist),
    stampHist: DelayHistogram.decode(r.stampHist),
    stampKeyHist: DelayHistogram.decode(r.stampKeyHist),
    stampDeltaHist: DelayHistogram.decode(r.stampDeltaHist),
    recoveryHist: DelayHistogram.decode(r.recoveryHist),
    pliKeyframeHist: DelayHistogram.decode(r.pliKeyframeHist),
    ...(audio !== undefined ? { audio: decodeAudio(audio) } : {}),
    ...(layerDelayHists !== undefined
      ? { layerDelayHists: layerDelayHists.map((h) => DelayHistogram.decode(h)) }
      : {}),
  };
}
