import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ScenarioError } from "../../src/core/errors.ts";
import { buildReport } from "../../src/core/report/build.ts";
import { reportToJson } from "../../src/core/report/json.ts";
import { reportToMarkdown } from "../../src/core/report/markdown.ts";
import type { Report } from "../../src/core/report/types.ts";
import { parseScenario } from "../../src/core/scenario-file/scenario.ts";
import { applyThresholds, evaluateThresholds, thresholdsFailed } from "../../src/core/thresholds/evaluate.ts";
import { readFigure } from "../../src/core/thresholds/figures.ts";
import { LiveThresholds } from "../../src/core/thresholds/live.ts";
import { parseCondition, parseThresholds } from "../../src/core/thresholds/parse.ts";
import { healthyViewers, makeInput, withFailures } from "./report-fixtures.ts";
import { thrown } from "./thrown.ts";

/** A valid report of 4 viewers: fingerprint delays 2..12 ms, loss 0, 0 stalls, join 1000 ms. */
function healthy(): Report {
  return buildReport(makeInput(healthyViewers(4)));
}

describe("threshold conditions", () => {
  test("units convert to the figure's own unit", () => {
    assert.deepEqual(parseCondition("< 40ms", "ms"), { op: "<", value: 40, text: "< 40ms" });
    assert.deepEqual(parseCondition("<=2s", "ms"), { op: "<=", value: 2000, text: "<=2s" });
    assert.deepEqual(parseCondition(" > 1500ms ", "s"), { op: ">", value: 1.5, text: "> 1500ms" });
    assert.deepEqual(parseCondition("< 0.5%", "%"), { op: "<", value: 0.5, text: "< 0.5%" });
    assert.deepEqual(parseCondition("== 0", ""), { op: "==", value: 0, text: "== 0" });
  });

  test("a missing or wrong unit, or a bad form, is an error", () => {
    assert.match(
      thrown(() => parseCondition("< 40", "ms")),
      /needs a time \(ms or s/,
    );
    assert.match(
      thrown(() => parseCondition("< 40%", "ms")),
      /needs a time/,
    );
    assert.match(
      thrown(() => parseCondition("< 0.5", "%")),
      /needs a percentage/,
    );
    assert.match(
      thrown(() => parseCondition("== 0ms", "")),
      /plain count/,
    );
    assert.match(
      thrown(() => parseCondition("p(95)<500", "ms")),
      /not of the form/,
    );
    assert.match(
      thrown(() => parseCondition("=< 3ms", "ms")),
      /not of the form/,
    );
  });
});

describe("thresholds in a scenario", () => {
  const base = '"whep": "http://127.0.0.1:1/s/whep", "viewers": 2, "holdSeconds": 1';

  test("string, list and object forms", () => {
    const s = parseScenario(
      `{${base}, "thresholds": {"oneWayDelay.p95": "< 40ms", "oneWayDelay.p99": ["< 80ms", {"condition": "< 1s", "abortOnFail": true, "delayAbortEval": "10s"}], "loss": "< 0.5%", "failedViewers": "== 0"}}`,
    );
    const list = s.thresholds ?? [];
    assert.deepEqual(
      list.map((t) => [t.figure, t.condition.text, t.abortOnFail, t.delayAbortEvalS]),
      [
        ["oneWayDelay.p95", "< 40ms", false, 0],
        ["oneWayDelay.p99", "< 80ms", false, 0],
        ["oneWayDelay.p99", "< 1s", true, 10],
        ["loss", "< 0.5%", false, 0],
        ["failedViewers", "== 0", false, 0],
      ],
    );
    assert.equal(list[2]?.condition.value, 1000);
  });

  test("every bad threshold is a scenario error naming the key", () => {
    const bad = (t: string) => thrown(() => parseScenario(`{${base}, "thresholds": ${t}}`));
    assert.match(
      bad('{"oneWayDelay.p96": "< 4ms"}'),
      /^scenario: thresholds\["oneWayDelay\.p96"\]: unknown figure/,
    );
    assert.match(
      bad('{"oneWayDelay.p95": "< 4"}'),
      /^scenario: thresholds\["oneWayDelay\.p95"\]: condition "< 4" needs a time/,
    );
    assert.match(bad('{"loss": 3}'), /^scenario: thresholds\["loss"\]: want a condition string/);
    assert.match(bad('{"loss": []}'), /thresholds\["loss"\]: an empty list/);
    assert.match(
      bad('{"loss": {"condition": "< 1%", "abortOnFail": true}}'),
      /thresholds\["loss"\]: abortOnFail needs a figure seen live/,
    );
    assert.match(
      bad('{"stalls": {"condition": "== 0", "delay": "1s"}}'),
      /thresholds\["stalls"\]: unknown key "delay"/,
    );
    assert.match(
      bad('{"join.p95": {"condition": "< 2s", "delayAbortEval": "1s"}}'),
      /delayAbortEval needs abortOnFail/,
    );
    assert.match(
      bad('{"oneWayDelay.p95": {"condition": "< 2s", "abortOnFail": true, "delayAbortEval": "ten"}}'),
      /thresholds\["oneWayDelay\.p95"\]: delayAbortEval must be a duration/,
    );
    assert.match(bad('["loss"]'), /^scenario: thresholds: want an object/);
    assert.ok(thrown(() => parseThresholds({ "join.p95": "< 2" })).startsWith('thresholds["join.p95"]'));
    assert.throws(() => parseScenario(`{${base}, "thresholds": {"x": "< 1ms"}}`), ScenarioError);
  });

  test("thresholds stay out of the report's scenario", () => {
    const r = buildReport(
      makeInput(healthyViewers(2), {
        scenario: parseScenario(`{${base}, "thresholds": {"stalls": "== 0"}}`),
      }),
    );
    assert.equal("thresholds" in r.scenario, false);
    assert.equal(reportToJson(r).includes('stalls": "== 0'), false);
  });
});

describe("judging a report", () => {
  test("pass and fail on exact pooled figures, verdict line counts failures", () => {
    const r = healthy();
    const list = parseThresholds({
      "oneWayDelay.p50": "< 40ms",
      "oneWayDelay.max": "< 5ms",
      "join.p95": "<= 1s",
      stalls: "== 0",
      "failedViewers.percent": "> 5%",
    });
    const results = evaluateThresholds(r, list, null);
    assert.deepEqual(
      results.map((x) => [x.figure, x.observed, x.pass]),
      [
        ["oneWayDelay.p50", readValue(r, "oneWayDelay.p50"), true],
        ["oneWayDelay.max", readValue(r, "oneWayDelay.max"), false],
        ["join.p95", 1000, true],
        ["stalls", 0, true],
        ["failedViewers.percent", 0, false],
      ],
    );
    const judged = applyThresholds(r, results);
    assert.match(judged.aggregate.verdict, /^valid, 2 of 5 thresholds failed: 4 of 4 viewers joined$/);
    assert.equal(thresholdsFailed(judged), true);
    // the key sits after aggregate in the JSON
    const keys = Object.keys(judged);
    assert.equal(keys[keys.indexOf("aggregate") + 1], "thresholds");
    const md = reportToMarkdown(judged);
    assert.match(md, /## Thresholds\n\n\| result \| figure \| condition \| observed \|/);
    assert.match(md, /\| \*\*FAIL\*\* \| `oneWayDelay\.max` \| `< 5ms` \| 12\.0 ms \|/);
  });

  test("all passing: exit-0 verdict wording", () => {
    const r = healthy();
    const judged = applyThresholds(r, evaluateThresholds(r, parseThresholds({ stalls: "== 0" }), null));
    assert.equal(judged.aggregate.verdict, "valid, 1 of 1 thresholds passed: 4 of 4 viewers joined");
    assert.equal(thresholdsFailed(judged), false);
  });

  test("an unavailable figure fails with its reason", () => {
    const r = healthy();
    const [x] = evaluateThresholds(r, parseThresholds({ "packetTransit.p95": "< 10ms" }), null);
    assert.equal(x?.pass, false);
    assert.equal(x?.observed, undefined);
    assert.ok((x?.unavailable ?? "").length > 0);
  });

  test("a run with no verdict keeps its verdict (exit 3 wins)", () => {
    const r = withFailures(10, 5);
    const judged = applyThresholds(r, evaluateThresholds(r, parseThresholds({ stalls: "== 1" }), null));
    assert.equal(judged.aggregate.verdict, r.aggregate.verdict);
    assert.equal(thresholdsFailed(judged), false);
  });

  test("the threshold that stopped the run fails and says when", () => {
    const r = healthy();
    const list = parseThresholds({ "oneWayDelay.p99": { condition: "< 1s", abortOnFail: true } });
    const judged = applyThresholds(r, evaluateThresholds(r, list, { index: 0, atS: 3, observed: 1200 }));
    assert.deepEqual(judged.thresholds?.[0]?.stoppedRun, { atS: 3, liveObserved: 1200 });
    assert.equal(judged.thresholds?.[0]?.pass, false);
    assert.match(
      judged.aggregate.verdict,
      /^valid, 1 of 1 thresholds failed; stopped at 3 s by oneWayDelay\.p99 < 1s \(live 1200\.0 ms\): /,
    );
  });
});

function readValue(r: Report, name: string): number {
  const v = readFigure(r, name);
  if (!("value" in v)) assert.fail(`${name} unavailable: ${v.unavailable}`);
  return v.value;
}

describe("receive lag (client.receiveLagMs)", () => {
  test("read from the client block when present", () => {
    const r = healthy();
    const withLag = { ...r, client: { ...r.client, receiveLagMs: { p50: 0.4, p99: 3.5, max: 9 } } } as Report;
    assert.deepEqual(readFigure(withLag, "receiveLag.p99"), { value: 3.5 });
    assert.deepEqual(readFigure(withLag, "receiveLag.max"), { value: 9 });
    const [x] = evaluateThresholds(withLag, parseThresholds({ "receiveLag.p99": "< 5ms" }), null);
    assert.equal(x?.pass, true);
  });

  test("absent: fails as unavailable", () => {
    const r = healthy();
    assert.deepEqual(readFigure(r, "receiveLag.p50"), {
      unavailable: "the report carries no receive lag (no viewer thread stamped a datagram)",
    });
    const [x] = evaluateThresholds(r, parseThresholds({ "receiveLag.p99": "< 5ms" }), null);
    assert.deepEqual(
      [x?.pass, x?.unavailable],
      [false, "the report carries no receive lag (no viewer thread stamped a datagram)"],
    );
  });
});

describe("live judge", () => {
  const tick = (delaysMs: number[], failed = 0) => ({
    failed,
    delaySamples: delaysMs.map((v) => v * 1e6),
    stampSamples: [],
    transitSamples: [],
  });

  test("waits for delayAbortEval, then stops on the first failing threshold", () => {
    const list = parseThresholds({
      stalls: "== 0",
      "oneWayDelay.p95": { condition: "< 20ms", abortOnFail: true, delayAbortEval: "2s" },
    });
    const live = new LiveThresholds(list, 4);
    live.record([tick([50, 60, 70])]);
    assert.equal(live.judge(1), null, "before delayAbortEval");
    const stop = live.judge(2);
    assert.equal(stop?.index, 1);
    assert.ok(
      stop !== null && Math.abs(stop.observed - 70) < 1,
      `live p95 ${stop?.observed} within 1 ms of 70`,
    );
  });

  test("no sample yet: not judged; failed viewers counted live", () => {
    const live = new LiveThresholds(
      parseThresholds({
        "oneWayDelay.p95": { condition: "< 20ms", abortOnFail: true },
        "failedViewers.percent": { condition: "< 30%", abortOnFail: true },
      }),
      4,
    );
    live.record([tick([])]);
    assert.equal(live.judge(5), null);
    live.record([tick([5], 1)]);
    assert.equal(live.judge(6), null);
    live.record([tick([5], 1)]);
    assert.deepEqual(live.judge(7), { index: 1, atS: 7, observed: 50 });
    assert.equal(LiveThresholds.wanted(parseThresholds({ stalls: "== 0" })), false);
  });
});
