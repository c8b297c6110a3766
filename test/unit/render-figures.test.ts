// What the viewers would have seen, as figures (docs/definitions.md#viewer-experience-thresholds):
// thresholds parse and judge them (per cohort too), compare and its --fail-on read them, a matrix
// cell and a capacity step take them, and an older report without the block says so.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { stepFigures } from "../../src/core/capacity/step.ts";
import { compareReports, parseFailOn } from "../../src/core/compare/compare.ts";
import { parseCohorts } from "../../src/core/link/parse.ts";
import { repeatComparability } from "../../src/core/matrix/comparable.ts";
import { parseMatrix } from "../../src/core/matrix/parse.ts";
import { buildReport } from "../../src/core/report/build.ts";
import type { Report } from "../../src/core/report/types.ts";
import { evaluateThresholds } from "../../src/core/thresholds/evaluate.ts";
import { readFigure } from "../../src/core/thresholds/figures.ts";
import { parseThresholds } from "../../src/core/thresholds/parse.ts";
import { NO_RENDER_BLOCK } from "../../src/core/thresholds/render-figures.ts";
import { makeInput, makeScenario, makeViewer } from "./report-fixtures.ts";

/** Viewers 0..n−1, viewer i frozen i × 300 ms of 30 s (i × 1 %), i freezes, recovery i × 100 ms. */
function report(n: number, cohorts = false): Report {
  const viewers = Array.from({ length: n }, (_, i) =>
    makeViewer(i, {
      render: {
        finder: "frame-id",
        framesShown: 900,
        freezes: i,
        frozenMs: i * 300,
        longestFreezeMs: i > 0 ? 300 : 0,
        measuredMs: 30_000,
        endGapMs: 40,
        recoveries: i > 0 ? 1 : 0,
      },
      recoveryMs: i > 0 ? [i * 100] : [],
    }),
  );
  if (!cohorts) return buildReport(makeInput(viewers));
  for (const v of viewers.slice(0, 2)) v.record = { ...v.record, cohort: "near" };
  const scenario = makeScenario(n, { cohorts: parseCohorts([{ name: "near", viewers: 2 }]) });
  return buildReport(makeInput(viewers, { scenario, requestedViewers: n }));
}

const value = (r: Report, name: string) => {
  const v = readFigure(r, name);
  assert.ok("value" in v, JSON.stringify(v));
  return v.value;
};

describe("render figures", () => {
  test("read from aggregate.render", () => {
    const r = report(5);
    assert.equal(value(r, "freezes"), 10);
    assert.equal(value(r, "frozenSeconds"), 3);
    assert.equal(value(r, "freezeShare.p95"), 4);
    assert.equal(value(r, "freezeShare.p50"), 2);
    assert.equal(value(r, "freezeShare.max"), 4);
    assert.equal(value(r, "freezes.perViewerMinute"), 10 / 2.5);
    assert.equal(value(r, "longestFreeze"), 300);
    assert.equal(value(r, "endGap.max"), 40);
    assert.equal(value(r, "pauses"), 0);
    assert.equal(value(r, "recovery.max"), 400);
    assert.deepEqual(readFigure(r, "pliKeyframe.p50"), {
      unavailable: "no PLI was answered by a shown keyframe",
    });
  });

  test("unavailable with the block's reason, or because an older report has no block", () => {
    const none = buildReport(makeInput([makeViewer(0, { codec: "av1" })]));
    assert.deepEqual(readFigure(none, "freezes"), {
      unavailable: 'codec "av1" has no render model: only VP8 and H.264 frames are judged',
    });
    const old = report(2);
    delete old.aggregate.render;
    assert.deepEqual(readFigure(old, "freezeShare.p95"), { unavailable: NO_RENDER_BLOCK });
  });

  test("thresholds: freezeShare.p95 < 1% parses in percent and judges the pooled figure", () => {
    const list = parseThresholds({ "freezeShare.p95": "< 1%", freezes: "<= 10", "recovery.p95": "< 0.5s" });
    assert.deepEqual(
      list.map((t) => [t.figure, t.condition.value]),
      [
        ["freezeShare.p95", 1],
        ["freezes", 10],
        ["recovery.p95", 500],
      ],
    );
    const results = evaluateThresholds(report(5), list, null);
    assert.deepEqual(
      results.map((x) => [x.figure, x.observed, x.pass]),
      [
        ["freezeShare.p95", 4, false],
        ["freezes", 10, true],
        ["recovery.p95", 400, true],
      ],
    );
    assert.throws(() => parseThresholds({ "freezeShare.p95": "< 1ms" }), /needs a percentage/);
    assert.throws(
      () => parseThresholds({ "freezeShare.p95": { condition: "< 1%", abortOnFail: true } }),
      /known only at the end/,
    );
  });

  test("thresholds on a cohort read the cohort's block, never the run's", () => {
    const r = report(5, true);
    const [near, rest] = evaluateThresholds(
      r,
      parseThresholds({ "cohort:near freezes": "== 0", "cohort:unimpaired freezeShare.max": "< 1%" }),
      null,
    );
    // near: viewers 0 and 1 (1 freeze); the others: 2, 3 and 4 (up to 4 %)
    assert.deepEqual([near?.observed, near?.pass], [1, false]);
    assert.deepEqual([rest?.observed, rest?.pass], [4, false]);
    const old = structuredClone(r);
    for (const c of old.aggregate.cohorts ?? []) delete c.render;
    const [x] = evaluateThresholds(old, parseThresholds({ "cohort:near freezes": "== 0" }), null);
    assert.equal(x?.unavailable, NO_RENDER_BLOCK);
  });

  test("compare shows the frozen share and freezes a viewer-minute, and --fail-on gates on them", () => {
    const base = report(3);
    const next = report(5);
    const gates = [parseFailOn("freezeShare.p95 > +1pp"), parseFailOn("freezes > 20")];
    const c = compareReports(base, next, gates);
    const row = c.rows.find((x) => x.figure === "freezeShare.p95");
    assert.deepEqual([row?.base, row?.next, row?.diff], [{ value: 2 }, { value: 4 }, 2]);
    assert.ok(c.rows.some((x) => x.figure === "freezes.perViewerMinute"));
    assert.deepEqual(
      c.gates.map((g) => [g.observed, g.tripped]),
      [
        [2, true],
        [10, false],
      ],
    );
    assert.throws(() => parseFailOn("freezeShare.p95 > 1"), /a percentage needs %/);
  });

  test("a matrix cell may show a render figure; it is comparable unless the client was near its ceiling", () => {
    const m = parseMatrix(
      JSON.stringify({
        figure: "freezeShare.p95",
        servers: [{ name: "a", whep: "http://127.0.0.1:1/a/whep" }],
        scenarios: [{ name: "s", scenario: {} }],
      }),
    );
    assert.equal(m.figure, "freezeShare.p95");
    assert.deepEqual(repeatComparability(report(2), m.figure), { comparable: true });
  });

  test("a capacity step carries the frozen share p95 and freezes a viewer-minute", () => {
    const f = stepFigures(report(5));
    assert.equal(f.frozenP95Percent, 4);
    assert.equal(f.freezesPerViewerMinute, 4);
    const none = stepFigures(buildReport(makeInput([makeViewer(0, { codec: "av1" })])));
    assert.equal(none.frozenP95Percent, undefined);
    assert.equal(none.freezesPerViewerMinute, undefined);
  });
});
