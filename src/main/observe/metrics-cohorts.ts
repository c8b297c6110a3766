// The per-cohort families of /metrics (docs/definitions.md#prometheus-metrics): registered only
// when the scenario has cohorts, after every other family, each with a `cohort` label whose values
// are the scenario's cohort names and "unimpaired" (so as many series as cohorts plus one). The
// reference's families keep their own labels; these carry what each cohort's viewers did.
import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import { pairsTotalNs } from "../../core/report/frozen-seconds.ts";
import { COHORT_TICK_COUNTS, type CohortTickCounts } from "../../core/tick-counts.ts";
import { CountFamilies } from "./metrics-counts.ts";

/** What one cohort's part of a shard's tick carries (a structural subset of CohortTick). */
export interface LiveCohortTick extends CohortTickCounts {
  cohort: string;
  delaySamples: readonly number[];
  /** the cohort's freezes and frozen viewer-time ([second, ns] pairs) since the previous tick */
  freezes?: number;
  frozenNs?: readonly number[];
}

export interface CohortTarget {
  /** the cohort's name, or "unimpaired" */
  name: string;
  /** viewers the scenario assigns to it */
  viewers: number;
}

export class CohortMetrics {
  /** the counts of core/tick-counts.ts a cohort's part of a tick carries */
  private readonly counts: CountFamilies<"cohort">;
  private readonly delay: Histogram<"cohort">;
  private readonly freezes: Counter<"cohort">;
  private readonly frozen: Counter<"cohort">;
  private readonly names: Set<string>;

  constructor(registry: Registry, targets: readonly CohortTarget[], delayBucketsS: readonly number[]) {
    const registers = [registry];
    const labelNames = ["cohort"] as const;
    this.names = new Set(targets.map((t) => t.name));
    const target = new Gauge({
      name: "whipbench_cohort_viewers_target",
      help: "Viewers the scenario assigns to a cohort (unimpaired: outside every cohort).",
      labelNames,
      registers,
    });
    const counter = (name: string, help: string) => new Counter({ name, help, labelNames, registers });
    this.counts = new CountFamilies(
      registers,
      COHORT_TICK_COUNTS.map((s) => ({ key: s.key, kind: s.kind, ...s.cohort })),
      labelNames,
    );
    this.delay = new Histogram({
      name: "whipbench_cohort_one_way_delay_seconds",
      help: "One-way delay per frame of a cohort's viewers (fingerprint source), seconds.",
      labelNames,
      buckets: [...delayBucketsS],
      registers,
    });
    this.freezes = counter(
      "whipbench_cohort_freezes_total",
      "Freezes a cohort's viewers counted, as a browser counts them (counted when the freeze ends).",
    );
    this.frozen = counter(
      "whipbench_cohort_frozen_seconds_total",
      "Seconds a cohort's viewers' pictures were frozen, summed over its viewers.",
    );
    for (const t of targets) {
      const labels = { cohort: t.name };
      this.freezes.inc(labels, 0);
      this.frozen.inc(labels, 0);
      target.set(labels, t.viewers);
      this.counts.zero(labels);
      this.delay.zero(labels);
    }
  }

  /** Adds one shard's per-cohort deltas; a cohort the scenario does not name is dropped. */
  apply(shard: number, ticks: readonly LiveCohortTick[]): void {
    for (const t of ticks) {
      if (!this.names.has(t.cohort)) continue;
      const labels = { cohort: t.cohort };
      this.counts.apply(shard, t, labels);
      this.freezes.inc(labels, t.freezes ?? 0);
      this.frozen.inc(labels, pairsTotalNs(t.frozenNs ?? []) / 1e9);
      if (t.delaySamples.length > 0) {
        const child = this.delay.labels(labels);
        for (const ns of t.delaySamples) if (ns >= 0) child.observe(ns / 1e9);
      }
    }
  }
}
