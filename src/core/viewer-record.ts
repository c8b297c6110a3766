// The empty record a viewer starts from: what a viewer that never got media reports, and what
// the main thread reports for each viewer of a shard whose worker thread died.
import { NO_FINGERPRINT } from "./delay/fingerprint-delay.ts";
import { emptyStampCounters } from "./delay/stamp-delay.ts";
import { VIEWER_HISTOGRAM_KEYS, type ViewerHistogramKey } from "./figures/histograms.ts";
import { zeroCounts } from "./figures/pooled-keys.ts";
import { emptyRender } from "./render/render-model.ts";
import type { EncodedHistogram, ViewerRecord } from "./types.ts";

const EMPTY_HIST: EncodedHistogram = { hdr: "", n: 0, sumNs: 0, minNs: 0, maxNs: 0 };

export function emptyRecord(id: number, hasSendLog: boolean): ViewerRecord {
  const hists = {} as Record<ViewerHistogramKey, EncodedHistogram>;
  for (const k of VIEWER_HISTOGRAM_KEYS) hists[k] = EMPTY_HIST;
  return {
    id,
    joined: false,
    rtp: {
      received: 0,
      expected: 0,
      lost: 0,
      duplicates: 0,
      tooLate: 0,
      lossPercent: 0,
      jitterMs: null,
      receivingSeconds: 0,
      stalls: 0,
      stalledMs: 0,
      longestGapMs: 0,
      keyframes: 0,
      keyframeIntervalMinS: 0,
      keyframeIntervalMeanS: 0,
      keyframeIntervalMaxS: 0,
    },
    ...zeroCounts(),
    oneWayDelay: { frameEnd: "", ...NO_FINGERPRINT },
    oneWayDelayBlocker: hasSendLog ? { kind: "no_track" } : { kind: "no_send_log" },
    packetTransit: { negotiated: false, stamped: 0, invalid: 0 },
    stampDelay: emptyStampCounters(),
    render: emptyRender(),
    ...hists,
  };
}
