// A run (docs/definitions.md#a-run-step-by-step): publisher (when the scenario has `whip`), warmup, the schedule, viewers sharded
// over the engine, the per-second timeline, then everything the report builder needs.
import { arch, cpus, platform } from "node:os";
import { type CeilingThresholds, ceilingVerdict } from "../core/ceiling.ts";
import { type Clip, loadClip } from "../core/clip/clip.ts";
import { type ClipIdentity, ClipTable, clipIdentity, createHasher } from "../core/fingerprint.ts";
import { host } from "../core/redact.ts";
import type { ReportInput, ViewerInput } from "../core/report/input.ts";
import type { ClockBlock, TimelineEntry } from "../core/report/types.ts";
import { buildSchedule, type Scenario } from "../core/scenario.ts";
import { SendLog } from "../core/sendlog.ts";
import { StepWatch } from "../core/stepwatch.ts";
import type { ViewerRecord } from "../core/types.ts";
import { edgeWallReading, monoNs, takeWallAnchor, wallNowUnixNs } from "../net/clock.ts";
import type { IceOptions } from "../net/rtc.ts";
import { ThreadProfile } from "../net/thread-profile.ts";
import type { ShardProfile, ShardTick } from "../workers/shard.ts";
import { decodeRecord } from "./decode.ts";
import type { Engine } from "./engine.ts";
import type { Logger } from "./log.ts";
import { Publisher, type PublisherResult } from "./publisher.ts";
import { ResourceWatch } from "./resources.ts";
import { goArch, logStart, shardTasks, sleepUnless, timelineEntry, workerReport } from "./run-parts.ts";
import { type Peer, SplitPeers } from "./split.ts";
import { udpErrorsDelta, udpReceiveErrors } from "./udp-drops.ts";
import { version } from "./version.ts";

export interface RunOptions {
  command: "run" | "view";
  scenario: Scenario;
  bearer: string | undefined;
  engine: Engine;
  log: Logger;
  /** aborted on SIGINT/SIGTERM: the run ends early and the report is marked interrupted */
  interrupt: AbortSignal;
  /** publisher without abs-capture-time */
  noStamp?: boolean;
  /** live per-second hook (progress, metrics); `entry` is null for a shard's final flush tick */
  onTick?: (entry: TimelineEntry | null, ticks: ShardTick[]) => void;
  /** the publisher's live counters (for /metrics), handed over once it exists */
  onPublisher?: (counters: { readonly packetsSent: number; readonly framesSent: number }) => void;
  /** split runs (view): the publisher's clock responder and send-log channel */
  clockPeer?: Peer | undefined;
  sendLogPeer?: Peer | undefined;
  /** mid-run clock points this often (30 s by default) */
  clockIntervalMs?: number;
  /** thresholds of the ceiling verdict (tests make them tiny) */
  ceiling?: CeilingThresholds;
}

export async function run(opts: RunOptions): Promise<ReportInput> {
  const { scenario: s, log, interrupt } = opts;
  const anchor = takeWallAnchor();
  const ice: IceOptions = {
    loopbackOnly: s.loopbackOnly ?? false,
    includeLoopback: s.includeLoopback ?? false,
  };
  const startedAtUnixNs = wallNowUnixNs(anchor);
  const startMono = monoNs();
  const steps = new StepWatch();
  const observeStep = () => {
    const r = edgeWallReading();
    steps.observe(r.wallNs, r.monoNs);
  };
  observeStep();
  const resources = new ResourceWatch(startMono);
  const publishing = s.whip !== undefined && s.whip !== "";
  const cpuCount = cpus().length || 1;

  let clip: Clip | null = null;
  let sendLog: SendLog | null = null;
  let identity: ClipIdentity | null = null;
  let duplicateFrames = 0;
  let publisher: Publisher | null = null;
  let publisherFailed = false;
  if (publishing) {
    clip = loadClip(s.codec === "h264" ? "h264" : "vp8");
    identity = clipIdentity(await createHasher(), clip);
    duplicateFrames = new ClipTable(null, identity).duplicateFrames;
    sendLog = SendLog.create(clip.frames.length);
    publisher = new Publisher({
      whip: s.whip as string,
      bearer: opts.bearer,
      clip,
      ice,
      noStamp: opts.noStamp ?? false,
      sendLog,
      anchor,
    });
    opts.onPublisher?.(publisher.result);
    log.line(`publishing ${clip.codec} to ${host(s.whip as string)}`);
    try {
      await publisher.connect(interrupt);
      log.line(
        `publisher connected in ${Math.round(publisher.result.connectNs / 1e6)} ms; send-time stamp negotiated: ${publisher.result.stamped}`,
      );
    } catch (err) {
      publisherFailed = true;
      const e = err as { kind?: string; message: string };
      publisher.result.errorKind = e.kind ?? "webrtc";
      publisher.result.error = e.message;
      log.line(`publisher failed: ${e.message}`);
    }
  }

  let split: SplitPeers | null = null;
  if (!publishing && (opts.clockPeer || opts.sendLogPeer)) {
    split = new SplitPeers({
      clockPeer: opts.clockPeer,
      sendLogPeer: opts.sendLogPeer,
      bearer: opts.bearer,
      anchor,
      log,
      ...(opts.clockIntervalMs !== undefined ? { clockIntervalMs: opts.clockIntervalMs } : {}),
    });
  } else if (publishing && opts.clockPeer) {
    log.line("clock peer ignored: this run publishes, so one monotonic clock reads both ends");
  }
  const stopPublisher = new AbortController();
  const streaming = publisher && !publisherFailed ? publisher.stream(stopPublisher.signal) : null;
  let records: ViewerRecord[] = [];
  let profiles: ShardProfile[] = [];
  const mainThread = new ThreadProfile();
  const udpStart = udpReceiveErrors();
  const timeline: TimelineEntry[] = [];
  let schedule: ReturnType<typeof buildSchedule> | null = null;
  if (!publisherFailed) {
    if (publishing) await sleepUnless((s.warmupSeconds ?? 0) * 1000, interrupt);
    if (split) {
      try {
        await split.start();
      } catch (err) {
        log.line(`send-log peer: ${(err as Error).message}; no fingerprint figure`);
      }
      sendLog = split.sendLog;
      identity = split.identity;
      duplicateFrames = split.table?.duplicateFrames ?? 0;
    }
    schedule = buildSchedule(s);
    const t0 = monoNs();
    logStart(log, s);
    const tasks = shardTasks(
      opts,
      s,
      schedule,
      t0,
      anchor,
      ice,
      sendLog,
      identity,
      split?.stampClock ?? null,
    );
    // a per-second entry is keyed by its second, whatever order the shards' ticks arrive in
    const bySecond = new Map<number, ShardTick[]>();
    const cpuBySecond = new Map<number, number>();
    let cpuLast = resources.cpuSecondsSoFar();
    const result = await opts.engine.run(tasks, interrupt, (tick) => {
      if (tick.final) {
        opts.onTick?.(null, [tick]);
        return;
      }
      const list = bySecond.get(tick.second) ?? [];
      list.push(tick);
      bySecond.set(tick.second, list);
      if (list.length === tasks.length) {
        observeStep();
        resources.sample();
        const cpu = resources.cpuSecondsSoFar();
        cpuBySecond.set(tick.second, (100 * (cpu - cpuLast)) / cpuCount);
        cpuLast = cpu;
        opts.onTick?.(timelineEntry(tick.second, list, cpuBySecond.get(tick.second)), list);
      }
    });
    records = result.records;
    profiles = result.profiles;
    for (const second of [...bySecond.keys()].sort((a, b) => a - b)) {
      timeline.push(timelineEntry(second, bySecond.get(second) ?? [], cpuBySecond.get(second)));
    }
  }
  const mainFigures = mainThread.finish();
  const udp = udpErrorsDelta(udpStart, udpReceiveErrors());
  await split?.finish();
  stopPublisher.abort();
  const pub: PublisherResult | null = streaming ? await streaming : (publisher?.result ?? null);
  const finishedMono = monoNs();
  observeStep();
  const figures = resources.finish(finishedMono);
  const finishedAtUnixNs = wallNowUnixNs(anchor);

  const viewers: ViewerInput[] = records
    .slice()
    .sort((a, b) => a.id - b.id)
    .map((r) => {
      const v: ViewerInput = {
        record: decodeRecord(r),
        startOffsetNs: r.errorKind === "not_started" ? 0 : (schedule?.startNs[r.id] ?? 0),
      };
      const off = schedule?.rampOffsetNs?.[r.id];
      if (off !== undefined) v.rampOffsetNs = off;
      return v;
    });
  const clock: ClockBlock = publishing
    ? { method: "monotonic", offsetMs: 0, uncertaintyMs: 0, stepDetected: steps.stepDetected }
    : (split?.clockBlock(startMono, steps.stepDetected) ?? { method: "none", stepDetected: false });
  const input: ReportInput = {
    command: opts.command,
    interrupted: interrupt.aborted,
    startedAtUnixNs,
    finishedAtUnixNs,
    version: version(),
    scenario: s,
    client: { os: platform(), arch: goArch(arch()), cpus: cpus().length, runtime: `node ${process.version}` },
    resources: {
      cpuSeconds: figures.cpuSeconds,
      ...(figures.cpuUtilisationPercent !== undefined
        ? { cpuUtilisationPercent: figures.cpuUtilisationPercent }
        : {}),
      peakHeapBytes: figures.peakHeapBytes,
      peakRssBytes: figures.peakRssBytes,
      workers: opts.engine.workers,
      mainThread: mainFigures,
      ...(udp ? { udpReceiveErrors: udp } : {}),
    },
    workers: profiles.map(workerReport),
    ceiling: ceilingVerdict(
      [
        {
          name: "main",
          eventLoopUtilisation: mainFigures.eventLoopUtilisation,
          eventLoopDelayP99Ms: mainFigures.eventLoopDelayMs.p99,
        },
        ...profiles
          .filter((p) => p.thread === "worker")
          .map((p) => ({
            name: `worker ${p.shard}`,
            eventLoopUtilisation: p.eventLoopUtilisation,
            eventLoopDelayP99Ms: p.eventLoopDelayMs.p99,
          })),
      ],
      udp,
      opts.ceiling,
    ),
    topology: publishing ? "single-process" : "split",
    clock,
    viewers,
    requestedViewers: s.viewers,
    hasSendLog: sendLog !== null,
    loopFrames: sendLog !== null ? (identity?.fingerprints.length ?? 0) : 0,
    duplicateFrames,
    loopMinNs: sendLog?.loopMinNs ?? -1,
    timeline,
    publisherFailedToConnect: publisherFailed,
  };
  if (pub) input.publisher = pub;
  return input;
}
