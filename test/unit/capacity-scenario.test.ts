// The scenario of `whipbench capacity` (docs/definitions.md#capacity): the keys the search sets
// are optional and ignored with a note; everything else is validated as for `run`.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { capacityScenario } from "../../src/core/capacity/scenario.ts";

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
