// Pooled blocks over joined viewers: one-way delay (docs/definitions.md#one-way-delay-pooled) and
// packet transit (docs/definitions.md#packet-transit-pooled). Histograms merge exactly; the reason
// texts and the most-common-reason rule follow docs/definitions.md.

import { DELAY_COUNTERS, type DelayCounts } from "../delay/counters.ts";
import { addCounts, zeroCounts } from "../figures.ts";
import { DelayHistogram } from "../stats/summaries.ts";
import { frameKindSplit, nsToMs } from "./block-fields.ts";
import { applyComparability } from "./comparability.ts";
import type { DecodedViewer } from "./input.ts";
import {
  compareBytes,
  mostCommonReason,
  NO_SEND_LOG_REASON,
  NO_VIEWER_JOINED_REASON,
  pooledPartialReason,
} from "./reasons.ts";
import type { JoinedRender } from "./render.ts";
import type {
  ClockBlock,
  PooledDelayBlock,
  PooledTransitBlock,
  ViewerDelayBlock,
  ViewerTransitBlock,
} from "./types.ts";

/** A joined viewer with its already-built per-viewer blocks. */
export interface JoinedViewer {
  record: DecodedViewer;
  delay: ViewerDelayBlock;
  stamp: ViewerDelayBlock;
  transit: ViewerTransitBlock;
  /** its render block with the two histograms behind it, decoded once */
  render: JoinedRender;
}

export interface PoolContext {
  hasSendLog: boolean;
  loopFrames: number;
  duplicateFrames: number;
  /** the clip's identity (clipHashOf), when this run knows the clip */
  clipHash?: string | undefined;
  /** −1 when no whole loop was sent */
  loopMinNs: number;
  clock: ClockBlock;
  /** set when the client was near its own ceiling: the reason the figure is not comparable */
  clientBound?: string | undefined;
}

/** The pooled reason: no send log / partial / no viewer joined / most common viewer reason. */
function pooledReason(
  available: boolean,
  pooled: number,
  joined: number,
  otherReasons: readonly string[],
): string | undefined {
  if (joined === 0) return NO_VIEWER_JOINED_REASON;
  if (available) {
    return pooled < joined ? pooledPartialReason(pooled, joined, mostCommonReason(otherReasons)) : undefined;
  }
  return mostCommonReason(otherReasons);
}

function sortedCounts(counts: Map<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const key of [...counts.keys()].sort(compareBytes)) out[key] = counts.get(key) ?? 0;
  return out;
}

/**
 * One source's per-viewer blocks and histograms, pooled: sums over every joined viewer, histograms
 * merged from the available ones.
 */
export interface Pool {
  all: DelayHistogram;
  keyframes: DelayHistogram;
  deltaFrames: DelayHistogram;
  viewersByFrameEnd: Record<string, number>;
  /** the reasons of the joined viewers whose block is unavailable */
  others: string[];
  pooled: number;
  /** the counters summed over every joined viewer; `samples` the pooled histogram's count */
  counts: DelayCounts;
}

/** The run's pool and each cohort's, in aggregate.cohorts' order (absent without cohorts). */
export interface DelayPools {
  all: Pool;
  cohorts?: readonly Pool[];
}

export function poolBlocks(
  items: readonly {
    block: ViewerDelayBlock;
    all: DelayHistogram;
    key: DelayHistogram;
    delta: DelayHistogram;
  }[],
): Pool {
  const p: Pool = {
    all: new DelayHistogram(),
    keyframes: new DelayHistogram(),
    deltaFrames: new DelayHistogram(),
    viewersByFrameEnd: {},
    others: [],
    pooled: 0,
    counts: zeroCounts(DELAY_COUNTERS),
  };
  const byFrameEnd = new Map<string, number>();
  for (const { block: b, all, key, delta } of items) {
    addCounts(p.counts, b, DELAY_COUNTERS);
    if (!b.available) {
      p.others.push(b.reason ?? "");
      continue;
    }
    p.pooled++;
    p.all.add(all);
    p.keyframes.add(key);
    p.deltaFrames.add(delta);
    if (b.frameEnd !== undefined) byFrameEnd.set(b.frameEnd, (byFrameEnd.get(b.frameEnd) ?? 0) + 1);
  }
  p.viewersByFrameEnd = sortedCounts(byFrameEnd);
  p.counts.samples = p.all.count;
  return p;
}

/**
 * The joined viewers' first fingerprint blocks pooled: made once per group of viewers (the run, each
 * cohort) and read by the pooled block and by the HTML report's delay distribution.
 */
export function fingerprintPool(joined: readonly JoinedViewer[]): Pool {
  return poolBlocks(
    joined.map((v) => ({
      block: v.delay,
      all: v.record.delayHist,
      key: v.record.delayKeyHist,
      delta: v.record.delayDeltaHist,
    })),
  );
}

/**
 * docs/definitions.md#one-way-delay-pooled pooled fingerprint block over the joined viewers' first
 * fingerprint blocks (`pool`: fingerprintPool of those `joined` viewers).
 */
export function pooledDelayBlock(joined: number, pool: Pool, ctx: PoolContext): PooledDelayBlock {
  const { all, keyframes, deltaFrames, viewersByFrameEnd, others, pooled, counts } = pool;
  const available = ctx.hasSendLog && all.count > 0;
  const reason = ctx.hasSendLog ? pooledReason(available, pooled, joined, others) : NO_SEND_LOG_REASON;
  const block = {
    source: "fingerprint" as const,
    available,
    ...(reason !== undefined ? { reason } : {}),
    viewers: pooled,
    viewersByFrameEnd,
    ...counts,
    duplicateFrames: ctx.hasSendLog ? ctx.duplicateFrames : 0,
    loopFrames: ctx.hasSendLog ? ctx.loopFrames : 0,
    ...(ctx.hasSendLog && ctx.loopMinNs >= 0 ? { loopMinMs: nsToMs(ctx.loopMinNs) } : {}),
    ...(ctx.hasSendLog && ctx.clipHash !== undefined ? { clipHash: ctx.clipHash } : {}),
    ...(available ? { ms: all.summaryMs() } : {}),
    keyframes: frameKindSplit(keyframes, available),
    deltaFrames: frameKindSplit(deltaFrames, available),
  };
  return applyComparability(block, ctx.clock, ctx.clientBound);
}

/** docs/definitions.md#packet-transit-pooled pooled packet transit over the joined viewers. */
export function pooledTransitBlock(joined: readonly JoinedViewer[]): PooledTransitBlock {
  const all = new DelayHistogram();
  const others: string[] = [];
  let pooled = 0;
  for (const v of joined) {
    if (!v.transit.available) {
      others.push(v.transit.reason ?? "");
      continue;
    }
    pooled++;
    all.add(v.record.transitHist);
  }
  const available = all.count > 0;
  const reason = pooledReason(available, pooled, joined.length, others);
  return {
    available,
    ...(reason !== undefined ? { reason } : {}),
    viewers: pooled,
    ...(available ? { ms: all.summaryMs() } : {}),
  };
}
