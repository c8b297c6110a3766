// /metrics with cohorts (docs/definitions.md#prometheus-metrics): the per-cohort families after
// every other, one series per cohort and "unimpaired", fed by the shards' per-cohort ticks (the
// viewer hooks that count them, and an agent's merge of its threads' ticks).
import assert from "node:assert/strict";
import { test } from "node:test";
import { emptyTick, mergeTicks } from "../../src/main/agents/tick-merge.ts";
import { RunMetrics } from "../../src/main/observe/metrics.ts";
import { CohortTicks } from "../../src/workers/cohort-ticks.ts";
import type { CohortTick, ShardTask, ShardTick } from "../../src/workers/protocol.ts";
import type { ViewerLive } from "../../src/workers/viewer/viewer-context.ts";
import {
  COHORT_FAMILIES,
  FREEZE_FAMILIES,
  family,
  parseExposition,
  SPEC_FAMILIES,
  sampleValue,
} from "./prom-text.ts";

const TARGETS = [
  { name: "far", viewers: 3 },
  { name: "unimpaired", viewers: 7 },
];

const THREAD = { cpuSeconds: 0, eventLoopUtilisation: 0, eventLoopDelayMs: { p50: 0, p99: 0, max: 0 } };

function tick(over: Partial<ShardTick> = {}): ShardTick {
  return { ...emptyTick(0, 1, THREAD), ...over };
}

const ZERO = { started: 0, joined: 0, failed: 0, active: 0 };
const cohortTick = (cohort: string, o: Partial<CohortTick> = {}): CohortTick => ({
  cohort,
  ...ZERO,
  delaySamples: [],
  freezes: 0,
  frozenNs: [],
  ...o,
});

test("with cohorts: the per-cohort families come last, each with a series per cohort and no other label", async () => {
  const fams = parseExposition(await new RunMetrics({ viewersTarget: 10, cohorts: TARGETS }).text());
  assert.deepEqual(
    fams.slice(0, SPEC_FAMILIES.length).map((f) => f.name),
    SPEC_FAMILIES.map(([n]) => n),
    "the reference's families keep their place",
  );
  assert.deepEqual(
    fams.slice(-COHORT_FAMILIES.length).map((f) => [f.name, f.type]),
    COHORT_FAMILIES.map(([n, t]) => [n, t]),
  );
  for (const [name, type, labels] of COHORT_FAMILIES) {
    const f = family(fams, name);
    const sets = f.samples.filter((s) => type !== "histogram" || s.name.endsWith("_count"));
    assert.deepEqual(
      sets.map((s) => s.labels["cohort"]),
      ["far", "unimpaired"],
      `${name}: one series per cohort`,
    );
    for (const s of f.samples) {
      const want = s.name.endsWith("_bucket") ? [...labels, "le"] : labels;
      assert.deepEqual(Object.keys(s.labels).sort(), want.sort(), `${s.name} labels`);
    }
  }
  assert.equal(sampleValue(fams, "whipbench_cohort_viewers_target", { cohort: "far" }), 3);
  assert.equal(sampleValue(fams, "whipbench_cohort_viewers_target", { cohort: "unimpaired" }), 7);
  // the whole run's families carry no cohort label
  assert.ok(family(fams, "whipbench_viewers_active").samples.every((s) => !("cohort" in s.labels)));
});

test("without cohorts there is no per-cohort family", async () => {
  const fams = parseExposition(await new RunMetrics({ viewersTarget: 10 }).text());
  assert.ok(!fams.some((f) => f.name.startsWith("whipbench_cohort_")));
});

test("per-cohort ticks add up per cohort; the active gauge sums the shards' levels; an unknown cohort is dropped", async () => {
  const m = new RunMetrics({ viewersTarget: 10, cohorts: TARGETS });
  m.applyTick(
    tick({
      started: 3,
      joined: 3,
      active: 3,
      delaySamples: [30e6, 2e6, 3e6],
      cohorts: [
        cohortTick("far", { started: 1, joined: 1, active: 1, delaySamples: [30e6] }),
        cohortTick("unimpaired", { started: 2, joined: 2, active: 2, delaySamples: [2e6, 3e6] }),
        cohortTick("nobody", { started: 9 }),
      ],
    }),
  );
  m.applyTick(
    tick({ shard: 1, cohorts: [cohortTick("far", { started: 2, joined: 1, failed: 1, active: 1 })] }),
  );
  const fams = parseExposition(await m.text());
  const v = (name: string, cohort: string) => sampleValue(fams, name, { cohort });
  assert.equal(v("whipbench_cohort_viewers_started_total", "far"), 3);
  assert.equal(v("whipbench_cohort_viewers_joined_total", "far"), 2);
  assert.equal(v("whipbench_cohort_viewers_failed_total", "far"), 1);
  assert.equal(v("whipbench_cohort_viewers_active", "far"), 2, "1 on shard 0 + 1 on shard 1");
  assert.equal(v("whipbench_cohort_viewers_active", "unimpaired"), 2);
  assert.equal(v("whipbench_cohort_one_way_delay_seconds_count", "far"), 1);
  assert.equal(v("whipbench_cohort_one_way_delay_seconds_count", "unimpaired"), 2);
  assert.ok(Math.abs(v("whipbench_cohort_one_way_delay_seconds_sum", "far") - 0.03) < 1e-12);
  assert.ok(!fams.some((f) => f.samples.some((s) => s.labels["cohort"] === "nobody")));
  assert.equal(
    sampleValue(fams, "whipbench_viewers_started_total"),
    3,
    "the whole run's counter is the shard's own",
  );
});

function shardLive(): ViewerLive & { n: Record<string, number>; delays: number[] } {
  const n: Record<string, number> = { started: 0, joined: 0, failed: 0, dropped: 0, left: 0 };
  const delays: number[] = [];
  return {
    n,
    delays,
    started: () => n["started"]!++,
    joined: () => n["joined"]!++,
    failed: () => n["failed"]!++,
    dropped: () => n["dropped"]!++,
    left: () => n["left"]!++,
    delaySample: (ns) => delays.push(ns),
  };
}

test("a shard's viewer hooks count into the shard and the viewer's cohort; take() gives deltas", () => {
  const task = { cohorts: [{ name: "far" }, { name: "thin" }] } as unknown as ShardTask;
  const ct = new CohortTicks(task);
  const shard = shardLive();
  const far = ct.liveFor(shard, 0);
  const plain = ct.liveFor(shard, undefined);
  far.started();
  far.joined();
  far.delaySample?.(5e6, false, -1);
  plain.started();
  plain.failed();
  assert.deepEqual(shard.n, { started: 2, joined: 1, failed: 1, dropped: 0, left: 0 });
  assert.deepEqual(shard.delays, [5e6]);
  const first = ct.take();
  assert.deepEqual(
    first.map((c) => [c.cohort, c.started, c.joined, c.failed, c.active, c.delaySamples]),
    [
      ["far", 1, 1, 0, 1, [5e6]],
      ["thin", 0, 0, 0, 0, []],
      ["unimpaired", 1, 0, 1, 0, []],
    ],
  );
  far.dropped();
  const second = ct.take();
  assert.deepEqual(
    second.map((c) => [c.cohort, c.started, c.joined, c.failed, c.active, c.delaySamples.length]),
    [
      ["far", 0, 0, 1, 0, 0],
      ["thin", 0, 0, 0, 0, 0],
      ["unimpaired", 0, 0, 0, 0, 0],
    ],
  );
});

test("an agent's merge of its threads' ticks sums each cohort by name", () => {
  const t = (cohorts: ShardTick["cohorts"]): ShardTick => tick(cohorts ? { cohorts } : {});
  const merged = mergeTicks([
    t([
      cohortTick("far", { started: 1, active: 1, delaySamples: [1e6] }),
      cohortTick("unimpaired", { started: 2 }),
    ]),
    t([
      cohortTick("far", { started: 2, active: 2, delaySamples: [2e6] }),
      cohortTick("unimpaired", { joined: 1 }),
    ]),
  ]);
  assert.deepEqual(
    merged?.cohorts?.map((c) => [c.cohort, c.started, c.joined, c.active, c.delaySamples]),
    [
      ["far", 3, 0, 3, [1e6, 2e6]],
      ["unimpaired", 2, 1, 0, []],
    ],
  );
  assert.equal(mergeTicks([t(undefined)])?.cohorts, undefined);
});

test("freezes and frozen seconds: the whole run's counters and each cohort's, from the viewers' freeze hooks through the ticks", async () => {
  const t0 = 1e12;
  const task = { cohorts: [{ name: "far" }], t0MonoNs: t0 } as unknown as ShardTask;
  const ct = new CohortTicks(task);
  const shardFreezes: [number, number][] = [];
  const shard = { ...shardLive(), freeze: (s: number, e: number) => shardFreezes.push([s, e]) };
  ct.liveFor(shard, 0).freeze?.(t0 + 0.5e9, t0 + 1.25e9);
  ct.liveFor(shard, 0).freeze?.(t0 + 2e9, t0 + 2.2e9);
  ct.liveFor(shard, undefined).freeze?.(t0 + 3e9, t0 + 3.5e9);
  assert.equal(shardFreezes.length, 3, "every freeze reaches the shard's own hook too");
  const cohorts = ct.take();
  assert.deepEqual(
    cohorts.map((c) => [c.cohort, c.freezes, c.frozenNs]),
    [
      ["far", 2, [1, 0.5e9, 2, 0.25e9, 3, 0.2e9]],
      ["unimpaired", 1, [4, 0.5e9]],
    ],
  );
  const m = new RunMetrics({ viewersTarget: 3, cohorts: [TARGETS[0]!, { name: "unimpaired", viewers: 1 }] });
  m.applyTick(tick({ freezes: 3, frozenNs: [1, 0.5e9, 2, 0.25e9, 3, 0.2e9, 4, 0.5e9], cohorts }));
  const fams = parseExposition(await m.text());
  for (const [name, type, labels] of [...FREEZE_FAMILIES, ...COHORT_FAMILIES.slice(-2)]) {
    const f = family(fams, name);
    assert.equal(f.type, type, name);
    for (const smp of f.samples) assert.deepEqual(Object.keys(smp.labels), labels, name);
  }
  assert.equal(sampleValue(fams, "whipbench_freezes_total"), 3);
  assert.ok(Math.abs(sampleValue(fams, "whipbench_frozen_seconds_total") - 1.45) < 1e-12);
  assert.equal(sampleValue(fams, "whipbench_cohort_freezes_total", { cohort: "far" }), 2);
  assert.ok(
    Math.abs(sampleValue(fams, "whipbench_cohort_frozen_seconds_total", { cohort: "far" }) - 0.95) < 1e-12,
  );
  assert.equal(sampleValue(fams, "whipbench_cohort_frozen_seconds_total", { cohort: "unimpaired" }), 0.5);
  // a fresh run declares them at 0
  const fresh = parseExposition(await new RunMetrics({ viewersTarget: 1 }).text());
  assert.equal(sampleValue(fresh, "whipbench_freezes_total"), 0);
});
