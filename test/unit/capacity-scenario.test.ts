// The scenario of `whipbench capacity` (docs/definitions.md#capacity): the keys the search sets
// are optional and ignored with a note; everything else is validated as for `run`.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { CAPACITY_DEFAULTS } from "../../src/core/capacity/types.ts";
import { assignCohorts, cohortSizes } from "../../src/core/link/assign.ts";
import { capacityScenario } from "../../src/core/scenario-file/capacity.ts";
import { stepScenario } from "../../src/main/capacity/session.ts";

const BASE = { whep: "http://127.0.0.1:9/s/whep", thresholds: { loss: "< 1%" } };

test("the shipped example parses with no note: it gives none of the keys the search sets", () => {
  const text = readFileSync(new URL("../../examples/capacity-relay.json", import.meta.url), "utf8");
  const { scenario, notes } = capacityScenario(text);
  assert.deepEqual(notes, []);
  assert.equal(scenario.viewers, 10, "the search's start");
});

test("given keys (matched without case, as the parser matches) each get a note naming what replaces them", () => {
  const text = JSON.stringify({ ...BASE, Viewers: 3, holdseconds: 9, capacity: { stepSeconds: 8 } });
  const { scenario, notes } = capacityScenario(text);
  assert.deepEqual(notes, [
    "scenario key viewers ignored: each step's viewers come from the search (capacity.start 10 up to capacity.max 2000)",
    "scenario key holdSeconds ignored: each step holds capacity.stepSeconds (8 s)",
  ]);
  assert.equal(scenario.holdSeconds, 8);
  assert.equal(scenario.excludeFirstSeconds, 5);
});

test("a given key is ignored even when run would refuse its value; other keys are still checked", () => {
  assert.equal(capacityScenario(JSON.stringify({ ...BASE, viewers: 0, holdSeconds: -1 })).notes.length, 2);
  assert.throws(
    () => capacityScenario(JSON.stringify({ ...BASE, rampSeconds: -1 })),
    /^ScenarioError: scenario: rampSeconds must not be negative$/,
  );
  assert.throws(() => capacityScenario(JSON.stringify({ ...BASE, viewers: "ten" })), /scenario: .*viewers/);
  assert.throws(() => capacityScenario(JSON.stringify({ thresholds: BASE.thresholds })), /whep is required/);
});

test("cohorts: counts above capacity.start are a note, above capacity.max an error; shares stay shares", () => {
  const text = (cohorts: object[], capacity: object = {}) =>
    JSON.stringify({ ...BASE, cohorts, capacity: { start: 10, max: 100, ...capacity } });
  const counted = capacityScenario(text([{ name: "far", viewers: 30 }]));
  assert.equal(counted.scenario.viewers, 10, "the first step is still capacity.start");
  assert.deepEqual(counted.notes, [
    "cohorts: the counts add up to 30, more than capacity.start 10: a step of fewer viewers fills the counted cohorts in order, each capped at what is left",
  ]);
  assert.deepEqual(capacityScenario(text([{ name: "far", viewers: 10 }])).notes, []);
  assert.throws(
    () =>
      capacityScenario(
        text([
          { name: "far", viewers: 60 },
          { name: "near", viewers: 41 },
        ]),
      ),
    /^ScenarioError: scenario: cohorts: the cohorts' counts add up to 101, more than capacity\.max 100 \(give a share instead\)$/,
  );
  const shared = capacityScenario(
    text([
      { name: "far", share: 0.25 },
      { name: "lossy", share: 0.1 },
    ]),
  ).scenario;
  // every count the search may ask for: growth from 10 by 2, then a bisection
  for (const n of [10, 20, 40, 80, 60, 70, 65]) {
    const step = stepScenario(shared, CAPACITY_DEFAULTS, n, false);
    const sizes = cohortSizes(step.cohorts ?? [], step.viewers);
    assert.deepEqual(
      sizes,
      [Math.round(0.25 * n), Math.round(0.35 * n) - Math.round(0.25 * n)],
      `${n} viewers`,
    );
    const ids = assignCohorts(step.cohorts ?? [], step.viewers);
    assert.equal(ids.filter((g) => g === 0).length, sizes[0]);
    assert.equal(ids.filter((g) => g === -1).length, n - (sizes[0] ?? 0) - (sizes[1] ?? 0));
  }
  // a count stays that count in every step it fits, and is capped in one it does not
  const fixed = capacityScenario(
    text([
      { name: "far", viewers: 15 },
      { name: "rest", share: 0.5 },
    ]),
  ).scenario;
  const at = (n: number) => cohortSizes(stepScenario(fixed, CAPACITY_DEFAULTS, n, false).cohorts ?? [], n);
  assert.deepEqual(at(10), [10, 0]);
  assert.deepEqual(at(20), [15, 3]);
  assert.deepEqual(at(80), [15, 33]);
});

test("churn: its schedule is bounded at capacity.max viewers, not at the scenario's bound; its keys still checked", () => {
  const text = (churn: object, capacity: object) =>
    JSON.stringify({ ...BASE, joinTimeoutSeconds: 4, churn, capacity: { start: 12, ...capacity } });
  // 12 places for 240 s with 10 s lifetimes: a few hundred viewers (at 10000 places it would be ~240 000)
  const { scenario } = capacityScenario(
    text({ meanLifetimeSeconds: 10, seed: 1 }, { max: 12, stepSeconds: 240 }),
  );
  assert.deepEqual(scenario.churn, { meanLifetimeSeconds: 10, seed: 1, minLifetimeSeconds: 4 });
  assert.equal(scenario.viewers, 12);
  // at a capacity.max whose steps would schedule more than 100 000 viewers, the bound still holds
  assert.throws(
    () => capacityScenario(text({ meanLifetimeSeconds: 4 }, { max: 5000, stepSeconds: 240 })),
    /^ScenarioError: scenario: churn: the run would schedule more than 100000 viewers; raise churn\.meanLifetimeSeconds, or lower viewers or holdSeconds$/,
  );
  assert.throws(
    () => capacityScenario(text({ meanLifetimeSeconds: 10, minLifetimeSeconds: 2 }, { max: 12 })),
    /^ScenarioError: scenario: churn\.minLifetimeSeconds: must be at least joinTimeoutSeconds \(4 s\)/,
  );
});
