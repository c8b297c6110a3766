// The per-viewer histograms a viewer record carries (docs/definitions.md#many-hosts: encoded in a
// worker or an agent, decoded once where the report reads them), declared once: the record's type,
// its empty record, its decoder, an agent's record check and the report's input derive from this
// list. Each names the registry figure (registry.ts) its samples pool into.

export const VIEWER_HISTOGRAMS = {
  delayHist: "oneWayDelay.fingerprint",
  delayKeyHist: "oneWayDelay.fingerprint",
  delayDeltaHist: "oneWayDelay.fingerprint",
  transitHist: "packetTransit",
  stampHist: "oneWayDelay.stamp",
  stampKeyHist: "oneWayDelay.stamp",
  stampDeltaHist: "oneWayDelay.stamp",
  recoveryHist: "recovery",
  pliKeyframeHist: "pliKeyframe",
} as const;

/** A viewer record's histogram field. */
export type ViewerHistogramKey = keyof typeof VIEWER_HISTOGRAMS;

/** The histogram fields, in the list's order. */
export const VIEWER_HISTOGRAM_KEYS = Object.keys(VIEWER_HISTOGRAMS) as readonly ViewerHistogramKey[];
