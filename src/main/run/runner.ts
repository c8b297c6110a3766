// A run (docs/definitions.md#a-run-step-by-step) as a sequence of named steps: the clocks start;
// the publisher connects (when the scenario has `whip`) or a split run opens its peers; after the
// warmup the viewers run, sharded over the engine, with the per-second timeline; then everything
// stops in order and the report builder gets what it needs.
import { cpus } from "node:os";
import { loadClip } from "../../core/clip/clip.ts";
import {
  edgeWallReading,
  monoNs,
  takeWallAnchor,
  type WallAnchor,
  wallNowUnixNs,
} from "../../core/clock/clock.ts";
import { StepWatch } from "../../core/clock/stepwatch.ts";
import { type ClipIdentity, ClipTable, clipIdentity, createHasher } from "../../core/delay/fingerprint.ts";
import { SendLog } from "../../core/delay/sendlog.ts";
import { errorMessage } from "../../core/errors.ts";
import { host } from "../../core/redact.ts";
import type { CeilingThresholds } from "../../core/report/ceiling.ts";
import type { ReportInput } from "../../core/report/input.ts";
import type { TimelineEntry } from "../../core/report/types.ts";
import type { Scenario } from "../../core/scenario/scenario.ts";
import { buildSchedule, type Schedule } from "../../core/scenario/schedule.ts";
import type { ViewerRecord } from "../../core/types.ts";
import type { IceOptions } from "../../net/rtc.ts";
import { type ThreadFigures, ThreadProfile } from "../../net/thread-profile.ts";
import type { ShardProfile, ShardTick } from "../../workers/protocol.ts";
import type { Logger } from "../observe/log.ts";
import type { PublisherCounters } from "../observe/metrics.ts";
import { ResourceWatch } from "../observe/resources.ts";
import { type UdpErrors, udpErrorsDelta, udpReceiveErrors } from "../observe/udp-drops.ts";
import type { Peer, SplitPeers } from "../split/split-peers.ts";
import type { Engine } from "./engine.ts";
import { iceFor } from "./ice-choice.ts";
import { Publisher, PublisherError, type PublisherResult } from "./publisher.ts";
import { reportInput } from "./report-input.ts";
import { clockBlock, logStart, openSplitPeers, sleepUnless } from "./run-steps.ts";
import { shardTasks } from "./shard-tasks.ts";
import { Timeline } from "./timeline.ts";

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
  /** every shard tick as the engine delivers it, before the timeline gathers it (/metrics) */
  onShardTick?: (tick: ShardTick) => void;
  /** every frame the publisher sent: its index and send instant (bench:truth) */
  onFrameSent?: (k: number, t0MonoNs: number, i: number) => void;
  /** the publisher's live counters (for /metrics), handed over once it exists */
  onPublisher?: (counters: PublisherCounters) => void;
  /** split runs (view): the publisher's clock responder and send-log channel */
  clockPeer?: Peer | undefined;
  sendLogPeer?: Peer | undefined;
  /** mid-run clock points this often (30 s by default) */
  clockIntervalMs?: number;
  /** thresholds of the ceiling verdict (tests make them tiny) */
  ceiling?: CeilingThresholds;
  /** the wall anchor to share (a many-host coordinator's clock exchange and send log read it too) */
  anchor?: WallAnchor;
}

/** The run's clocks, started before anything else: startedAt, the step watch, the resources. */
export interface RunClocks {
  anchor: WallAnchor;
  startedAtUnixNs: bigint;
  startMono: number;
  steps: StepWatch;
  /** one step-watch observation from a fresh edge reading */
  observeStep(): void;
  resources: ResourceWatch;
}

/** Where the viewers' send log comes from: this process's publisher, a split run's peer, or nowhere. */
export interface SendSide {
  publishing: boolean;
  publisher: Publisher | null;
  /** the publisher was asked for and did not connect: no viewer runs */
  publisherFailed: boolean;
  sendLog: SendLog | null;
  identity: ClipIdentity | null;
  duplicateFrames: number;
}

/** What the viewers' phase leaves behind. */
export interface ViewerPhase {
  schedule: Schedule | null;
  /** the viewers' t0 (monotonic ns); 0 when they never ran */
  t0MonoNs: number;
  records: ViewerRecord[];
  profiles: ShardProfile[];
  timeline: TimelineEntry[];
}

export async function run(opts: RunOptions): Promise<ReportInput> {
  const clocks = startClocks(opts.anchor);
  const s = opts.scenario;
  const { ice, autoLoopback } = iceFor([s.whip, s.whep], s, opts.log);
  const send = await connectPublisher(opts, clocks.anchor, ice);
  const split = openSplitPeers(opts, send.publishing, clocks.anchor);
  const stopPublisher = new AbortController();
  const streaming =
    send.publisher && !send.publisherFailed ? send.publisher.stream(stopPublisher.signal) : null;
  const measured = await measuredViewers(opts, clocks, ice, send, split);
  await split?.finish();
  stopPublisher.abort();
  const pub: PublisherResult | null = streaming ? await streaming : (send.publisher?.result ?? null);
  const finishedMono = monoNs();
  clocks.observeStep();
  const resources = clocks.resources.finish(finishedMono);
  return reportInput({
    command: opts.command,
    interrupted: opts.interrupt.aborted,
    scenario: opts.scenario,
    workers: opts.engine.workers,
    ceiling: opts.ceiling,
    startedAtUnixNs: clocks.startedAtUnixNs,
    finishedAtUnixNs: wallNowUnixNs(clocks.anchor),
    ...sendFields(send),
    publisher: pub,
    clock: clockBlock(send.publishing, split, clocks),
    ...measured,
    autoLoopback,
    resources,
  });
}

export function startClocks(given?: WallAnchor): RunClocks {
  const anchor = given ?? takeWallAnchor();
  const startedAtUnixNs = wallNowUnixNs(anchor);
  const startMono = monoNs();
  const steps = new StepWatch();
  const observeStep = () => {
    const r = edgeWallReading();
    steps.observe(r.wallNs, r.monoNs);
  };
  observeStep();
  return { anchor, startedAtUnixNs, startMono, steps, observeStep, resources: new ResourceWatch(startMono) };
}

/** With `whip`: the clip, its send log and the publisher, connected (or failed, with its error). */
export async function connectPublisher(
  opts: RunOptions,
  anchor: WallAnchor,
  ice: IceOptions,
): Promise<SendSide> {
  const { scenario: s, log } = opts;
  const none: SendSide = {
    publishing: false,
    publisher: null,
    publisherFailed: false,
    sendLog: null,
    identity: null,
    duplicateFrames: 0,
  };
  if (s.whip === undefined || s.whip === "") return none;
  const clip = loadClip(s.codec === "h264" ? "h264" : "vp8");
  const identity = clipIdentity(await createHasher(), clip);
  const sendLog = SendLog.create(clip.frames.length);
  const publisher = new Publisher({
    whip: s.whip,
    bearer: opts.bearer,
    clip,
    ice,
    noStamp: opts.noStamp ?? false,
    sendLog,
    anchor,
    keyframeOnRequest: s.keyframeOnRequest !== false,
    ...(opts.onFrameSent !== undefined ? { onFrameSent: opts.onFrameSent } : {}),
  });
  const side: SendSide = {
    publishing: true,
    publisher,
    publisherFailed: false,
    sendLog,
    identity,
    duplicateFrames: new ClipTable(null, identity).duplicateFrames,
  };
  opts.onPublisher?.({
    get packetsSent() {
      return publisher.result.packetsSent;
    },
    get framesSent() {
      return publisher.result.framesSent;
    },
    sendLagP99Ns: () => publisher.sendLagP99Ns(),
  });
  log.line(`publishing ${clip.codec} to ${host(s.whip)}`);
  try {
    await publisher.connect(opts.interrupt);
    log.line(
      `publisher connected in ${Math.round(publisher.result.connectNs / 1e6)} ms; send-time stamp negotiated: ${publisher.result.stamped}`,
    );
  } catch (err) {
    side.publisherFailed = true;
    publisher.result.errorKind = err instanceof PublisherError ? err.kind : "webrtc";
    publisher.result.error = errorMessage(err);
    log.line(`publisher failed: ${publisher.result.error}`);
  }
  return side;
}

/**
 * The viewers' phase (none when the publisher failed to connect), with the main thread's figures
 * and the kernel's UDP receive drops over it.
 */
export async function measuredViewers(
  opts: RunOptions,
  clocks: RunClocks,
  ice: IceOptions,
  send: SendSide,
  split: SplitPeers | null,
): Promise<ViewerPhase & { mainThread: ThreadFigures; udp: UdpErrors | null }> {
  const mainThread = new ThreadProfile();
  const udpStart = udpReceiveErrors();
  const phase = send.publisherFailed
    ? { schedule: null, t0MonoNs: 0, records: [], profiles: [], timeline: [] }
    : await runViewers(opts, clocks, ice, send, split);
  return { ...phase, mainThread: mainThread.finish(), udp: udpErrorsDelta(udpStart, udpReceiveErrors()) };
}

/** What the report input takes from the send side. */
export function sendFields(send: SendSide) {
  const { publishing, publisherFailed, sendLog, identity, duplicateFrames } = send;
  return { publishing, publisherFailed, sendLog, identity, duplicateFrames };
}

/** Warmup (or the split peers' start), the schedule, then every viewer from its start to the deadline. */
export async function runViewers(
  opts: RunOptions,
  clocks: RunClocks,
  ice: IceOptions,
  send: SendSide,
  split: SplitPeers | null,
): Promise<ViewerPhase> {
  const { scenario: s, log, interrupt } = opts;
  // the shards' threads and what their first viewer loads start now, beside the publisher's
  // warmup, and are ready before t0: the first viewer's POST waits for nothing
  // (an optimisation: a failure only leaves the first viewer colder; a broken shard reports itself)
  const warming = opts.engine.warmUp?.(Math.max(1, opts.engine.workers)).catch(() => {});
  if (send.publishing) await sleepUnless((s.warmupSeconds ?? 0) * 1000, interrupt);
  await warming;
  if (split) await followSplitPeers(split, send, log);
  const schedule = buildSchedule(s);
  const t0MonoNs = monoNs();
  logStart(log, s);
  const tasks = shardTasks({
    workers: opts.engine.workers,
    scenario: s,
    schedule,
    bearer: opts.bearer,
    t0MonoNs,
    anchor: clocks.anchor,
    ice,
    sendLog: send.sendLog,
    identity: send.identity,
    stampClock: split?.stampClock ?? null,
  });
  const timeline = new Timeline({
    shards: tasks.length,
    resources: clocks.resources,
    cpuCount: cpus().length || 1,
    onSecond: clocks.observeStep,
    onTick: opts.onTick,
  });
  const result = await opts.engine.run(tasks, interrupt, (tick) => {
    opts.onShardTick?.(tick);
    timeline.tick(tick);
  });
  return {
    schedule,
    t0MonoNs,
    records: result.records,
    profiles: result.profiles,
    timeline: timeline.entries(),
  };
}

/** A split run's start point and send log; the send side then follows the peer's log. */
async function followSplitPeers(split: SplitPeers, send: SendSide, log: Logger): Promise<void> {
  try {
    await split.start();
  } catch (err) {
    log.line(`send-log peer: ${errorMessage(err)}; no fingerprint figure`);
  }
  send.sendLog = split.sendLog;
  send.identity = split.identity;
  send.duplicateFrames = split.table?.duplicateFrames ?? 0;
}
