// A reference viewer's figures (docs/definitions.md#reference-viewers), declared once: the report
// key, the getStats member it is read from and the report that carries it in libwebrtc M106 (the
// freeze figures are on the old `track` report, the rest on `inbound-rtp`), and its /metrics
// family. The per-viewer record, the pooled sums, the report's key order, the Markdown, the HTML
// rows and the /metrics families are derived from this list (test/unit/figure-lists.test.ts).
import { zeroCounts } from "../figures.ts";

export const REFERENCE_FIGURES = [
  { key: "freezes", stat: "freezeCount", on: "track", metric: "freezes_total", help: "Freezes" },
  {
    key: "frozenSeconds",
    stat: "totalFreezesDuration",
    on: "track",
    metric: "frozen_seconds_total",
    help: "Seconds frozen",
  },
  { key: "pauses", stat: "pauseCount", on: "track", metric: "pauses_total", help: "Pauses" },
  {
    key: "pausedSeconds",
    stat: "totalPausesDuration",
    on: "track",
    metric: "paused_seconds_total",
    help: "Seconds paused",
  },
  {
    key: "framesReceived",
    stat: "framesReceived",
    on: "inbound-rtp",
    metric: "frames_received_total",
    help: "Frames received (assembled)",
  },
  {
    key: "framesDecoded",
    stat: "framesDecoded",
    on: "inbound-rtp",
    metric: "frames_decoded_total",
    help: "Frames decoded",
  },
  {
    key: "framesDropped",
    stat: "framesDropped",
    on: "inbound-rtp",
    metric: "frames_dropped_total",
    help: "Frames dropped before decode or display",
  },
  { key: "nacksSent", stat: "nackCount", on: "inbound-rtp", metric: "nacks_total", help: "NACKs sent" },
  { key: "plisSent", stat: "pliCount", on: "inbound-rtp", metric: "plis_total", help: "PLIs sent" },
  {
    key: "jitterBufferDelaySeconds",
    stat: "jitterBufferDelay",
    on: "inbound-rtp",
    metric: "jitter_buffer_delay_seconds_total",
    help: "Seconds frames spent in the jitter buffer, summed over the frames it emitted",
  },
  {
    key: "jitterBufferEmitted",
    stat: "jitterBufferEmittedCount",
    on: "inbound-rtp",
    metric: "jitter_buffer_emitted_total",
    help: "Frames the jitter buffer emitted",
  },
] as const;

export type ReferenceFigureKey = (typeof REFERENCE_FIGURES)[number]["key"];
export const REFERENCE_FIGURE_KEYS: readonly ReferenceFigureKey[] = REFERENCE_FIGURES.map((f) => f.key);

/** One reference viewer's figures, cumulative since it started (getStats' own counters). */
export type ReferenceFigures = Record<ReferenceFigureKey, number>;

export function zeroReferenceFigures(): ReferenceFigures {
  return zeroCounts(REFERENCE_FIGURE_KEYS);
}

/**
 * The figures read from one getStats result (its reports, any order): the video `track` and
 * `inbound-rtp` reports' members. Null, with the members it lacks, when one is missing or not a
 * number: a figure is never taken as 0 for want of a reading.
 */
export function readReferenceFigures(
  reports: Iterable<Readonly<Record<string, unknown>>>,
): { figures: ReferenceFigures } | { missing: string[] } {
  const byType = new Map<string, Readonly<Record<string, unknown>>>();
  for (const r of reports) {
    if (r["kind"] !== "video" && r["mediaType"] !== "video") continue;
    const type = r["type"];
    if ((type === "track" || type === "inbound-rtp") && !byType.has(type)) byType.set(type, r);
  }
  const figures = zeroReferenceFigures();
  const missing: string[] = [];
  for (const f of REFERENCE_FIGURES) {
    const v = byType.get(f.on)?.[f.stat];
    if (typeof v === "number" && Number.isFinite(v) && v >= 0) figures[f.key] = v;
    else missing.push(`${f.on}.${f.stat}`);
  }
  return missing.length > 0 ? { missing } : { figures };
}
