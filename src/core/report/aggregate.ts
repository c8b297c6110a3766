// The aggregate (docs/definitions.md#aggregate): counts, exact summaries over joined viewers, sums,
// pooled blocks and verdict.

import type { ViewerSummaryKey } from "../figures/delivery.ts";
import { valueAt, viewerSummaries } from "../figures/registry.ts";
import { exactSummary } from "../stats/summaries.ts";
import type { Summary } from "../types.ts";
import { clientBoundReason } from "./client-block.ts";
import type { ReportInput } from "./input.ts";
import { type JoinedViewer, type Pool, pooledDelayBlock, pooledTransitBlock } from "./pooled.ts";
import { pooledRenderBlock } from "./render.ts";
import { pooledStampBlock } from "./stamp-blocks.ts";
import type { Aggregate, ViewerReport } from "./types.ts";
import { decideVerdict, failedPercent } from "./verdict.ts";

/** Values of one key over the joined viewers that have it. */
function present(values: ReadonlyArray<number | undefined>): number[] {
  return values.filter((v): v is number => v !== undefined);
}

/**
 * The exact summaries over the joined viewers, one per declaration with a `viewer` source
 * (core/figures/registry.ts), in the report's key order.
 */
function perViewerSummaries(joined: readonly ViewerReport[]): Record<ViewerSummaryKey, Summary> {
  const out: Record<string, Summary> = {};
  for (const d of viewerSummaries()) {
    const kept = d.viewer.only === "twoKeyframes" ? joined.filter((v) => v.rtp.keyframes > 1) : joined;
    const values = kept.map((v) => valueAt(v, d.viewer.key) as number | undefined);
    out[d.report.replace(/^aggregate\./, "")] = exactSummary(present(values));
  }
  return out as Record<ViewerSummaryKey, Summary>;
}

/**
 * @param viewers every viewer object of the report (joined or not)
 * @param joined the joined viewers with their records and blocks
 * @param pool their first fingerprint blocks pooled (fingerprintPool)
 */
export function buildAggregate(
  input: ReportInput,
  viewers: readonly ViewerReport[],
  joined: readonly JoinedViewer[],
  pool: Pool,
): Aggregate {
  const asked = Math.max(input.requestedViewers, viewers.length);
  const joinedCount = viewers.filter((v) => v.joined).length;
  const failed = asked - joinedCount;
  const joinedReports = viewers.filter((v) => v.joined);
  const sum = (pick: (v: ViewerReport) => number): number => joinedReports.reduce((a, v) => a + pick(v), 0);
  const packetsReceived = sum((v) => v.rtp.received);
  const packetsLost = sum((v) => v.rtp.lost);
  const verdict = decideVerdict({
    ...(input.publisher !== undefined
      ? {
          publisher: {
            framesSent: input.publisher.framesSent,
            ...(input.publisher.errorKind !== undefined ? { errorKind: input.publisher.errorKind } : {}),
          },
        }
      : {}),
    viewers: asked,
    joined: joinedCount,
    failed,
    clientHandshake: viewers.filter((v) => v.errorKind === "client_handshake").length,
    interrupted: input.interrupted,
  });
  return {
    valid: verdict.valid,
    verdict: verdict.verdict,
    viewers: asked,
    joined: joinedCount,
    failed,
    failedPercent: failedPercent(failed, asked),
    droppedAfterJoin: joinedReports.filter((v) => v.droppedAfterJoin === true).length,
    ...perViewerSummaries(joinedReports),
    stalls: sum((v) => v.rtp.stalls),
    packetsReceived,
    packetsLost,
    lossPercentTotal:
      packetsReceived + packetsLost === 0 ? 0 : (packetsLost / (packetsReceived + packetsLost)) * 100,
    nacksSent: sum((v) => v.nacksSent),
    transportFeedbackSent: sum((v) => v.transportFeedbackSent),
    rtxReceived: sum((v) => v.rtxReceived),
    oneWayDelay: [
      pooledDelayBlock(joined.length, pool, {
        hasSendLog: input.hasSendLog,
        loopFrames: input.loopFrames,
        duplicateFrames: input.duplicateFrames,
        clipHash: input.clipHash,
        loopMinNs: input.loopMinNs,
        clock: input.clock,
        clientBound: clientBoundReason(input.ceiling),
      }),
      pooledStampBlock(joined, input.clock, clientBoundReason(input.ceiling)),
    ],
    packetTransit: pooledTransitBlock(joined),
    render: pooledRenderBlock(joined.map((j) => j.render)),
  };
}
