// The cohorts' method line (docs/definitions.md#method-lines): appended last with cohorts, absent
// without, and it keeps the rule that only the delay line says "one-way delay".
import assert from "node:assert/strict";
import { test } from "node:test";
import { buildReport } from "../../src/core/report/build.ts";
import { COHORTS_METHOD, ONE_WAY_DELAY_METHOD } from "../../src/core/report/method-lines.ts";
import { cohortInput } from "./cohort-fixtures.ts";
import { healthyViewers, makeInput } from "./report-fixtures.ts";

test("a run with cohorts ends its method with the cohorts' line; one without has none", () => {
  const withCohorts = buildReport(cohortInput()).method;
  assert.equal(withCohorts.at(-1), COHORTS_METHOD);
  assert.equal(withCohorts.filter((m) => m === COHORTS_METHOD).length, 1);
  const without = buildReport(makeInput(healthyViewers(3))).method;
  assert.equal(without.length, withCohorts.length - 1);
  assert.ok(!without.includes(COHORTS_METHOD));
});

test("the cohorts' line says what the emulator does and never says one-way delay or latency", () => {
  for (const word of [
    "sfc32",
    "Gilbert–Elliott",
    "tail-drop",
    "ICE gathering",
    "aggregate.cohorts[]",
    "after repair",
  ]) {
    assert.ok(COHORTS_METHOD.includes(word), word);
  }
  assert.ok(!/one-way delay/i.test(COHORTS_METHOD));
  assert.ok(!/latency/i.test(COHORTS_METHOD));
  const lines = buildReport(cohortInput()).method.filter((m) => /one-way delay/i.test(m));
  assert.deepEqual(lines, [ONE_WAY_DELAY_METHOD]);
});
