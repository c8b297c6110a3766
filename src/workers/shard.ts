// The shard entry function: runs K viewers, each from its own scheduled instant to the common
// deadline, emits per-second deltas keyed by the second since t0, and returns every viewer's
// record. `--workers 0` calls it in the main thread; a worker thread calls the very same function.

import { monoNs } from "../core/clock/clock.ts";
import { ClipTable, createHasher, type Hasher } from "../core/delay/fingerprint.ts";
import { SendLog } from "../core/delay/sendlog.ts";
import { emptyRecord } from "../core/viewer-record.ts";
import { ThreadProfile } from "../net/thread-profile.ts";
import { DEFAULT_RECEIVE_PATH, type ShardResult, type ShardTask, type ShardTick } from "./protocol.ts";
import { atMonoNs } from "./timers.ts";
import { runViewer } from "./viewer.ts";
import type { ShardContext, ViewerLive } from "./viewer-context.ts";

export interface ShardHooks {
  tick(t: ShardTick): void;
  /** interrupt: every viewer stops now */
  stop: AbortSignal;
  /** collect one-way delay samples (ns) for live metrics; off by default (cheaper) */
  liveDelays?: boolean;
}

export async function runShard(
  task: ShardTask,
  hooks: ShardHooks,
  thread: "main" | "worker",
): Promise<ShardResult> {
  const profile = new ThreadProfile();
  let hasher: Hasher | null = null;
  let table: ClipTable | null = null;
  let sendLog: SendLog | null = null;
  if (task.sendLog) {
    hasher = await createHasher();
    table = new ClipTable(null, task.sendLog.identity);
    sendLog = SendLog.attach(task.sendLog.buffer, table.loopFrames);
  }
  const deadline = new AbortController();
  const stop = AbortSignal.any([deadline.signal, hooks.stop]);
  const deadlineTimer = atMonoNs(task.deadlineMonoNs, () => deadline.abort());

  const counts = { packets: 0, bytes: 0, started: 0, joined: 0, failed: 0, active: 0 };
  let delays: number[] = [];
  const live: ViewerLive = {
    started: () => counts.started++,
    joined: () => {
      counts.joined++;
      counts.active++;
    },
    failed: () => counts.failed++,
    dropped: () => {
      counts.failed++;
      counts.active--;
    },
    left: () => counts.active--,
  };
  let stamps: number[] = [];
  let transits: number[] = [];
  if (hooks.liveDelays) {
    live.delaySample = (ns) => delays.push(ns);
    live.stampSample = (ns) => stamps.push(ns);
    live.transitSample = (ns) => transits.push(ns);
  }
  const ctx: ShardContext = {
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
    stampClock: task.stampClock ? new Float64Array(task.stampClock) : null,
    matchDelayNs: task.matchDelayNs,
    stop,
    counters: counts,
    receivePath: task.receivePath ?? DEFAULT_RECEIVE_PATH,
  };

  // per-second ticks aligned to t0, keyed by their second
  let second = 0;
  let last = { packets: 0, bytes: 0, started: 0, joined: 0, failed: 0 };
  let tickTimer: NodeJS.Timeout | undefined;
  const emit = (s: number, final: boolean) => {
    hooks.tick({
      shard: task.shard,
      second: s,
      final,
      packets: counts.packets - last.packets,
      bytes: counts.bytes - last.bytes,
      started: counts.started - last.started,
      joined: counts.joined - last.joined,
      failed: counts.failed - last.failed,
      active: counts.active,
      delaySamples: delays,
      stampSamples: stamps,
      transitSamples: transits,
      thread: profile.tick(),
    });
    last = { ...counts };
    delays = [];
    stamps = [];
    transits = [];
  };
  const scheduleTick = () => {
    const next = task.t0MonoNs + (second + 1) * 1e9;
    if (next > task.deadlineMonoNs + 5e8 || stop.aborted) return;
    tickTimer = setTimeout(
      () => {
        second++;
        emit(second, false);
        scheduleTick();
      },
      Math.max(0, (next - monoNs()) / 1e6),
    );
  };
  scheduleTick();

  const records = await Promise.all(
    task.viewers.map(async (v) => {
      if (v.startMonoNs > monoNs()) await sleepUntil(v.startMonoNs, stop);
      if (stop.aborted) {
        const rec = emptyRecord(v.id, sendLog !== null);
        rec.errorKind = "not_started";
        rec.error = "the run ended before this viewer's start time";
        return rec;
      }
      return runViewer(ctx, v.id, live);
    }),
  );
  deadlineTimer.cancel();
  clearTimeout(tickTimer);
  emit(second + 1, true);
  const figures = profile.finish();
  return {
    records,
    profile: { shard: task.shard, thread, viewers: task.viewers.length, packets: counts.packets, ...figures },
  };
}

function sleepUntil(untilMonoNs: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      t.cancel();
      signal.removeEventListener("abort", done);
      resolve();
    };
    const t = atMonoNs(untilMonoNs, done);
    signal.addEventListener("abort", done, { once: true });
  });
}
