// The per-cohort part of a shard's ticks (docs/definitions.md#prometheus-metrics): each viewer of
// a cohort reports through a ViewerLive that counts into the shard's counters and its cohort's,
// so /metrics can give each cohort's viewers and one-way delay. Only with cohorts; the label's
// values are the scenario's cohort names and "unimpaired", so their number is bounded.
import { pickCounts, zeroCounts } from "../core/figures.ts";
import { UNIMPAIRED } from "../core/link/parse.ts";
import { FrozenSeconds } from "../core/report/frozen-seconds.ts";
import { COHORT_TICK_COUNT_KEYS, type CohortTickCounts, tickDeltas } from "../core/tick-counts.ts";
import type { CohortTick, ShardTask } from "./protocol.ts";
import type { ViewerLive } from "./viewer/viewer-context.ts";

/** A cohort's counts of core/tick-counts.ts, its delay samples and its frozen time. */
interface CohortCounts extends CohortTickCounts {
  delays: number[];
  frozen: FrozenSeconds;
}

export class CohortTicks {
  private readonly names: string[];
  /** by cohort index; the last entry is the unimpaired viewers */
  private readonly counts: CohortCounts[];
  private last: CohortTickCounts[];
  private readonly t0MonoNs: number;

  constructor(task: ShardTask) {
    this.names = [...(task.cohorts ?? []).map((c) => c.name), UNIMPAIRED];
    this.t0MonoNs = task.t0MonoNs;
    this.counts = this.names.map(() => ({
      ...zeroCounts(COHORT_TICK_COUNT_KEYS),
      delays: [],
      frozen: new FrozenSeconds(),
    }));
    this.last = this.names.map(() => zeroCounts(COHORT_TICK_COUNT_KEYS));
  }

  /** A viewer's live hooks: the shard's, then its cohort's (absent or out of range: unimpaired). */
  liveFor(shard: ViewerLive, cohort: number | undefined): ViewerLive {
    const index =
      cohort !== undefined && cohort >= 0 && cohort < this.names.length - 1 ? cohort : this.names.length - 1;
    const c = this.counts[index] as CohortCounts;
    const delaySample = shard.delaySample;
    const t0 = this.t0MonoNs;
    return {
      ...shard,
      started: () => {
        shard.started();
        c.started++;
      },
      joined: () => {
        shard.joined();
        c.joined++;
        c.active++;
      },
      failed: () => {
        shard.failed();
        c.failed++;
      },
      dropped: () => {
        shard.dropped();
        c.failed++;
        c.active--;
      },
      left: () => {
        shard.left();
        c.active--;
      },
      freeze: (startNs: number, endNs: number) => {
        shard.freeze?.(startNs, endNs);
        c.frozen.add(startNs, endNs, t0);
      },
      ...(delaySample !== undefined
        ? {
            delaySample: (ns: number, keyframe: boolean, layer: number) => {
              delaySample(ns, keyframe, layer);
              c.delays.push(ns);
            },
          }
        : {}),
    };
  }

  /** Each cohort's deltas since the previous call, with its active viewers and delay samples. */
  take(): CohortTick[] {
    const out = this.counts.map((c, i) => {
      const last = this.last[i] ?? zeroCounts(COHORT_TICK_COUNT_KEYS);
      return {
        cohort: this.names[i] ?? UNIMPAIRED,
        ...tickDeltas(COHORT_TICK_COUNT_KEYS, c, last),
        delaySamples: c.delays,
        ...c.frozen.take(),
      };
    });
    this.last = this.counts.map((c) => pickCounts(c, COHORT_TICK_COUNT_KEYS));
    for (const c of this.counts) c.delays = [];
    return out;
  }
}
