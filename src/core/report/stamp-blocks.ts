// The `stamp` one-way delay blocks, per viewer and pooled over joined viewers, beside the
// fingerprint blocks and never averaged with them. Same keys as a fingerprint block, except
// that the pooled block has no clip keys (duplicateFrames, loopFrames, loopMinMs): the stamp
// needs no clip. unmatchedFrames counts complete frames whose first packet carried no stamp.
import { blockCounts, frameKindSplit } from "./block-fields.ts";
import { applyComparability } from "./comparability.ts";
import type { DecodedViewer } from "./input.ts";
import { poolBlocks } from "./pooled.ts";
import {
  mostCommonReason,
  NO_TRACK_REASON,
  NO_VIEWER_JOINED_REASON,
  pooledPartialReason,
  TRANSIT_NO_STAMPS_REASON,
  TRANSIT_NOT_NEGOTIATED_REASON,
} from "./reasons.ts";
import type { ClockBlock, PooledDelayBlock, ViewerDelayBlock } from "./types.ts";

export function stampNoValidSampleReason(v: DecodedViewer): string {
  const c = v.stampDelay;
  return `no valid sample: ${c.completeFrames} complete frames (${c.unmatchedFrames} without a stamp, ${c.invalid} invalid, ${c.excludedFrames} excluded), ${c.incompleteFrames} incomplete`;
}

function stampReason(v: DecodedViewer): string | undefined {
  if (v.codec === undefined) return NO_TRACK_REASON;
  if (!v.packetTransit.negotiated) return TRANSIT_NOT_NEGOTIATED_REASON;
  if (v.packetTransit.stamped === 0) return TRANSIT_NO_STAMPS_REASON;
  if (v.stampHist.count === 0) return stampNoValidSampleReason(v);
  return undefined;
}

/** One viewer's stamp block, comparability applied. */
export function viewerStampBlock(
  v: DecodedViewer,
  clock: ClockBlock,
  clientBound?: string,
): ViewerDelayBlock {
  const c = v.stampDelay;
  const reason = stampReason(v);
  const available = reason === undefined;
  const block = {
    source: "stamp" as const,
    available,
    ...(reason !== undefined ? { reason } : {}),
    ...(c.frameEnd !== "" ? { frameEnd: c.frameEnd } : {}),
    ...blockCounts(c, v.stampHist.count),
    ...(available ? { ms: v.stampHist.summaryMs() } : {}),
    keyframes: frameKindSplit(v.stampKeyHist, available),
    deltaFrames: frameKindSplit(v.stampDeltaHist, available),
  };
  return applyComparability(block, clock, clientBound);
}

/** The pooled stamp block over joined viewers (their per-viewer stamp blocks given beside). */
export function pooledStampBlock(
  joined: readonly { record: DecodedViewer; stamp: ViewerDelayBlock }[],
  clock: ClockBlock,
  clientBound?: string,
): PooledDelayBlock {
  const p = poolBlocks(
    joined.map((v) => ({
      block: v.stamp,
      all: v.record.stampHist,
      key: v.record.stampKeyHist,
      delta: v.record.stampDeltaHist,
    })),
  );
  const { all, keyframes, deltaFrames, others, pooled } = p;
  const available = all.count > 0;
  let reason: string | undefined;
  if (joined.length === 0) reason = NO_VIEWER_JOINED_REASON;
  else if (!available) reason = mostCommonReason(others);
  else if (pooled < joined.length)
    reason = pooledPartialReason(pooled, joined.length, mostCommonReason(others));
  const block = {
    source: "stamp" as const,
    available,
    ...(reason !== undefined ? { reason } : {}),
    viewers: pooled,
    viewersByFrameEnd: p.viewersByFrameEnd,
    ...p.counts,
    ...(available ? { ms: all.summaryMs() } : {}),
    keyframes: frameKindSplit(keyframes, available),
    deltaFrames: frameKindSplit(deltaFrames, available),
  };
  return applyComparability(block, clock, clientBound);
}
