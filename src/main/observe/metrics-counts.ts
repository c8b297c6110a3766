// The metric families of a tick's counts (docs/definitions.md#prometheus-metrics), registered
// from their one declaration (core/tick-counts.ts) in its order: a delta count is a counter the
// ticks add to, a level a gauge of each shard's latest value summed over shards. Used for the
// run's families and, with a `cohort` label, for each cohort's.
import { Counter, Gauge, type Registry } from "prom-client";
import type { TickCount } from "../../core/tick-counts.ts";

/** One count's family as the list gives it (the metric's name and help of the run or a cohort). */
export interface CountFamilySpec {
  key: TickCount;
  kind: "delta" | "level";
  metric: string;
  help: string;
}

type Labels<L extends string> = Partial<Record<L, string>>;

interface Family<L extends string> {
  key: TickCount;
  counter: Counter<L> | null;
  gauge: Gauge<L> | null;
  /** a level's latest value by label set (its text) and shard */
  byShard: Map<string, Map<number, number>>;
}

export class CountFamilies<L extends string> {
  private readonly families: Family<L>[];

  constructor(registers: Registry[], specs: readonly CountFamilySpec[], labelNames: readonly L[] = []) {
    this.families = specs.map((s) => {
      const opts = { name: s.metric, help: s.help, labelNames, registers };
      return {
        key: s.key,
        counter: s.kind === "delta" ? new Counter(opts) : null,
        gauge: s.kind === "level" ? new Gauge(opts) : null,
        byShard: new Map(),
      };
    });
  }

  /** Every family's series of `labels` at 0 (a labelled family shows none until then). */
  zero(labels: Labels<L>): void {
    for (const f of this.families) {
      f.counter?.inc(labels, 0);
      f.gauge?.set(labels, 0);
    }
  }

  /** One shard's tick counts: deltas added, levels summed with the other shards' latest. */
  apply(shard: number, counts: Readonly<Partial<Record<TickCount, number>>>, labels?: Labels<L>): void {
    for (const f of this.families) {
      const v = counts[f.key] ?? 0;
      if (f.counter !== null) {
        if (labels === undefined) f.counter.inc(v);
        else f.counter.inc(labels, v);
        continue;
      }
      const key = labels === undefined ? "" : JSON.stringify(labels);
      let byShard = f.byShard.get(key);
      if (byShard === undefined) {
        byShard = new Map();
        f.byShard.set(key, byShard);
      }
      byShard.set(shard, v);
      let sum = 0;
      for (const a of byShard.values()) sum += a;
      if (labels === undefined) f.gauge?.set(sum);
      else f.gauge?.set(labels, sum);
    }
  }
}
