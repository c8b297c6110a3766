// The shard entry function: runs K viewers, each from its own scheduled instant to the common
// deadline (or, with churn, to its own stop), emits per-second deltas keyed by the second since t0,
// and returns every viewer's record. `--workers 0` calls it in the main thread; a worker thread
// calls the very same function.

import { monoNs } from "../core/clock/clock.ts";
import { AudioTable } from "../core/delay/audio-pipeline.ts";
import { ClipTable, createHasher, type Hasher } from "../core/delay/fingerprint.ts";
import { SendLog } from "../core/delay/sendlog.ts";
import { SCENARIO_DEFAULTS } from "../core/scenario/defaults.ts";
import { emptyRecord } from "../core/viewer-record.ts";
import { ThreadProfile, VIEWER_ELD_RESOLUTION_MS } from "../net/thread-profile.ts";
import type { ReceivePath, ShardProfile, ShardResult, ShardTask, ShardTick } from "./protocol.ts";
import type { SocketsRan } from "./receive/socket-sharing.ts";
import { ShardTicks, withLag } from "./shard-ticks.ts";
import { type ViewerThread, viewerThread } from "./thread.ts";
import { atMonoNs } from "./timers.ts";
import { runViewer } from "./viewer/viewer.ts";
import type { ShardContext } from "./viewer/viewer-context.ts";
import { launchViewers, viewerStop } from "./viewer/viewer-launch.ts";
import { warmNetworking } from "./warm.ts";

export interface ShardHooks {
  tick(t: ShardTick): void;
  /** interrupt: every viewer stops now */
  stop: AbortSignal;
  /** collect one-way delay samples (ns) for live metrics; off by default (cheaper) */
  liveDelays?: boolean;
}

/** This thread's hasher, made before t0 by warmShard (the xxhash wasm compiles once per thread). */
let warmHasher: Hasher | null = null;

/**
 * Prepares this thread for a shard before the run's t0, so that its first viewer does not wait
 * for it: importing this module loaded the viewer's modules (werift included); the hasher (its
 * wasm) is made now, and one loopback peer and one loopback HTTP POST warm what werift and fetch
 * set up lazily.
 */
export async function warmShard(): Promise<void> {
  warmHasher ??= await createHasher();
  await warmNetworking();
}

export async function runShard(
  task: ShardTask,
  hooks: ShardHooks,
  thread: "main" | "worker",
): Promise<ShardResult> {
  // the one place the thread's context is reached; from here it is handed down
  const vt = viewerThread();
  vt.sharing.begin(task.viewerSockets ?? SCENARIO_DEFAULTS.viewerSockets);
  try {
    return await shardRun(vt, task, hooks, thread);
  } finally {
    vt.sharing.end();
  }
}

async function shardRun(
  vt: ViewerThread,
  task: ShardTask,
  hooks: ShardHooks,
  thread: "main" | "worker",
): Promise<ShardResult> {
  const { intake, ownDrops } = vt;
  const profile = new ThreadProfile(VIEWER_ELD_RESOLUTION_MS);
  // the thread's receive lag over this shard only (in-thread runs may follow one another)
  intake.beginRun(task.stampSource ?? "kernel");
  ownDrops.begin();
  intake.stats.countUntil(task.deadlineMonoNs);
  const deadline = new AbortController();
  const stop = AbortSignal.any([deadline.signal, hooks.stop]);
  stop.addEventListener("abort", () => intake.stats.countUntil(monoNs()), { once: true });
  const ticks = new ShardTicks(task, hooks.tick, profile, hooks.liveDelays ?? false, vt);
  const ctx = await shardContext(vt, task, stop, ticks.counts);
  const deadlineTimer = atMonoNs(task.deadlineMonoNs, () => deadline.abort());
  ticks.start(stop);
  const records = await launchViewers(
    task.viewers,
    stop,
    async (v) => {
      const own = viewerStop(stop, v.stopMonoNs);
      try {
        return await runViewer(
          own.signal === stop ? ctx : { ...ctx, stop: own.signal },
          v.id,
          ticks.liveFor(v.cohort),
          v.cohort,
        );
      } finally {
        own.release();
      }
    },
    (v) => {
      const rec = emptyRecord(v.id, ctx.sendLog !== null);
      rec.errorKind = "not_started";
      rec.error = "the run ended before this viewer's start time";
      return rec;
    },
  );
  deadlineTimer.cancel();
  ticks.finish();
  const lag = intake.stats.lagRun;
  const figures = withLag(profile.finish(), lag, intake.stats.waitRun, intake);
  return {
    records,
    profile: {
      shard: task.shard,
      thread,
      viewers: task.viewers.length,
      packets: ticks.counts.packets,
      ...figures,
      receiveLagHist: lag.encode(),
      intakeDropped: intake.dropped,
      stamps: intake.stats.sources(),
      repairedFrames: records.reduce((n, r) => n + r.oneWayDelay.lateCompletedFrames, 0),
      ...pathRan(vt, task.receivePath ?? SCENARIO_DEFAULTS.receivePath),
      ...rtcpRan(vt, task.receivePath ?? SCENARIO_DEFAULTS.receivePath),
      ...ownDrops.ran(),
    },
  };
}

/** What every viewer of the shard shares: the task's settings, the send log attached, the stop signal. */
async function shardContext(
  thread: ViewerThread,
  task: ShardTask,
  stop: AbortSignal,
  counters: ShardContext["counters"],
): Promise<ShardContext> {
  let hasher: Hasher | null = null;
  let table: ClipTable | null = null;
  let sendLog: SendLog | null = null;
  if (task.sendLog) {
    hasher = warmHasher ?? (await createHasher());
    table = new ClipTable(null, task.sendLog.identity);
    sendLog = SendLog.attach(task.sendLog.buffer, table.loopFrames);
  }
  return {
    whep: task.whep,
    bearer: task.bearer,
    ice: task.ice,
    joinTimeoutNs: task.joinTimeoutNs,
    stallNs: task.stallNs,
    excludeFirstNs: task.excludeFirstNs,
    anchor: task.anchor,
    hasher,
    table,
    sendLog,
    publisherWallMinusMono: task.publisherWallMinusMono
      ? new Float64Array(task.publisherWallMinusMono)
      : null,
    logWaitNs: task.logWaitNs,
    stop,
    counters,
    receivePath: task.receivePath ?? SCENARIO_DEFAULTS.receivePath,
    thread,
    keyframeRequests: task.keyframeRequests ?? SCENARIO_DEFAULTS.keyframeRequests,
    viewerProfile: task.viewerProfile ?? SCENARIO_DEFAULTS.viewerProfile,
    cohorts: task.cohorts ?? [],
    layerSwitch: task.layerSwitch ?? null,
    t0MonoNs: task.t0MonoNs,
    ...audioContext(task),
  };
}

/** The audio track's table and send log, attached (docs/definitions.md#audio-track). */
function audioContext(task: ShardTask): Pick<ShardContext, "audio" | "audioTable" | "audioLog"> {
  const a = task.audioLog ?? null;
  if (task.audio !== true || a === null)
    return { audio: task.audio === true, audioTable: null, audioLog: null };
  const audioTable = new AudioTable(a.fingerprints, a.ticks);
  return { audio: true, audioTable, audioLog: SendLog.attach(a.buffer, audioTable.loopPackets) };
}

/**
 * Who sent this thread's viewers' RTCP (docs/definitions.md#receive-paths): werift on its own path;
 * on ours native SRTCP, or werift's sendRtcp where the native one could not run (with why).
 */
function rtcpRan(
  vt: ViewerThread,
  asked: ReceivePath,
): Partial<Pick<ShardProfile, "rtcpSend" | "rtcpSendReason">> {
  if (asked === "werift") return { rtcpSend: "werift" };
  const s = vt.rtcpSends;
  if (s.native + s.werift === 0) return {};
  if (s.werift === 0) return { rtcpSend: "native" };
  const why = s.reasons.join("; ");
  return { rtcpSend: s.native === 0 ? "werift" : "mixed", rtcpSendReason: why };
}

/** The receive path that ran on this thread: the arena one may have fallen back to the lean one. */
function pathRan(
  vt: ViewerThread,
  asked: ReceivePath,
): { receivePath: ReceivePath | "mixed"; receivePathReason?: string } & Partial<SocketsRan> {
  const st = vt.intake.stats;
  const sockets = asked === "arena" && st.arenaTransports > 0 ? vt.sharing.ran() : {};
  if (asked !== "arena" || st.dgramTransports === 0) return { receivePath: asked, ...sockets };
  const why = st.dgramReasons.join("; ") || "no reason recorded";
  return { receivePath: st.arenaTransports === 0 ? "lean" : "mixed", receivePathReason: why, ...sockets };
}
