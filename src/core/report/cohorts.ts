// docs/definitions.md#cohort-figures: the aggregate's figures per cohort, and the unimpaired
// viewers' beside them, each group's viewers pooled exactly as the whole run's are.

import { assignCohorts } from "../link/assign.ts";
import { UNIMPAIRED } from "../link/parse.ts";
import { addCounts, emptyCounts, type LinkRecord } from "../link/types.ts";
import { buildAggregate } from "./aggregate.ts";
import type { ReportInput } from "./input.ts";
import { pooledLayerDelay } from "./layer-delay.ts";
import { type DelayPools, fingerprintPool, type JoinedViewer, type Pool } from "./pooled.ts";
import type { CohortReport, ViewerReport } from "./types.ts";

/** Each viewer id's cohort name ("" unimpaired): its record's, else the scenario's assignment. */
export function cohortNames(input: ReportInput): Map<number, string> {
  const cohorts = input.scenario.cohorts ?? [];
  const out = new Map<number, string>();
  if (cohorts.length === 0) return out;
  const n = Math.max(input.requestedViewers, input.viewers.length);
  const assigned = assignCohorts(cohorts, n);
  for (let id = 0; id < n; id++) out.set(id, cohorts[assigned[id] ?? -1]?.name ?? "");
  for (const v of input.viewers) out.set(v.record.id, v.record.cohort ?? "");
  return out;
}

function linkSum(viewers: readonly ViewerReport[]): LinkRecord {
  let down = emptyCounts();
  let up = emptyCounts();
  for (const v of viewers) {
    if (v.link === undefined) continue;
    down = addCounts(down, v.link.down);
    up = addCounts(up, v.link.up);
  }
  return { down, up };
}

/** A cohort's figures and its viewers' first fingerprint blocks pooled (the HTML report's charts). */
export interface CohortGroup {
  report: CohortReport;
  pool: Pool;
}

function group(
  input: ReportInput,
  name: string,
  viewers: readonly ViewerReport[],
  joined: readonly JoinedViewer[],
  asked: number,
): CohortGroup {
  const pool = fingerprintPool(joined);
  const a = buildAggregate({ ...input, requestedViewers: asked }, viewers, joined, pool);
  const fp = a.oneWayDelay[0];
  const report: CohortReport = {
    name: name === "" ? UNIMPAIRED : name,
    impaired: name !== "",
    viewers: a.viewers,
    joined: a.joined,
    joinFirstKeyframeMs: a.joinFirstKeyframeMs,
    packetsReceived: a.packetsReceived,
    packetsLost: a.packetsLost,
    lossPercentTotal: a.lossPercentTotal,
    ...(a.lossPercentTotalReason !== undefined ? { lossPercentTotalReason: a.lossPercentTotalReason } : {}),
    nacksSent: a.nacksSent,
    stalls: a.stalls,
    lateCompletedFrames: fp?.lateCompletedFrames ?? 0,
    incompleteFrames: fp?.incompleteFrames ?? 0,
    oneWayDelay: a.oneWayDelay,
    ...(a.render !== undefined ? { render: a.render } : {}),
    ...(name !== "" ? { link: linkSum(viewers) } : {}),
  };
  const layerDelay = pooledLayerDelay(
    input.scenario.simulcast,
    joined.map((j) => j.record),
  );
  if (layerDelay !== undefined) report.layerDelay = layerDelay;
  return { report, pool };
}

/**
 * The cohorts in scenario order, then the unimpaired viewers (when there are any); absent without
 * cohorts.
 */
export function cohortReports(
  input: ReportInput,
  viewers: readonly ViewerReport[],
  joined: readonly JoinedViewer[],
): CohortGroup[] | undefined {
  const cohorts = input.scenario.cohorts ?? [];
  if (cohorts.length === 0) return undefined;
  const names = cohortNames(input);
  const asked = new Map<string, number>();
  for (const name of names.values()) asked.set(name, (asked.get(name) ?? 0) + 1);
  const groups = [...cohorts.map((c) => c.name), ...((asked.get("") ?? 0) > 0 ? [""] : [])];
  return groups.map((g) =>
    group(
      input,
      g,
      viewers.filter((v) => (names.get(v.id) ?? "") === g),
      joined.filter((j) => (names.get(j.record.id) ?? "") === g),
      asked.get(g) ?? 0,
    ),
  );
}

/** The run's fingerprint pool and each cohort's (already made with its figures). */
export function delayPools(
  joined: readonly JoinedViewer[],
  groups: readonly CohortGroup[] | undefined,
): DelayPools {
  const all = fingerprintPool(joined);
  return groups === undefined ? { all } : { all, cohorts: groups.map((g) => g.pool) };
}
