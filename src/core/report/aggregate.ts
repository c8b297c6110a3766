// The aggregate (docs/definitions.md#aggregate): counts, exact summaries over joined viewers, sums,
// pooled blocks and verdict.

import type { ViewerRatioKey, ViewerSumKey, ViewerSummaryKey } from "../figures/pooled-keys.ts";
import { pooledFromViewers, valueAt } from "../figures/registry.ts";
import { exactSummary } from "../stats/summaries.ts";
import type { Summary } from "../types.ts";
import { clientBoundReason } from "./client-block.ts";
import type { ReportInput } from "./input.ts";
import { type JoinedViewer, type Pool, pooledDelayBlock, pooledTransitBlock } from "./pooled.ts";
import { NO_PACKET_EXPECTED_REASON } from "./reasons.ts";
import { pooledRenderBlock } from "./render.ts";
import { pooledStampBlock } from "./stamp-blocks.ts";
import type { Aggregate, ViewerReport } from "./types.ts";
import { decideVerdict, failedPercent } from "./verdict.ts";

/** Values of one key over the joined viewers that have it. */
function present(values: readonly unknown[]): number[] {
  return values.filter((v): v is number => typeof v === "number");
}

/** A joined viewer's count at a declaration's key path: every joined viewer carries each it sums. */
function countAt(v: ViewerReport, path: string): number {
  const n = valueAt(v, path);
  // internal: invariant, the viewer's builder sets it (test/unit/figure-registry.test.ts checks the fixtures)
  if (typeof n !== "number") throw new Error(`internal error: viewer ${v.id} has no count ${path}`);
  return n;
}

/** What the aggregate pools from the joined viewers' report objects (Aggregate's ViewerPooled). */
type Pooled = Pick<Aggregate, ViewerSummaryKey | ViewerSumKey | ViewerRatioKey>;

/**
 * The figures pooled over the joined viewers, one per declaration with a `viewer` source
 * (core/figures/registry.ts pooledFromViewers), in the report's key order: an exact summary of each
 * viewer's value, a sum of each viewer's count, or a ratio of sums: null when the whole is 0 (nothing
 * was expected, so nothing measured it), with `<key>Reason` after it saying so.
 */
function pooledOverViewers(joined: readonly ViewerReport[]): Pooled {
  const sumAt = (path: string): number => joined.reduce((a, v) => a + countAt(v, path), 0);
  const out: Record<string, Summary | number | string | null> = {};
  for (const p of pooledFromViewers()) {
    if (p.pool === "ofSums") {
      const whole = p.of.reduce((a, path) => a + sumAt(path), 0);
      out[p.key] = whole === 0 ? null : (sumAt(p.part) / whole) * 100;
      if (whole === 0) out[`${p.key}Reason`] = NO_PACKET_EXPECTED_REASON;
    } else if (p.pool === "sum") {
      out[p.key] = sumAt(p.path);
    } else {
      const kept = p.only === "twoKeyframes" ? joined.filter((v) => v.rtp.keyframes > 1) : joined;
      out[p.key] = exactSummary(present(kept.map((v) => valueAt(v, p.path))));
    }
  }
  return out as Pooled;
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
    ...pooledOverViewers(joinedReports),
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
