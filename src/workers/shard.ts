// The shard entry function: runs K viewers, each from its own scheduled instant to the common
// deadline, emits per-second deltas keyed by the second since t0, and returns every viewer's
// record. `--workers 0` calls it in the main thread; a worker thread calls the very same function.
import { type ClipIdentity, ClipTable, createHasher, type Hasher } from "../core/fingerprint.ts";
import { SendLog } from "../core/sendlog.ts";
import type { DelayHistogram } from "../core/stats.ts";
import type { EncodedHistogram, ViewerRecord } from "../core/types.ts";
import { monoNs, type WallAnchor } from "../net/clock.ts";
import type { IceOptions } from "../net/rtc.ts";
import { type DelayFigures, type ThreadFigures, ThreadProfile } from "../net/thread-profile.ts";
import { atMonoNs } from "../net/timers.ts";
import { intake } from "./intake.ts";
import { DEFAULT_RECEIVE_PATH, type ReceivePath } from "./receive-path.ts";
import { runViewer } from "./viewer.ts";
import { emptyRecord, type ShardContext, type ViewerLive } from "./viewer-context.ts";
import { warmNetworking } from "./warm.ts";

export interface ShardTask {
  shard: number;
  /** viewer ids with their absolute start instants (monotonic ns) */
  viewers: { id: number; startMonoNs: number }[];
  t0MonoNs: number;
  deadlineMonoNs: number;
  whep: string;
  bearer: string | undefined;
  ice: IceOptions;
  joinTimeoutNs: number;
  stallNs: number;
  excludeFirstNs: number;
  anchor: WallAnchor;
  /** the publisher's send log and its clip's identity: a run that publishes, or a view following a send-log peer */
  sendLog: { buffer: SharedArrayBuffer; identity: ClipIdentity } | null;
  /** the publisher's wall clock minus the monotonic clock (Float64 at [0]) for the stamp source; null: this process's own */
  stampClock: SharedArrayBuffer | null;
  /** defer matching frames against the send log this long (a split run's log arrives over its own channel) */
  matchDelayNs: number;
  /** werift's receive path or the lean one; absent: DEFAULT_RECEIVE_PATH */
  receivePath?: ReceivePath;
}

/** Deltas since the previous tick, plus the active gauge at the tick. */
export interface ShardTick {
  shard: number;
  /** seconds since t0; the final tick (`final`) flushes the partial last second and is not a timeline entry */
  second: number;
  final: boolean;
  packets: number;
  bytes: number;
  started: number;
  joined: number;
  failed: number;
  active: number;
  delaySamples: number[];
  stampSamples: number[];
  transitSamples: number[];
  /** this shard's thread over the second: CPU, event-loop utilisation and delay */
  thread: ThreadFigures;
}

/** What a shard's thread did over the whole run (the client's own ceiling). */
export interface ShardProfile extends ThreadFigures {
  shard: number;
  /** "main" when the shard ran in the main thread (--workers 0), else "worker" */
  thread: "main" | "worker";
  viewers: number;
  packets: number;
  /** the receive lag of every media datagram this thread stamped during the shard (exact, mergeable) */
  receiveLagHist: EncodedHistogram;
  /** datagrams the intake dropped because its queue was full */
  intakeDropped: number;
}

export interface ShardResult {
  records: ViewerRecord[];
  profile: ShardProfile;
}

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
  const profile = new ThreadProfile();
  // the thread's receive lag over this shard only (in-thread runs may follow one another)
  intake.beginRun();
  let hasher: Hasher | null = null;
  let table: ClipTable | null = null;
  let sendLog: SendLog | null = null;
  if (task.sendLog) {
    hasher = warmHasher ?? (await createHasher());
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
      thread: withLag(profile.tick(), intake.takeSecond()),
    });
    intake.mark();
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
  const lag = intake.lagRun;
  const figures = withLag(profile.finish(), lag);
  return {
    records,
    profile: {
      shard: task.shard,
      thread,
      viewers: task.viewers.length,
      packets: counts.packets,
      ...figures,
      receiveLagHist: lag.encode(),
      intakeDropped: intake.dropped,
    },
  };
}

/** The thread's figures with its receive lag (ms) when it stamped any datagram. */
function withLag(f: ThreadFigures, lag: DelayHistogram): ThreadFigures {
  if (lag.count === 0) return f;
  const ms = (p: number): number => lag.quantileNs(p) / 1e6;
  const receiveLagMs: DelayFigures = { p50: ms(50), p99: ms(99), max: ms(100) };
  return { ...f, receiveLagMs };
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
