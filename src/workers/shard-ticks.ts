// A shard's live counters and its per-second ticks: deltas since the previous tick, aligned to t0
// and keyed by their second, plus the active gauge and (when asked) the live samples; a final
// tick flushes the partial last second.
import { monoNs } from "../core/clock/clock.ts";
import { zeroCounts } from "../core/figures.ts";
import { FrozenSeconds } from "../core/report/frozen-seconds.ts";
import type { DelayHistogram } from "../core/stats/summaries.ts";
import { TICK_COUNT_KEYS, type TickCounts, tickDeltas } from "../core/tick-counts.ts";
import type { ThreadFigures, ThreadProfile } from "../net/thread-profile.ts";
import { CohortTicks } from "./cohort-ticks.ts";
import type { LayerTick, ShardTask, ShardTick } from "./protocol.ts";
import type { Intake } from "./receive/intake.ts";
import type { ViewerThread } from "./thread.ts";
import type { ViewerLive } from "./viewer/viewer-context.ts";

export class ShardTicks {
  /** shard-wide counters (core/tick-counts.ts); viewers add their packets and payload bytes here */
  readonly counts: TickCounts = zeroCounts(TICK_COUNT_KEYS);
  readonly live: ViewerLive;

  private readonly task: ShardTask;
  private readonly tick: (t: ShardTick) => void;
  private readonly profile: ThreadProfile;
  private readonly intake: Intake;
  private readonly ownDrops: ViewerThread["ownDrops"];
  private delays: number[] = [];
  private stamps: number[] = [];
  private transits: number[] = [];
  private layers: LayerTick = { delays: [], switches: [], switchNs: [] };
  private second = 0;
  private last: TickCounts = zeroCounts(TICK_COUNT_KEYS);
  private timer: NodeJS.Timeout | undefined;
  private readonly cohorts: CohortTicks | null;
  private readonly frozen = new FrozenSeconds();

  constructor(
    task: ShardTask,
    tick: (t: ShardTick) => void,
    profile: ThreadProfile,
    liveSamples: boolean,
    thread: Pick<ViewerThread, "intake" | "ownDrops">,
  ) {
    const intake = thread.intake;
    this.intake = intake;
    this.ownDrops = thread.ownDrops;
    this.task = task;
    this.tick = tick;
    this.profile = profile;
    const counts = this.counts;
    this.cohorts = (task.cohorts ?? []).length > 0 ? new CohortTicks(task) : null;
    this.live = {
      started: () => counts.started++,
      joined: () => {
        if (counts.joined === 0) intake.stats.countFrom(monoNs() + task.excludeFirstNs);
        counts.joined++;
        counts.active++;
      },
      failed: () => counts.failed++,
      dropped: () => {
        counts.failed++;
        counts.active--;
      },
      left: () => counts.active--,
      freeze: (startNs, endNs) => this.frozen.add(startNs, endNs, task.t0MonoNs),
    };
    if (liveSamples) {
      this.live.delaySample = (ns, _key, layer) => {
        this.delays.push(ns);
        if (layer >= 0) this.layers.delays.push(layer, ns);
      };
      this.live.layerSwitch = (from, to) => this.layers.switches.push(from, to);
      this.live.layerSwitchTime = (layer, ns) => this.layers.switchNs.push(layer, ns);
      this.live.stampSample = (ns) => this.stamps.push(ns);
      this.live.transitSample = (ns) => this.transits.push(ns);
    }
  }

  /** The live hooks of one viewer: the shard's, and with cohorts its cohort's too. */
  liveFor(cohort: number | undefined): ViewerLive {
    return this.cohorts === null ? this.live : this.cohorts.liveFor(this.live, cohort);
  }

  /** Tick every second after t0 until half a second past the deadline or `stop`. */
  start(stop: AbortSignal): void {
    const next = this.task.t0MonoNs + (this.second + 1) * 1e9;
    if (next > this.task.deadlineMonoNs + 5e8 || stop.aborted) return;
    this.timer = setTimeout(
      () => {
        this.second++;
        this.emit(this.second, false);
        this.start(stop);
      },
      Math.max(0, (next - monoNs()) / 1e6),
    );
  }

  /** No more ticks; the final one flushes what the last partial second counted. */
  finish(): void {
    clearTimeout(this.timer);
    this.emit(this.second + 1, true);
  }

  private emit(second: number, final: boolean): void {
    const c = this.counts;
    const last = this.last;
    this.tick({
      shard: this.task.shard,
      second,
      final,
      ...tickDeltas(TICK_COUNT_KEYS, c, last),
      delaySamples: this.delays,
      stampSamples: this.stamps,
      transitSamples: this.transits,
      ...this.frozen.take(),
      thread: withLag(
        this.profile.tick(),
        this.intake.stats.takeLagSecond(),
        this.intake.stats.takeWaitSecond(),
        this.intake,
      ),
      socketDrops: this.ownDrops.sinceBegin(),
      ...(this.cohorts !== null ? { cohorts: this.cohorts.take() } : {}),
      ...(layerFigures(this.layers) ? { layers: this.layers } : {}),
    });
    this.intake.mark();
    this.last = { ...c };
    this.delays = [];
    this.stamps = [];
    this.transits = [];
    if (layerFigures(this.layers)) this.layers = { delays: [], switches: [], switchNs: [] };
  }
}

function layerFigures(l: LayerTick): boolean {
  return l.delays.length + l.switches.length + l.switchNs.length > 0;
}

/** The thread's figures with its receive lag (ms) and stamp source when it stamped any datagram. */
export function withLag(
  f: ThreadFigures,
  lag: DelayHistogram,
  wait: DelayHistogram,
  intake: Intake,
): ThreadFigures {
  const receiveLagMs = lag.p50p99MaxMs();
  if (receiveLagMs === undefined) return f;
  const processingWaitMs = wait.p50p99MaxMs();
  return {
    ...f,
    receiveLagMs,
    stampSource: intake.stats.sources().source,
    ...(processingWaitMs !== undefined ? { processingWaitMs } : {}),
  };
}
