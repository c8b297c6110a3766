// Thresholds naming a cohort (docs/definitions.md#thresholds-on-a-cohort): the key's syntax, the
// check that the cohort exists, and the judgement on aggregate.cohorts[].
import assert from "node:assert/strict";
import { test } from "node:test";
import { buildReport } from "../../src/core/report/build.ts";
import { capacityScenario } from "../../src/core/scenario-file/capacity.ts";
import { parseScenario } from "../../src/core/scenario-file/scenario.ts";
import { splitCohortKey } from "../../src/core/thresholds/cohort-figures.ts";
import { evaluateThresholds } from "../../src/core/thresholds/evaluate.ts";
import { LiveThresholds } from "../../src/core/thresholds/live.ts";
import { cohortInput } from "./cohort-fixtures.ts";
import { thrown } from "./thrown.ts";

const BASE = '"whep": "http://127.0.0.1:9/whep", "viewers": 6, "holdSeconds": 5';
const COHORTS = '"cohorts": [{"name": "far", "viewers": 2, "down": {"delay": "20ms"}}]';
const scenario = (thresholds: string) => parseScenario(`{${BASE}, ${COHORTS}, "thresholds": ${thresholds}}`);

test("a cohort key splits into its cohort and figure; a whole-run key is no cohort key", () => {
  assert.deepEqual(splitCohortKey("cohort:far oneWayDelay.p95"), {
    cohort: "far",
    figure: "oneWayDelay.p95",
  });
  assert.deepEqual(splitCohortKey("cohort:a.b-c_1  loss"), { cohort: "a.b-c_1", figure: "loss" });
  assert.equal(splitCohortKey("oneWayDelay.p95"), null);
  assert.equal(splitCohortKey("cohort:far"), null);
});

test("a cohort threshold parses with its figure's unit and keeps its key as written", () => {
  const s = scenario('{"cohort:far oneWayDelay.p95": "< 0.2s", "cohort:unimpaired loss": "< 1%"}');
  const [a, b] = s.thresholds ?? [];
  assert.equal(a?.figure, "cohort:far oneWayDelay.p95");
  assert.equal(a?.condition.value, 200, "200 ms: the delay's unit");
  assert.equal(b?.figure, "cohort:unimpaired loss");
});

test("mistakes exit as scenario errors naming the key", () => {
  const bad = (t: string) => thrown(() => scenario(t));
  assert.match(
    bad('{"cohort:near oneWayDelay.p95": "< 1s"}'),
    /^scenario: thresholds\["cohort:near oneWayDelay\.p95"\]: no cohort named "near" \(cohorts: far, unimpaired\)$/,
  );
  assert.match(
    bad('{"cohort:far": "< 1s"}'),
    /^scenario: thresholds\["cohort:far"\]: want "cohort:<name> <figure>"/,
  );
  assert.match(bad('{"cohort:far oneWayDelay.p96": "< 1s"}'), /unknown figure oneWayDelay\.p96/);
  assert.match(
    bad('{"cohort:far jitter.p95": "< 1ms"}'),
    /\["cohort:far jitter\.p95"\]: a cohort carries no jitter\.p95/,
  );
  assert.match(bad('{"cohort:far loss": "< 1ms"}'), /needs a percentage/);
  assert.match(
    bad('{"cohort:far oneWayDelay.p95": {"condition": "< 1s", "abortOnFail": true}}'),
    /abortOnFail: a cohort's figures are known only at the end of a run/,
  );
  // without cohorts only "unimpaired" (all viewers) could be named, and it is not in the report
  assert.match(
    thrown(() => parseScenario(`{${BASE}, "thresholds": {"cohort:far loss": "< 1%"}}`)),
    /no cohort named "far" \(cohorts: unimpaired\)/,
  );
});

test("a cohort threshold is judged on that cohort's entry, not the whole run", () => {
  const r = buildReport(cohortInput());
  const s = scenario(
    '{"cohort:far oneWayDelay.p50": "< 10ms", "cohort:unimpaired oneWayDelay.p50": "< 10ms", "cohort:far nacks": "== 4", "cohort:unimpaired nacks": "== 0", "cohort:far loss": "> 0.2%", "oneWayDelay.p50": "< 10ms"}',
  );
  const res = evaluateThresholds(r, s.thresholds ?? [], null);
  const far = res[0];
  assert.ok(far !== undefined && far.observed !== undefined && far.observed > 20, "far adds 20 ms");
  assert.equal(far.pass, false);
  assert.equal(far.unit, "ms");
  const unimpaired = res[1];
  assert.ok(unimpaired?.observed !== undefined && unimpaired.observed < 10);
  assert.equal(unimpaired.pass, true);
  assert.deepEqual(
    res.slice(2).map((x) => [x.observed, x.pass]),
    [
      [4, true],
      [0, true],
      [0.3, true],
      [res[5]?.observed, res[5]?.pass],
    ],
  );
  assert.ok(res[5]?.observed !== res[0]?.observed, "the whole run's figure differs from the cohort's");
});

test("a cohort missing from a report is unavailable and fails with the reason", () => {
  const r = buildReport(cohortInput());
  const noCohorts = { ...r, aggregate: { ...r.aggregate, cohorts: [] } };
  const [res] = evaluateThresholds(
    noCohorts,
    scenario('{"cohort:far stalls": "== 0"}').thresholds ?? [],
    null,
  );
  assert.deepEqual(
    { pass: res?.pass, unavailable: res?.unavailable },
    { pass: false, unavailable: "the report has no cohort far" },
  );
});

test("cohort thresholds are not judged live: no live evaluation is wanted for them", () => {
  const s = scenario('{"cohort:far oneWayDelay.p95": "< 1ms"}');
  assert.equal(LiveThresholds.wanted(s.thresholds), false);
  const live = new LiveThresholds(s.thresholds ?? [], 6);
  live.record([{ failed: 0, delaySamples: [5e8], stampSamples: [], transitSamples: [] }]);
  assert.equal(live.judge(100), null);
});

test("capacity: cohort thresholds are checked against the cohorts as for run", () => {
  const text = (t: object) =>
    JSON.stringify({
      whep: "http://127.0.0.1:9/whep",
      cohorts: [{ name: "far", share: 0.25 }],
      thresholds: t,
    });
  assert.equal(capacityScenario(text({ "cohort:far loss": "< 1%" })).scenario.thresholds?.length, 1);
  assert.match(
    thrown(() => capacityScenario(text({ "cohort:x loss": "< 1%" }))),
    /no cohort named "x"/,
  );
});
