// The steps of a run that every way of running viewers shares (a run, a capacity search's step,
// an agent's share): the clocks started first, the viewers' phase sharded over the engine with
// its per-second timeline and the main thread's figures, and the report input the finished phase
// and its clocks give.
import { cpus } from "node:os";
import {
  edgeWallReading,
  monoNs,
  takeWallAnchor,
  type WallAnchor,
  wallNowUnixNs,
} from "../../core/clock/clock.ts";
import { StepWatch } from "../../core/clock/stepwatch.ts";
import type { ClipIdentity } from "../../core/delay/fingerprint.ts";
import type { SendLog } from "../../core/delay/sendlog.ts";
import { errorMessage } from "../../core/errors.ts";
import type { CeilingThresholds } from "../../core/report/ceiling.ts";
import type { ReportInput } from "../../core/report/input.ts";
import type { TimelineEntry } from "../../core/report/types.ts";
import { buildSchedule, type Schedule } from "../../core/scenario/schedule.ts";
import type { Scenario } from "../../core/scenario/types.ts";
import type { ViewerRecord } from "../../core/types.ts";
import type { IceOptions } from "../../net/rtc.ts";
import { type ThreadFigures, ThreadProfile } from "../../net/thread-profile.ts";
import type { ShardProfile, ShardTick } from "../../workers/protocol.ts";
import type { Logger } from "../observe/log.ts";
import { startLine } from "../observe/progress-line.ts";
import { ResourceWatch } from "../observe/resources.ts";
import { type UdpErrors, udpErrorsDelta, udpReceiveErrors } from "../observe/udp-drops.ts";
import { sleepUnless } from "../process/exit.ts";
import { type AudioSide, audioShare } from "../publisher/audio-side.ts";
import type { Publisher, PublisherResult } from "../publisher/publisher.ts";
import type { SplitPeers } from "../split/split-peers.ts";
import type { Engine } from "./engine.ts";
import { clockBlock, reportInput } from "./report-input.ts";
import { shardTasks } from "./shard-tasks.ts";
import { Timeline } from "./timeline.ts";

/** What the viewers' phase needs of a run's options. */
export interface PhaseOptions {
  scenario: Scenario;
  bearer: string | undefined;
  engine: Engine;
  log: Logger;
  /** the viewers stop when it aborts */
  interrupt: AbortSignal;
  /** live per-second hook (progress, metrics); `entry` is null for a shard's final flush tick */
  onTick?: (entry: TimelineEntry | null, ticks: ShardTick[]) => void;
  /** every shard tick as the engine delivers it, before the timeline gathers it (/metrics) */
  onShardTick?: (tick: ShardTick) => void;
  /**
   * the in-process built-in relay's sockets' drops so far, or why unreadable: the server's, not
   * ours (docs/definitions.md#udp-drops)
   */
  relaySocketDrops?: (() => number | string) | undefined;
  /** at t0, with the viewers' phase's length (the reference viewers start: main/reference/) */
  onViewersStart?: (phaseMs: number) => void;
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
  /** the audio track's clip, send log and fingerprints (docs/definitions.md#audio-track); null: none */
  audio?: AudioSide | null;
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

export type MeasuredPhase = ViewerPhase & {
  mainThread: ThreadFigures;
  udp: UdpErrors | null;
  /** the in-process relay's drops over the phase, or why unreadable; absent without one */
  relayDrops?: number | string;
};

/**
 * A phase whose start someone else decided (an agent's share of a many-host run): its schedule,
 * its t0 on this host's clock and each viewer's id in the whole run; the threads are warm and the
 * split peers started already.
 */
export interface ViewerPlan {
  schedule: Schedule;
  t0MonoNs: number;
  ids: readonly number[];
  /** each viewer's cohort index as the whole run assigned it (−1: unimpaired), by place in `ids` */
  cohorts: readonly number[];
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

/** A send side that follows a split run's peer (or nothing, before the peer's log arrives). */
export function followedSendSide(split: SplitPeers | null): SendSide {
  return {
    publishing: false,
    publisher: null,
    publisherFailed: false,
    sendLog: split?.sendLog ?? null,
    identity: split?.identity ?? null,
    duplicateFrames: split?.table?.duplicateFrames ?? 0,
  };
}

/**
 * The viewers' phase (none when the publisher failed to connect), with the main thread's figures
 * and the kernel's UDP receive drops over it.
 */
export async function runMeasuredPhase(
  opts: PhaseOptions,
  clocks: RunClocks,
  ice: IceOptions,
  send: SendSide,
  split: SplitPeers | null,
  plan?: ViewerPlan,
): Promise<MeasuredPhase> {
  const mainThread = new ThreadProfile();
  const udpStart = udpReceiveErrors();
  const relayStart = opts.relaySocketDrops?.();
  const phase = send.publisherFailed
    ? { schedule: null, t0MonoNs: 0, records: [], profiles: [], timeline: [] }
    : await runViewers(opts, clocks, ice, send, split, plan);
  const relayEnd = opts.relaySocketDrops?.();
  const relayDrops =
    typeof relayStart === "number" && typeof relayEnd === "number"
      ? { relayDrops: Math.max(0, relayEnd - relayStart) }
      : typeof relayEnd === "string" || typeof relayStart === "string"
        ? { relayDrops: String(typeof relayEnd === "string" ? relayEnd : relayStart) }
        : {};
  return {
    ...phase,
    mainThread: mainThread.finish(),
    udp: udpErrorsDelta(udpStart, udpReceiveErrors()),
    ...relayDrops,
  };
}

/**
 * Warmup (or the split peers' start), the schedule, then every viewer from its start to the
 * deadline; with a plan, its schedule and t0, the viewers numbered by its ids.
 */
async function runViewers(
  opts: PhaseOptions,
  clocks: RunClocks,
  ice: IceOptions,
  send: SendSide,
  split: SplitPeers | null,
  plan: ViewerPlan | undefined,
): Promise<ViewerPhase> {
  const { scenario: s, log, interrupt } = opts;
  let schedule: Schedule;
  let t0MonoNs: number;
  if (plan === undefined) {
    // the shards' threads and what their first viewer loads start now, beside the publisher's
    // warmup, and are ready before t0: the first viewer's POST waits for nothing
    // (an optimisation: a failure only leaves the first viewer colder; a broken shard reports itself)
    const warming = opts.engine.warmUp?.(Math.max(1, opts.engine.workers)).catch(() => {});
    if (send.publishing) await sleepUnless((s.warmupSeconds ?? 0) * 1000, interrupt);
    await warming;
    if (split) await followSplitPeers(split, send, log);
    schedule = buildSchedule(s);
    t0MonoNs = monoNs();
    log.line(startLine(s));
    opts.onViewersStart?.(schedule.viewersPhaseNs / 1e6);
  } else {
    ({ schedule, t0MonoNs } = plan);
  }
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
    publisherWallMinusMono: split?.publisherWallMinusMono ?? null,
    audioLog: audioShare(send.audio ?? null),
    ...(plan ? { cohortOf: plan.cohorts } : {}),
  });
  // shardTasks numbers viewers by their place in the schedule: a plan's are the run's ids
  if (plan) for (const t of tasks) for (const v of t.viewers) v.id = plan.ids[v.id] ?? v.id;
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

/** What the report input takes from a finished phase beside its clocks. */
export interface PhaseEnd {
  command: "run" | "view";
  interrupted: boolean;
  scenario: Scenario;
  workers: number;
  ceiling?: CeilingThresholds | undefined;
  clocks: RunClocks;
  /** a capacity step's own start; the clocks' otherwise */
  startedAtUnixNs?: bigint;
  send: SendSide;
  split: SplitPeers | null;
  publisher: PublisherResult | null;
  measured: MeasuredPhase;
  autoLoopback: boolean;
  /** the phase's end (monotonic ns), taken before the last step-watch observation */
  endMonoNs: number;
}

/**
 * The report input of a finished phase: the clocks' last observation, the clock block, the
 * resources up to its end.
 */
export function phaseInput(e: PhaseEnd): ReportInput {
  const { clocks, send } = e;
  clocks.observeStep();
  const { publishing, publisherFailed, sendLog, identity, duplicateFrames } = send;
  return reportInput({
    command: e.command,
    interrupted: e.interrupted,
    scenario: e.scenario,
    workers: e.workers,
    ceiling: e.ceiling,
    startedAtUnixNs: e.startedAtUnixNs ?? clocks.startedAtUnixNs,
    finishedAtUnixNs: wallNowUnixNs(clocks.anchor),
    publishing,
    publisherFailed,
    sendLog,
    identity,
    duplicateFrames,
    publisher: e.publisher,
    sendStamps: e.publisher?.sendStamps ?? e.split?.sendStamps,
    clock: clockBlock(publishing, e.split, clocks),
    ...e.measured,
    autoLoopback: e.autoLoopback,
    resources: clocks.resources.finish(e.endMonoNs),
  });
}
