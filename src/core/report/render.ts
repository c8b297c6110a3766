// What the viewers would have seen, in the report (docs/definitions.md#viewer-experience-pooled):
// each viewer's `render` block from its render counters and histograms, and `aggregate.render`
// pooled over the joined viewers — sums, the per-viewer frozen share and end gap as exact
// summaries, the recovery and PLI → keyframe histograms merged exactly. "Unavailable, because …"
// where no frame was judged.

import { poolRenderCounts } from "../render/counts.ts";
import { DelayHistogram, exactSummary } from "../stats/summaries.ts";
import type { RenderCounters } from "../types.ts";
import {
  compareBytes,
  mostCommonReason,
  NO_TRACK_REASON,
  NO_VIEWER_JOINED_REASON,
  pooledPartialReason,
} from "./reasons.ts";
import type { PooledRenderBlock, ViewerRenderBlock } from "./render-types.ts";

/** What the render blocks read of a viewer: its counters, its codec, its two histograms decoded. */
export interface RenderViewer {
  render: RenderCounters;
  codec?: string | undefined;
  recovery: DelayHistogram;
  pliKeyframe: DelayHistogram;
}

export function renderCodecReason(codec: string): string {
  return `codec "${codec}" has no render model: only VP8 and H.264 frames are judged`;
}

export function noFrameShownReason(c: RenderCounters): string {
  return `no frame was shown: ${c.framesNotDecodable} complete frames not decodable, ${c.framesLate} late`;
}

/** Why a viewer's render block is unavailable, in the documented order; undefined when it is available. */
function renderReason(v: RenderViewer): string | undefined {
  if (v.codec === undefined) return NO_TRACK_REASON;
  if (v.codec !== "vp8" && v.codec !== "h264") return renderCodecReason(v.codec);
  if (v.render.framesShown === 0) return noFrameShownReason(v.render);
  return undefined;
}

/** docs/definitions.md#viewer-experience-per-viewer one viewer's `render` block. */
export function viewerRenderBlock(v: RenderViewer): ViewerRenderBlock {
  const c = v.render;
  const reason = renderReason(v);
  const available = reason === undefined;
  return {
    available,
    ...(reason !== undefined ? { reason } : {}),
    ...(c.finder !== "" ? { finder: c.finder } : {}),
    framesShown: c.framesShown,
    framesNotDecodable: c.framesNotDecodable,
    framesLate: c.framesLate,
    freezes: c.freezes,
    frozenMs: c.frozenMs,
    ...(available && c.measuredMs > 0 ? { frozenPercent: (100 * c.frozenMs) / c.measuredMs } : {}),
    longestFreezeMs: c.longestFreezeMs,
    pauses: c.pauses,
    pausedMs: c.pausedMs,
    measuredMs: c.measuredMs,
    ...(c.endGapMs >= 0 ? { endGapMs: c.endGapMs } : {}),
    recoveries: c.recoveries,
    ...(v.recovery.count > 0 ? { recoveryMs: v.recovery.summaryMs() } : {}),
    plisSent: c.plisSent,
    plisAnswered: c.plisAnswered,
    ...(v.pliKeyframe.count > 0 ? { pliKeyframeMs: v.pliKeyframe.summaryMs() } : {}),
  };
}

/** The pooled reason: no viewer joined / partial / the most common viewer reason. */
function pooledRenderReason(judged: number, joined: number, others: readonly string[]): string | undefined {
  if (joined === 0) return NO_VIEWER_JOINED_REASON;
  if (judged === 0) return mostCommonReason(others);
  return judged < joined ? pooledPartialReason(judged, joined, mostCommonReason(others)) : undefined;
}

/** A joined viewer's render block with its decoded histograms. */
export interface JoinedRender {
  block: ViewerRenderBlock;
  recovery: DelayHistogram;
  pliKeyframe: DelayHistogram;
}

/**
 * docs/definitions.md#viewer-experience-pooled `aggregate.render` over the joined viewers: sums over
 * all of them, the frozen share and end gap over those judged, histograms merged exactly.
 */
export function pooledRenderBlock(joined: readonly JoinedRender[]): PooledRenderBlock {
  const recovery = new DelayHistogram();
  const pliKeyframe = new DelayHistogram();
  const byFinder = new Map<string, number>();
  const shares: number[] = [];
  const endGaps: number[] = [];
  const others: string[] = [];
  // every joined viewer's counts, summed or the largest as core/render/counts.ts says
  const s = poolRenderCounts(joined.map((j) => j.block));
  for (const { block: b, recovery: r, pliKeyframe: p } of joined) {
    recovery.add(r);
    pliKeyframe.add(p);
    if (!b.available) {
      others.push(b.reason ?? "");
      continue;
    }
    if (b.finder !== undefined) byFinder.set(b.finder, (byFinder.get(b.finder) ?? 0) + 1);
    if (b.frozenPercent !== undefined) shares.push(b.frozenPercent);
    if (b.endGapMs !== undefined) endGaps.push(b.endGapMs);
  }
  const judged = joined.length - others.length;
  const available = judged > 0;
  const reason = pooledRenderReason(judged, joined.length, others);
  const viewersByFinder: Record<string, number> = {};
  for (const k of [...byFinder.keys()].sort(compareBytes)) viewersByFinder[k] = byFinder.get(k) ?? 0;
  return {
    available,
    ...(reason !== undefined ? { reason } : {}),
    viewers: judged,
    viewersByFinder,
    framesShown: s.framesShown,
    framesNotDecodable: s.framesNotDecodable,
    framesLate: s.framesLate,
    freezes: s.freezes,
    ...(available && s.measuredMs > 0 ? { freezesPerViewerMinute: s.freezes / (s.measuredMs / 60_000) } : {}),
    frozenSeconds: s.frozenMs / 1000,
    pauses: s.pauses,
    pausedSeconds: s.pausedMs / 1000,
    measuredSeconds: s.measuredMs / 1000,
    frozenPercent: exactSummary(shares),
    longestFreezeMs: s.longestFreezeMs,
    endGapMs: exactSummary(endGaps),
    recoveries: s.recoveries,
    ...(recovery.count > 0 ? { recoveryMs: recovery.summaryMs() } : {}),
    plisSent: s.plisSent,
    plisAnswered: s.plisAnswered,
    ...(pliKeyframe.count > 0 ? { pliKeyframeMs: pliKeyframe.summaryMs() } : {}),
  };
}
