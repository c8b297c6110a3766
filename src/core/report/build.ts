// buildReport: the whole report object (docs/definitions.md#report) from the run's results, keys in
// schema order.

import { rfc3339Nano } from "../go-compat/fmt.ts";
import { cohortsJson } from "../link/assign.ts";
import { host, redactScenario } from "../redact.ts";
import { churnJson } from "../scenario/churn.ts";
import type { Scenario } from "../scenario/types.ts";
import type { ViewerRecord } from "../types.ts";
import { buildAggregate } from "./aggregate.ts";
import { pooledAudio, viewerAudio } from "./audio.ts";
import { churnReport } from "./churn.ts";
import { clientBlock, clientBoundReason } from "./client-block.ts";
import { cohortNames, cohortReports, delayPools } from "./cohorts.ts";
import type { PublisherInput, ReportInput } from "./input.ts";
import { pooledLayerSwitches, viewerLayerChoice } from "./layer-choice.ts";
import { pooledLayerDelay, viewerLayers } from "./layer-delay.ts";
import { methodLines } from "./method-lines.ts";
import type { DelayPools, JoinedViewer } from "./pooled.ts";
import { compareBytes } from "./reasons.ts";
import { addReferenceBlocks } from "./reference.ts";
import { viewerRenderBlock } from "./render.ts";
import {
  type Aggregate,
  type ClockBlock,
  type PublisherReport,
  REPORT_SCHEMA,
  type Report,
  type ReportClient,
  type ReportScenario,
  type ViewerReport,
} from "./types.ts";
import { viewerReport } from "./viewer-blocks.ts";

function nonEmpty<K extends string, V extends string>(key: K, text: V | undefined): { [P in K]?: V } {
  return text === undefined || text === "" ? {} : ({ [key]: text } as { [P in K]?: V });
}

function nonZero<K extends string>(key: K, n: number | undefined): { [P in K]?: number } {
  return n === undefined || n === 0 ? {} : ({ [key]: n } as { [P in K]?: number });
}

/**
 * docs/definitions.md#scenario-keys in key order with the omitempty rules, from an already redacted
 * scenario.
 */
export function reportScenario(s: Scenario): ReportScenario {
  return {
    ...nonEmpty("name", s.name),
    ...nonEmpty("whip", s.whip),
    whep: s.whep,
    ...nonEmpty("codec", s.codec),
    ...nonEmpty("clip", s.clip),
    viewers: s.viewers,
    rampSeconds: s.rampSeconds ?? 0,
    holdSeconds: s.holdSeconds,
    ...(s.rampOffsetSeed !== undefined ? { rampOffsetSeed: s.rampOffsetSeed } : {}),
    ...nonZero("rampOffsetMaxSeconds", s.rampOffsetMaxSeconds),
    ...nonZero("warmupSeconds", s.warmupSeconds),
    ...nonZero("joinTimeoutSeconds", s.joinTimeoutSeconds),
    ...nonZero("stallMs", s.stallMs),
    ...(s.excludeFirstSeconds !== undefined ? { excludeFirstSeconds: s.excludeFirstSeconds } : {}),
    ...nonEmpty("bearerEnv", s.bearerEnv),
    ...nonEmpty("metrics", s.metrics),
    ...(s.includeLoopback === true ? { includeLoopback: true } : {}),
    ...(s.loopbackOnly === true ? { loopbackOnly: true } : {}),
    ...nonZero("workers", s.workers),
    ...nonEmpty("receivePath", s.receivePath),
    ...nonEmpty("stampSource", s.stampSource),
    ...nonEmpty("viewerSockets", s.viewerSockets),
    ...(s.keyframeOnRequest !== undefined ? { keyframeOnRequest: s.keyframeOnRequest } : {}),
    ...nonEmpty("keyframeRequests", s.keyframeRequests),
    ...nonEmpty("viewerProfile", s.viewerProfile),
    ...(s.audio === true ? { audio: true } : {}),
    ...nonZero("referenceViewers", s.referenceViewers),
    ...(s.simulcast !== undefined ? { simulcast: [...s.simulcast] } : {}),
    ...(s.layerSwitch !== undefined ? { layerSwitch: { ...s.layerSwitch } } : {}),
    ...(s.cohorts !== undefined && s.cohorts.length > 0 ? { cohorts: cohortsJson(s.cohorts) } : {}),
    ...(s.churn !== undefined ? { churn: churnJson(s.churn) } : {}),
  };
}

function publisherReport(p: PublisherInput, joined: number): PublisherReport {
  const requests = (p.pliReceived ?? 0) + (p.firReceived ?? 0);
  return {
    codec: p.codec,
    stamped: p.stamped,
    connectMs: p.connectNs / 1e6,
    framesSent: p.framesSent,
    packetsSent: p.packetsSent,
    bytesSent: p.bytesSent,
    loops: p.loops,
    scheduleSlips: p.scheduleSlips,
    sendingSeconds: p.sendingNs / 1e9,
    pliReceived: p.pliReceived ?? 0,
    firReceived: p.firReceived ?? 0,
    keyframesOnRequest: p.keyframesOnRequest ?? 0,
    ...(joined > 0 ? { keyframeRequestsPerJoin: requests / joined } : {}),
    ...nonEmpty("error", p.error),
    ...nonEmpty("errorKind", p.errorKind),
    ...(p.disconnectedLate === true ? { disconnectedLate: true } : {}),
    ...(p.audio !== undefined ? { audio: { ...p.audio } } : {}),
  };
}

/** docs/definitions.md#clock-block clock in key order. */
function clockBlock(c: ClockBlock): ClockBlock {
  return {
    method: c.method,
    ...(c.offsetMs !== undefined ? { offsetMs: c.offsetMs } : {}),
    ...(c.uncertaintyMs !== undefined ? { uncertaintyMs: c.uncertaintyMs } : {}),
    ...(c.points !== undefined && c.points.length > 0
      ? { points: c.points.map((p) => ({ tS: p.tS, offsetMs: p.offsetMs, rttMs: p.rttMs })) }
      : {}),
    ...nonEmpty("reason", c.reason),
    stepDetected: c.stepDetected,
  };
}

/** docs/definitions.md#error-kinds counts by error kind, keys sorted. */
function errorCounts(
  viewers: readonly ViewerReport[],
  publisher: PublisherInput | undefined,
): Record<string, number> {
  const counts = new Map<string, number>();
  const bump = (kind: string): void => {
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
  };
  for (const v of viewers) if (v.errorKind !== undefined) bump(v.errorKind);
  if (publisher?.errorKind !== undefined) bump(`publisher_${publisher.errorKind}`);
  const out: Record<string, number> = {};
  for (const k of [...counts.keys()].sort(compareBytes)) out[k] = counts.get(k) ?? 0;
  return out;
}

/** A viewer's simulcast blocks: `layers` and `layerChoice`, each only when it has one. */
function layerBlocks(
  rids: readonly string[] | undefined,
  r: Parameters<typeof viewerLayers>[1] & Pick<ViewerRecord, "layerChoice" | "postMonoNs">,
): Pick<ViewerReport, "layers" | "layerChoice"> {
  const layers = viewerLayers(rids, r);
  const choice = viewerLayerChoice(r);
  return {
    ...(layers !== undefined ? { layers } : {}),
    ...(choice !== undefined ? { layerChoice: choice } : {}),
  };
}

/** The aggregate's simulcast blocks: the layer switches pooled, the delay per layer. */
function addLayerBlocks(
  aggregate: Aggregate,
  rids: readonly string[] | undefined,
  viewers: readonly ViewerReport[],
  joined: readonly JoinedViewer[],
): void {
  const switches = pooledLayerSwitches(viewers.flatMap((v) => (v.layerChoice ? [v.layerChoice] : [])));
  if (switches !== undefined) aggregate.layerSwitches = switches;
  const layerDelay = pooledLayerDelay(
    rids,
    joined.map((j) => j.record),
  );
  if (layerDelay !== undefined) aggregate.layerDelay = layerDelay;
}

export function buildReport(input: ReportInput): Report {
  return buildReportParts(input).report;
}

/** The report, and its one-way delay pools (the HTML report charts them: distribution.ts). */
export function buildReportParts(input: ReportInput): { report: Report; pools: DelayPools } {
  const clock = clockBlock(input.clock);
  const ordered = [...input.viewers].sort((a, b) => a.record.id - b.record.id);
  const viewers: ViewerReport[] = [];
  const joined: JoinedViewer[] = [];
  const names = cohortNames(input);
  for (const v of ordered) {
    const cohort = names.get(v.record.id) ?? "";
    const { recoveryHist: recovery, pliKeyframeHist: pliKeyframe } = v.record;
    const block = viewerRenderBlock({
      render: v.record.render,
      codec: v.record.codec,
      recovery,
      pliKeyframe,
    });
    const bound = clientBoundReason(input.ceiling);
    const report = viewerReport(v, input.hasSendLog, clock, bound, cohort, block);
    if (input.scenario.audio === true) report.audio = viewerAudio(v.record.audio);
    Object.assign(report, layerBlocks(input.scenario.simulcast, v.record));
    viewers.push(report);
    if (report.joined) {
      const [delay, stamp] = report.oneWayDelay;
      // internal: invariant, every viewer record carries its one-way delay blocks
      if (delay === undefined || stamp === undefined)
        throw new Error("internal error: a viewer without its blocks");
      const render = { block, recovery, pliKeyframe };
      joined.push({ record: v.record, delay, stamp, transit: report.packetTransit, render });
    }
  }
  const whip = input.scenario.whip ?? "";
  const redacted = redactScenario(input.scenario);
  const client: ReportClient = clientBlock(input);
  const cohorts = cohortReports(input, viewers, joined);
  const pools = delayPools(joined, cohorts);
  const aggregate = buildAggregate(input, viewers, joined, pools.all);
  if (cohorts !== undefined) aggregate.cohorts = cohorts.map((c) => c.report);
  if (input.scenario.churn !== undefined) aggregate.churn = churnReport(input.viewers, viewers);
  aggregate.audio = pooledAudio(
    input.scenario.audio === true,
    input.viewers.map((v) => v.record.audio),
  );
  if (input.reference !== undefined) addReferenceBlocks(aggregate, input.reference, input.scenario);
  addLayerBlocks(aggregate, input.scenario.simulcast, viewers, joined);
  const report: Report = {
    schema: REPORT_SCHEMA,
    whipbenchVersion: input.version,
    command: input.command,
    ...(input.interrupted ? { interrupted: true } : {}),
    startedAt: rfc3339Nano(input.startedAtUnixNs),
    finishedAt: rfc3339Nano(input.finishedAtUnixNs),
    server: {
      ...(whip !== "" ? { whipHost: host(whip) } : {}),
      whepHost: host(input.scenario.whep),
      ...nonEmpty("serverVersion", input.scenario.serverVersion),
      ...nonEmpty("plan", input.scenario.plan),
      ...nonEmpty("region", input.scenario.region),
      ...nonEmpty("permission", input.scenario.permission),
    },
    client,
    topology: input.topology,
    clock,
    scenario: reportScenario(redacted),
    ...(input.publisher !== undefined ? { publisher: publisherReport(input.publisher, joined.length) } : {}),
    aggregate,
    errors: errorCounts(viewers, input.publisher),
    ...(input.timeline.length > 0
      ? {
          timeline: input.timeline.map((e) => ({
            t: e.t,
            active: e.active,
            packets: e.packets,
            ...(e.cpuPercent !== undefined ? { cpuPercent: e.cpuPercent } : {}),
            ...(e.eventLoopDelayMs !== undefined ? { eventLoopDelayMs: e.eventLoopDelayMs } : {}),
            ...(e.receiveLagMs !== undefined ? { receiveLagMs: e.receiveLagMs } : {}),
            ...(e.viewersFrozen !== undefined ? { viewersFrozen: e.viewersFrozen } : {}),
            ...(e.viewersFrozenByCohort !== undefined
              ? { viewersFrozenByCohort: { ...e.viewersFrozenByCohort } }
              : {}),
          })),
        }
      : {}),
    viewers: input.publisherFailedToConnect ? null : viewers,
    method: methodLines({
      hasRampOffsetSeed: input.scenario.rampOffsetSeed !== undefined,
      clock,
      hasResources: input.resources !== undefined,
      publisherKnown: input.command === "run" || input.hasSendLog,
      ...(input.scenario.keyframeOnRequest === false ? { keyframeOnRequest: false } : {}),
      ...(input.autoLoopback ? { autoLoopback: true } : {}),
      ...(input.scenario.churn !== undefined ? { churn: true } : {}),
      ...((input.scenario.cohorts ?? []).length > 0 ? { cohorts: true } : {}),
      ...(input.scenario.audio === true ? { audio: true } : {}),
      ...(input.reference !== undefined ? { reference: true } : {}),
      ...(input.scenario.viewerProfile !== undefined ? { viewerProfile: input.scenario.viewerProfile } : {}),
      ...(input.scenario.simulcast !== undefined ? { simulcast: input.scenario.simulcast } : {}),
    }),
  };
  return { report, pools };
}
