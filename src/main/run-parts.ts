// The runner's pieces that are not its sequence: shard tasks from the schedule, timeline
// entries from ticks, the report's client and publisher blocks, and the start log line.

import type { ClipIdentity } from "../core/fingerprint.ts";
import { fmtG } from "../core/gofmt.ts";
import type { TimelineEntry, WorkerReport } from "../core/report/types.ts";
import type { buildSchedule, Scenario } from "../core/scenario.ts";
import type { SendLog } from "../core/sendlog.ts";
import type { WallAnchor } from "../net/clock.ts";
import type { IceOptions } from "../net/rtc.ts";
import { DEFAULT_RECEIVE_PATH } from "../workers/receive-path.ts";
import type { ShardProfile, ShardTask, ShardTick } from "../workers/shard.ts";
import type { Logger } from "./log.ts";
import type { RunOptions } from "./runner.ts";

export function timelineEntry(
  second: number,
  ticks: ShardTick[],
  cpuPercent: number | undefined,
): TimelineEntry {
  let active = 0;
  let packets = 0;
  let worstDelay = 0;
  let worstLag = -1;
  for (const t of ticks) {
    active += t.active;
    packets += t.packets;
    worstDelay = Math.max(worstDelay, t.thread.eventLoopDelayMs.p99);
    if (t.thread.receiveLagMs !== undefined) worstLag = Math.max(worstLag, t.thread.receiveLagMs.p99);
  }
  const e: TimelineEntry = { t: second, active, packets };
  if (cpuPercent !== undefined) e.cpuPercent = cpuPercent;
  if (ticks.length > 0) e.eventLoopDelayMs = worstDelay;
  if (worstLag >= 0) e.receiveLagMs = worstLag;
  return e;
}

export function workerReport(p: ShardProfile): WorkerReport {
  const w: WorkerReport = {
    shard: p.shard,
    thread: p.thread,
    viewers: p.viewers,
    packets: p.packets,
    cpuSeconds: p.cpuSeconds,
    eventLoopUtilisation: p.eventLoopUtilisation,
    eventLoopDelayMs: p.eventLoopDelayMs,
  };
  if (p.packets > 0) w.usPerPacket = (p.cpuSeconds * 1e6) / p.packets;
  if (p.receiveLagMs !== undefined) w.receiveLagMs = p.receiveLagMs;
  if (p.intakeDropped > 0) w.intakeDropped = p.intakeDropped;
  return w;
}

export function shardTasks(
  opts: RunOptions,
  s: Scenario,
  schedule: ReturnType<typeof buildSchedule>,
  t0: number,
  anchor: WallAnchor,
  ice: IceOptions,
  sendLog: SendLog | null,
  identity: ClipIdentity | null,
  stampClock: SharedArrayBuffer | null,
): ShardTask[] {
  const shards = Math.max(1, opts.engine.workers);
  const tasks: ShardTask[] = [];
  for (let i = 0; i < shards; i++) {
    tasks.push({
      shard: i,
      viewers: [],
      t0MonoNs: t0,
      deadlineMonoNs: t0 + schedule.viewersPhaseNs,
      whep: s.whep,
      bearer: opts.bearer,
      ice,
      joinTimeoutNs: (s.joinTimeoutSeconds ?? 10) * 1e9,
      stallNs: (s.stallMs ?? 500) * 1e6,
      excludeFirstNs: (s.excludeFirstSeconds ?? 5) * 1e9,
      anchor,
      sendLog: sendLog && identity ? { buffer: sendLog.buffer, identity } : null,
      stampClock,
      // a split run's send log arrives over its own channel, possibly after the frame it times
      matchDelayNs: stampClock !== null && sendLog !== null ? 300e6 : 0,
      receivePath: s.receivePath ?? DEFAULT_RECEIVE_PATH,
    });
  }
  // consecutive viewers go to consecutive shards, so a ramp loads them evenly
  schedule.startNs.forEach((start, id) => {
    tasks[id % shards]?.viewers.push({ id, startMonoNs: t0 + start });
  });
  return tasks;
}

export function logStart(log: Logger, s: Scenario): void {
  const g = fmtG;
  if (s.rampOffsetSeed !== undefined) {
    log.line(
      `starting ${s.viewers} viewers over ${g(s.rampSeconds)}s, each offset by up to ${g(s.rampOffsetMaxSeconds ?? 0)}s (seed ${s.rampOffsetSeed}), holding ${g(s.holdSeconds)}s`,
    );
  } else {
    log.line(`starting ${s.viewers} viewers over ${g(s.rampSeconds)}s, holding ${g(s.holdSeconds)}s`);
  }
}

export function goArch(a: string): string {
  return a === "x64" ? "amd64" : a === "ia32" ? "386" : a;
}

export function sleepUnless(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted || ms <= 0) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
