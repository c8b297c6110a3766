// The churn key (docs/definitions.md#churn) and its schedule (docs/definitions.md#churn-schedule):
// parsing names the key, the lifetimes follow the seed and the places, late joiners take ids
// after the first viewers in order of start, and nothing is scheduled past the viewers' deadline.

import assert from "node:assert/strict";
import { test } from "node:test";
import { ScenarioError } from "../../src/core/errors.ts";
import { churnReport } from "../../src/core/report/churn.ts";
import type { ViewerReport } from "../../src/core/report/types.ts";
import { lifetimeNs, MAX_CHURN_VIEWERS } from "../../src/core/scenario/churn-schedule.ts";
import { buildSchedule } from "../../src/core/scenario/schedule.ts";
import { parseScenario, type Scenario } from "../../src/core/scenario-file/scenario.ts";

const base = { whep: "http://127.0.0.1:8889/s/whep", viewers: 3, holdSeconds: 7, rampSeconds: 0.5 };

function parse(churn: unknown, over: Record<string, unknown> = {}): Scenario {
  return parseScenario(JSON.stringify({ ...base, joinTimeoutSeconds: 2, ...over, churn }));
}

function rejects(churn: unknown, message: string, over: Record<string, unknown> = {}): void {
  assert.throws(
    () => parse(churn, over),
    (err: unknown) => err instanceof ScenarioError && err.message === message,
    message,
  );
}

test("churn: every mistake names its key", () => {
  rejects(
    [],
    "scenario: churn: want an object of churn keys (meanLifetimeSeconds, minLifetimeSeconds, seed)",
  );
  rejects({ meanLifetimeSeconds: 5, rate: 1 }, 'scenario: churn: unknown key "rate"');
  rejects({}, "scenario: churn.meanLifetimeSeconds: is required");
  rejects(
    { meanLifetimeSeconds: 0 },
    "scenario: churn.meanLifetimeSeconds: must be a number above 0 and at most 86400",
  );
  rejects(
    { meanLifetimeSeconds: "5s" },
    "scenario: churn.meanLifetimeSeconds: must be a number above 0 and at most 86400",
  );
  rejects(
    { meanLifetimeSeconds: 5, minLifetimeSeconds: -1 },
    "scenario: churn.minLifetimeSeconds: must be a number above 0",
  );
  rejects(
    { meanLifetimeSeconds: 5, minLifetimeSeconds: 6 },
    "scenario: churn.minLifetimeSeconds: must be at most churn.meanLifetimeSeconds",
  );
  rejects({ meanLifetimeSeconds: 5, seed: 1.5 }, "scenario: churn.seed: must be a whole number ≥ 0");
  rejects(
    { meanLifetimeSeconds: 5, minLifetimeSeconds: 1 },
    "scenario: churn.minLifetimeSeconds: must be at least joinTimeoutSeconds (2 s), so that a viewer can join before it leaves",
  );
  // the shortest lifetime defaults to the join timeout, so a mean below it is refused
  rejects(
    { meanLifetimeSeconds: 1 },
    "scenario: churn.meanLifetimeSeconds: must be at least churn.minLifetimeSeconds (2 s)",
  );
  rejects(
    { meanLifetimeSeconds: 2, minLifetimeSeconds: 2 },
    `scenario: churn: the run would schedule more than ${MAX_CHURN_VIEWERS} viewers; raise churn.meanLifetimeSeconds, or lower viewers or holdSeconds`,
    { viewers: 10000, holdSeconds: 100 },
  );
});

test("churn: the shortest lifetime defaults to the join timeout; the report keeps all three keys", () => {
  const s = parse({ meanLifetimeSeconds: 5 });
  assert.deepEqual(s.churn, { meanLifetimeSeconds: 5, seed: 0, minLifetimeSeconds: 2 });
});

test("fixed lifetimes: each place's viewers follow one another until the run has less left than a lifetime", () => {
  const sch = buildSchedule(parse({ meanLifetimeSeconds: 3, minLifetimeSeconds: 3, seed: 1 }));
  const ms = (ns: number): number => Math.round(ns / 1e6);
  // places start at 0, 166, 333 ms; each viewer lives 3 s; a replacement at 6 s would outlive 7.5 s
  assert.deepEqual(sch.startNs.map(ms), [0, 167, 333, 3000, 3167, 3333]);
  assert.deepEqual(sch.churn?.stopNs.map(ms), [3000, 3167, 3333, 6000, 6167, 6333]);
  assert.deepEqual(sch.churn?.placeOf, [0, 1, 2, 0, 1, 2]);
  assert.equal(sch.viewersPhaseNs, 7.5e9);
  // without churn nothing changes
  const plain = buildSchedule(parseScenario(JSON.stringify(base)));
  assert.equal(plain.startNs.length, 3);
  assert.equal(plain.churn, null);
});

test("drawn lifetimes: deterministic per seed and place, at least the shortest, capped at the deadline, ids in start order", () => {
  const s = parse(
    { meanLifetimeSeconds: 4, minLifetimeSeconds: 2, seed: 7 },
    { viewers: 20, holdSeconds: 60 },
  );
  const a = buildSchedule(s);
  const b = buildSchedule(s);
  assert.deepEqual(a, b);
  const other = buildSchedule({ ...s, churn: { meanLifetimeSeconds: 4, minLifetimeSeconds: 2, seed: 8 } });
  assert.notDeepEqual(a.churn?.stopNs, other.churn?.stopNs);
  const churn = a.churn;
  assert.ok(churn !== null && churn !== undefined);
  assert.ok(a.startNs.length > 20 * 10, `${a.startNs.length} viewers`);
  for (let id = 0; id < a.startNs.length; id++) {
    const start = a.startNs[id] ?? 0;
    const stop = churn.stopNs[id] ?? 0;
    assert.ok(stop <= a.viewersPhaseNs);
    // every viewer lives at least the shortest lifetime: a late one only starts with that much left
    assert.ok(stop - start >= 2e9, `viewer ${id} lives ${stop - start} ns`);
    if (id >= 20) assert.ok(start >= (a.startNs[id - 1] ?? 0), "late joiners in order of start");
  }
  // a place is held without a gap: each late joiner starts when a viewer of its place stops
  for (let id = 20; id < a.startNs.length; id++) {
    const place = churn.placeOf[id];
    const before = churn.stopNs.findIndex(
      (stop, k) => k < id && churn.placeOf[k] === place && stop === a.startNs[id],
    );
    assert.ok(before >= 0, `viewer ${id} follows a viewer of place ${place}`);
  }
  // a place's lifetimes do not depend on the number of places
  const fewer = buildSchedule({ ...s, viewers: 5, rampSeconds: 0 });
  const wider = buildSchedule({ ...s, viewers: 9, rampSeconds: 0 });
  assert.equal(fewer.churn?.stopNs[3], wider.churn?.stopNs[3]);
});

test("lifetimes: the shortest plus an exponential draw whose mean makes the mean", () => {
  assert.equal(lifetimeNs(0, 2e9, 2e9), 2e9);
  assert.equal(lifetimeNs(0.999, 2e9, 2e9), 2e9);
  assert.equal(lifetimeNs(0, 1e9, 3e9), 1e9);
  // the median of an exponential draw is ln 2 times its mean
  assert.equal(lifetimeNs(0.5, 1e9, 3e9), 1e9 + Math.trunc(Math.LN2 * 2e9));
  const s = parse(
    { meanLifetimeSeconds: 20, minLifetimeSeconds: 2, seed: 3 },
    { viewers: 200, holdSeconds: 3600, rampSeconds: 0 },
  );
  const sch = buildSchedule(s);
  const lives = (sch.churn?.stopNs ?? [])
    .map((stop, id) => stop - (sch.startNs[id] ?? 0))
    .filter((_, id) => (sch.churn?.stopNs[id] ?? 0) < sch.viewersPhaseNs);
  const mean = lives.reduce((x, y) => x + y, 0) / lives.length / 1e9;
  assert.ok(Math.abs(mean - 20) < 0.5, `mean lifetime ${mean} s over ${lives.length}`);
});

function viewer(o: Partial<ViewerReport>): ViewerReport {
  return { joined: true, ...o } as ViewerReport;
}

test("churn figures: late joiners' setup and join over those that joined; leaves as scheduled", () => {
  const viewers = [
    viewer({ id: 0, signallingMs: 1, iceConnectedMs: 2, firstKeyframeMs: 3 }),
    viewer({ id: 1, lateJoiner: true, signallingMs: 10, iceConnectedMs: 20, firstKeyframeMs: 30 }),
    viewer({ id: 2, lateJoiner: true, signallingMs: 12, iceConnectedMs: 22, firstKeyframeMs: 50 }),
    viewer({ id: 3, lateJoiner: true, joined: false, signallingMs: 99 }),
  ];
  const inputs = [{ left: true }, { left: true }, {}, {}].map((x, id) => ({
    ...x,
    startOffsetNs: 0,
    record: { id },
  }));
  const c = churnReport(inputs as never, viewers);
  assert.deepEqual([c.viewers, c.lateJoiners, c.joins, c.lateJoins, c.leaves], [4, 3, 3, 2, 2]);
  assert.equal(c.lateSignallingMs.n, 2);
  assert.equal(c.lateSignallingMs.max, 12);
  assert.equal(c.lateJoinFirstKeyframeMs.p95, 50);
  assert.equal(c.lateIceConnectedMs.min, 20);
});
