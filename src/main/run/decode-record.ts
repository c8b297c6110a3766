// Decode the histograms of a viewer record that crossed (or could have crossed) a thread.
import type { DecodedViewer } from "../../core/report/input.ts";
import { DelayHistogram } from "../../core/stats/summaries.ts";
import type { EncodedHistogram, ViewerRecord } from "../../core/types.ts";

export function decodeHistogram(e: EncodedHistogram): DelayHistogram {
  return e.n === 0 ? new DelayHistogram() : DelayHistogram.decode(e);
}

export function decodeRecord(r: ViewerRecord): DecodedViewer {
  return {
    ...r,
    delayHist: decodeHistogram(r.delayHist),
    delayKeyHist: decodeHistogram(r.delayKeyHist),
    delayDeltaHist: decodeHistogram(r.delayDeltaHist),
    transitHist: decodeHistogram(r.transitHist),
    stampHist: decodeHistogram(r.stampHist),
    stampKeyHist: decodeHistogram(r.stampKeyHist),
    stampDeltaHist: decodeHistogram(r.stampDeltaHist),
  };
}
