// The per-second timeline (docs/definitions.md#timeline): shard ticks gathered by the second they
// describe, whatever order they arrive in; when every shard has reported a second, that second is
// complete: the step watch and resources are sampled, its CPU share is taken and it goes live.
// Frozen viewer-time arrives when a freeze ends, for the seconds it covered (possibly earlier
// ones), so it is summed by second apart from the ticks (docs/definitions.md#viewers-frozen-per-second).
import { addPairs } from "../../core/report/frozen-seconds.ts";
import type { TimelineEntry } from "../../core/report/types.ts";
import type { ShardTick } from "../../workers/protocol.ts";
import type { ResourceWatch } from "../observe/resources.ts";

export function timelineEntry(
  second: number,
  ticks: ShardTick[],
  cpuPercent: number | undefined,
  frozenNs = 0,
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
  e.viewersFrozen = frozenNs / 1e9;
  return e;
}

export interface TimelineOptions {
  /** shards that report each second */
  shards: number;
  resources: ResourceWatch;
  cpuCount: number;
  /** called once per complete second, before its entry goes live */
  onSecond: () => void;
  /** live per-second hook; `entry` is null for a shard's final flush tick */
  onTick?: ((entry: TimelineEntry | null, ticks: ShardTick[]) => void) | undefined;
}

export class Timeline {
  private readonly opts: TimelineOptions;
  private readonly bySecond = new Map<number, ShardTick[]>();
  private readonly cpuBySecond = new Map<number, number>();
  /** frozen viewer-ns by second, from every tick (final ones too) */
  private readonly frozenBySecond = new Map<number, number>();
  private cpuLast: number;

  constructor(opts: TimelineOptions) {
    this.opts = opts;
    this.cpuLast = opts.resources.cpuSecondsSoFar();
  }

  /** One shard's tick. */
  tick(tick: ShardTick): void {
    addPairs(this.frozenBySecond, tick.frozenNs);
    if (tick.final) {
      this.opts.onTick?.(null, [tick]);
      return;
    }
    const list = this.bySecond.get(tick.second) ?? [];
    list.push(tick);
    this.bySecond.set(tick.second, list);
    if (list.length === this.opts.shards) {
      this.opts.onSecond();
      this.opts.resources.sample();
      const cpu = this.opts.resources.cpuSecondsSoFar();
      this.cpuBySecond.set(tick.second, (100 * (cpu - this.cpuLast)) / this.opts.cpuCount);
      this.cpuLast = cpu;
      this.opts.onTick?.(this.entry(tick.second, list), list);
    }
  }

  /** Every second that had a tick, in order. */
  entries(): TimelineEntry[] {
    return [...this.bySecond.keys()]
      .sort((a, b) => a - b)
      .map((second) => this.entry(second, this.bySecond.get(second) ?? []));
  }

  private entry(second: number, ticks: ShardTick[]): TimelineEntry {
    return timelineEntry(second, ticks, this.cpuBySecond.get(second), this.frozenBySecond.get(second) ?? 0);
  }
}
