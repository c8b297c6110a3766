// What a finished run hands the report builder: the viewers' records decoded and ordered, the
// client's own figures (machine, resources, threads, ceiling), the send log's clip figures and the
// clock block (which clock the one-way delay was read on).
import { arch, cpus, platform } from "node:os";
import { type ClipIdentity, clipHashOf } from "../../core/delay/fingerprint.ts";
import type { SendLog } from "../../core/delay/sendlog.ts";
import { type CeilingThresholds, ceilingVerdict } from "../../core/report/ceiling.ts";
import { THREAD_CARRIED, type ThreadCarried } from "../../core/report/client-types.ts";
import { decodeViewer } from "../../core/report/decode.ts";
import type { ReportInput, SendStamps, ViewerInput } from "../../core/report/input.ts";
import type { ClockBlock, TimelineEntry, UdpDropsReport, WorkerReport } from "../../core/report/types.ts";
import { viewScenario } from "../../core/report/view-codec.ts";
import type { Schedule } from "../../core/scenario/schedule.ts";
import type { Scenario } from "../../core/scenario/types.ts";
import type { ViewerRecord } from "../../core/types.ts";
import type { ThreadFigures } from "../../net/thread-profile.ts";
import type { ShardProfile } from "../../workers/protocol.ts";
import type { ResourceFigures } from "../observe/resources.ts";
import type { UdpErrors } from "../observe/udp-drops.ts";
import { version } from "../process/version.ts";
import type { PublisherResult } from "../publisher/publisher.ts";
import type { SplitPeers } from "../split/split-peers.ts";
import { clientLag, pooledDelayP99Ms, stampSources, threadLoads } from "./run-lag.ts";

export interface RunOutcome {
  command: "run" | "view";
  interrupted: boolean;
  scenario: Scenario;
  /** engine worker threads (0: viewers in the main thread) */
  workers: number;
  ceiling?: CeilingThresholds | undefined;
  startedAtUnixNs: bigint;
  finishedAtUnixNs: bigint;
  /** this process published: one monotonic clock reads both ends */
  publishing: boolean;
  publisherFailed: boolean;
  publisher: PublisherResult | null;
  /** the publisher's send instants by source: this process's publisher's, or the send-log channel's */
  sendStamps?: SendStamps | undefined;
  clock: ClockBlock;
  sendLog: SendLog | null;
  identity: ClipIdentity | null;
  duplicateFrames: number;
  /** null when the viewers never ran (the publisher failed to connect) */
  schedule: Schedule | null;
  /** the viewers' t0 (monotonic ns); 0 when they never ran */
  t0MonoNs: number;
  /** loopback candidates were added because a server host is on loopback (process/ice-choice.ts) */
  autoLoopback: boolean;
  records: ViewerRecord[];
  profiles: ShardProfile[];
  timeline: TimelineEntry[];
  mainThread: ThreadFigures;
  udp: UdpErrors | null;
  /** the in-process relay's sockets' drops over the run, or why unreadable; absent without one */
  relayDrops?: number | string;
  resources: ResourceFigures;
}

/** Node's process.arch in Go's GOARCH words. */
export function goArch(a: string): string {
  return a === "x64" ? "amd64" : a === "ia32" ? "386" : a;
}

/** One key of a thread's profile, where it has one (a generic key keeps the two sides one type). */
function carry<K extends keyof ThreadCarried>(to: ThreadCarried, from: ThreadCarried, k: K): void {
  const v = from[k];
  if (v !== undefined) to[k] = v;
}

/** What the thread says of itself: every key THREAD_CARRIED names (the required ones always hold one). */
function carried(p: ShardProfile): ThreadCarried {
  const w = {} as ThreadCarried;
  for (const k of Object.keys(THREAD_CARRIED) as (keyof ThreadCarried)[]) carry(w, p, k);
  return w;
}

export function workerReport(p: ShardProfile): WorkerReport {
  const w: WorkerReport = carried(p);
  if (p.packets > 0) w.usPerPacket = (p.cpuSeconds * 1e6) / p.packets;
  // a count wherever the thing could happen: every thread that stamped datagrams through its intake
  if (p.stamps !== undefined || p.intakeDropped > 0) w.intakeDropped = p.intakeDropped;
  if (p.stamps !== undefined) {
    w.stampSource = p.stamps.source;
    w.kernelStamped = p.stamps.kernelStamped;
    w.threadStamped = p.stamps.threadStamped;
    if (p.stamps.threadReason !== undefined) w.stampReason = p.stamps.threadReason;
    if (p.stamps.threadLagMs !== undefined) w.threadStampedLagMs = p.stamps.threadLagMs;
  }
  return w;
}

function viewerInputs(
  records: ViewerRecord[],
  schedule: Schedule | null,
  t0: number,
  requested: number,
): ViewerInput[] {
  const churn = (schedule?.churn ?? null) !== null;
  return records
    .slice()
    .sort((a, b) => a.id - b.id)
    .map((r) => {
      const v: ViewerInput = {
        record: decodeViewer(r),
        startOffsetNs: startOffsetNs(r, t0, schedule),
      };
      const off = schedule?.rampOffsetNs?.[r.id];
      if (off !== undefined) v.rampOffsetNs = off;
      if (churn) Object.assign(v, churnFields(r, t0, schedule, requested));
      return v;
    });
}

/**
 * docs/definitions.md#churn-figures: when the viewer stopped (as it happened; 0 when it never
 * started), whether it is a late joiner (an id beyond the first viewers) and whether it ran and
 * its lifetime ended before the viewers' deadline.
 */
function churnFields(
  r: ViewerRecord,
  t0: number,
  schedule: Schedule | null,
  requested: number,
): Pick<ViewerInput, "stopOffsetNs" | "lateJoiner" | "left"> {
  const scheduledStop = schedule?.churn?.stopNs[r.id];
  const ran = r.postMonoNs !== undefined;
  return {
    stopOffsetNs: r.stopMonoNs !== undefined ? Math.max(0, r.stopMonoNs - t0) : 0,
    ...(r.id >= requested ? { lateJoiner: true } : {}),
    ...(ran && scheduledStop !== undefined && scheduledStop < (schedule?.viewersPhaseNs ?? 0)
      ? { left: true }
      : {}),
  };
}

/**
 * A viewer's start after t0 as it happened: when it sent its WHEP POST (its scheduled instant
 * plus its own ICE gathering); a viewer that sent none shows its scheduled instant, one that
 * never started 0.
 */
function startOffsetNs(r: ViewerRecord, t0: number, schedule: Schedule | null): number {
  if (r.postMonoNs !== undefined) return r.postMonoNs - t0;
  return r.errorKind === "not_started" ? 0 : (schedule?.startNs[r.id] ?? 0);
}

/** client.sendStamps where frames were logged and their sources are known (an older peer's are not). */
function sendStampsOf(log: SendLog | null, s: SendStamps | undefined): { sendStamps?: SendStamps } {
  return log !== null && s !== undefined && s.kernel + s.handover > 0 ? { sendStamps: s } : {};
}

/** client.udpDrops (docs/definitions.md#udp-drops): whose sockets the kernel dropped datagrams on. */
function udpDrops(opts: RunOutcome): UdpDropsReport {
  const unread = opts.profiles.find((p) => p.socketDrops === undefined);
  const own =
    unread === undefined
      ? { own: opts.profiles.reduce((n, p) => n + (p.socketDrops ?? 0), 0) }
      : {
          ownReason: `shard ${unread.shard}: ${unread.socketDropsReason ?? "its sockets' drops were not read"}`,
        };
  const r = opts.relayDrops;
  return {
    ...own,
    ...(typeof r === "number" ? { relay: r } : typeof r === "string" ? { relayReason: r } : {}),
    ...(opts.udp ? { host: opts.udp } : {}),
  };
}

export function reportInput(opts: RunOutcome): ReportInput {
  const { resources: figures, sendLog } = opts;
  const viewers = viewerInputs(opts.records, opts.schedule, opts.t0MonoNs, opts.scenario.viewers);
  const lag = clientLag(opts.profiles, opts.publisher);
  const input: ReportInput = {
    command: opts.command,
    interrupted: opts.interrupted,
    startedAtUnixNs: opts.startedAtUnixNs,
    finishedAtUnixNs: opts.finishedAtUnixNs,
    version: version(),
    // a view offers every codec: its scenario names what its viewers negotiated
    scenario:
      opts.command === "view"
        ? viewScenario(
            opts.scenario,
            opts.records.map((r) => r.codec),
          )
        : opts.scenario,
    client: { os: platform(), arch: goArch(arch()), cpus: cpus().length, runtime: `node ${process.version}` },
    resources: {
      cpuSeconds: figures.cpuSeconds,
      ...(figures.cpuUtilisationPercent !== undefined
        ? { cpuUtilisationPercent: figures.cpuUtilisationPercent }
        : {}),
      peakHeapBytes: figures.peakHeapBytes,
      peakRssBytes: figures.peakRssBytes,
      workers: opts.workers,
      mainThread: opts.mainThread,
      ...(opts.udp ? { udpReceiveErrors: opts.udp } : {}),
    },
    workers: opts.profiles.map(workerReport),
    udpDrops: udpDrops(opts),
    ...lag,
    ...stampSources(opts.profiles),
    ...sendStampsOf(sendLog, opts.sendStamps),
    ceiling: ceilingVerdict(
      threadLoads(opts.mainThread, opts.profiles, lag.publisherSendLagMs?.p99),
      opts.udp,
      opts.ceiling,
      pooledDelayP99Ms(viewers),
    ),
    topology: opts.publishing ? "single-process" : "split",
    clock: opts.clock,
    viewers,
    requestedViewers: opts.scenario.viewers,
    hasSendLog: sendLog !== null,
    loopFrames: sendLog !== null ? (opts.identity?.fingerprints.length ?? 0) : 0,
    duplicateFrames: opts.duplicateFrames,
    ...(sendLog !== null && opts.identity !== null ? { clipHash: clipHashOf(opts.identity) } : {}),
    loopMinNs: sendLog?.loopMinNs ?? -1,
    timeline: opts.timeline,
    publisherFailedToConnect: opts.publisherFailed,
    ...(opts.autoLoopback ? { autoLoopback: true } : {}),
  };
  if (opts.publisher) input.publisher = opts.publisher;
  return input;
}

/** Monotonic when this process publishes; a split run's exchange; else none. */
export function clockBlock(
  publishing: boolean,
  split: SplitPeers | null,
  clocks: { startMono: number; steps: { stepDetected: boolean } },
): ClockBlock {
  if (publishing) {
    return { method: "monotonic", offsetMs: 0, uncertaintyMs: 0, stepDetected: clocks.steps.stepDetected };
  }
  return (
    split?.clockBlock(clocks.startMono, clocks.steps.stepDetected) ?? { method: "none", stepDetected: false }
  );
}
