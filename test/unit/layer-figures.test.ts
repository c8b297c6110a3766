// Thresholds and compare on the simulcast figures (docs/definitions.md#layer-thresholds): the delay
// per layer and the switch time as figures, read from a built report or unavailable with the
// reason, a cohort key reading the cohort's layers, and compare listing the rows when either report
// sent layers while still refusing to rank reports whose simulcast settings differ.
import assert from "node:assert/strict";
import { test } from "node:test";
import { compareReports, parseFailOn } from "../../src/core/compare/compare.ts";
import { buildReport } from "../../src/core/report/build.ts";
import type { Report } from "../../src/core/report/types.ts";
import { evaluateThreshold } from "../../src/core/thresholds/evaluate.ts";
import { FIGURES, readFigure } from "../../src/core/thresholds/figures.ts";
import { parseThresholds } from "../../src/core/thresholds/parse.ts";
import { hist, makeInput, makeScenario, makeViewer } from "./report-fixtures.ts";

const SIMULCAST = { simulcast: ["l", "h"], layerSwitch: { startRid: "l", atSeconds: 2, rid: "h" } };

/** Two viewers: l's frames at 10/20 ms, h's at 40 ms + i; viewer 1 in cohort "far" (h only). */
function simulcastReport(over: Parameters<typeof makeScenario>[1] = {}): Report {
  const viewers = [0, 1].map((i) => {
    const v = makeViewer(i, { keyMs: [10, 12], deltaMs: [2, 3, 4] });
    const l = i === 0 ? hist([10, 20]) : hist([]);
    const h = hist([40 + i, 40 + i]);
    return {
      ...v,
      record: {
        ...v.record,
        ...(i === 1 ? { cohort: "far" } : {}),
        layerSamples: [l.count, h.count],
        layerNs: [1e9, 2e9],
        layerDelayHists: [l, h],
        layerFrames: [i === 0 ? 2 : 3, 2],
        layerExcluded: [i === 0 ? 0 : 3, 0],
        layerChoice: {
          asks: [{ rid: "h", atNs: 2e9, status: 200 }],
          switches: [{ from: "l", to: "h", askedNs: 2e9, switchNs: (300 + 100 * i) * 1e6, framesLost: 0 }],
        },
      },
    };
  });
  const far = { name: "far", viewers: 1, down: {}, up: {}, steps: [], seed: 0 };
  const scenario = makeScenario(2, { ...SIMULCAST, cohorts: [far], ...over });
  return buildReport(makeInput(viewers, { scenario }));
}

test("the figures exist, read the pooled layers and the switch time, and say why where unavailable", () => {
  for (const f of ["layerDelay.l.p50", "layerDelay.m.p95", "layerDelay.h.max", "layerSwitch.p95"])
    assert.equal(FIGURES.get(f)?.unit, "ms", f);
  const r = simulcastReport();
  assert.deepEqual(
    r.aggregate.layerDelay?.map((l) => [l.rid, l.viewers, l.samples]),
    [
      ["l", 1, 2],
      ["h", 2, 4],
    ],
  );
  const near = (name: string, want: number) => {
    const v = readFigure(r, name);
    assert.ok("value" in v && Math.abs(v.value - want) < 0.5, `${name}: ${JSON.stringify(v)}`);
  };
  near("layerDelay.h.max", 41);
  near("layerDelay.l.min", 10);
  near("layerSwitch.p50", 300);
  near("layerSwitch.max", 400);
  assert.deepEqual(readFigure(r, "layerDelay.m.p50"), { unavailable: "the run sent no layer m" });
  const plain = buildReport(makeInput([makeViewer(0)]));
  assert.deepEqual(readFigure(plain, "layerDelay.h.p95"), {
    unavailable: "the run sent no simulcast layers",
  });
  assert.match(JSON.stringify(readFigure(plain, "layerSwitch.p95")), /no layerSwitch/);
});

test("thresholds name them, per cohort too (the cohort's own layers); the switch time is no cohort figure", () => {
  const r = simulcastReport();
  const [all, far, farL] = parseThresholds({
    "layerDelay.h.p95": "<= 41.5ms",
    "cohort:far layerDelay.h.min": ">= 40.5ms",
    "cohort:far layerDelay.l.p50": "< 100ms",
  });
  assert.equal(evaluateThreshold(r, all!).pass, true);
  assert.equal(
    evaluateThreshold(r, far!).pass,
    true,
    JSON.stringify([evaluateThreshold(r, far!), r.aggregate.cohorts]),
  );
  // the far viewer's l frames were all excluded: unavailable, because of that (a failed threshold)
  const res = evaluateThreshold(r, farL!);
  assert.equal(res.pass, false);
  assert.match(JSON.stringify(res), /excluded first seconds/);
  assert.throws(() => parseThresholds({ "cohort:far layerSwitch.p50": "< 1s" }), /layerSwitch\.p50/);
  assert.throws(() => parseThresholds({ "layerDelay.x.p50": "< 1s" }), /layerDelay\.x\.p50/);
});

test("compare lists the layer rows when either report sent layers, and does not rank different settings", () => {
  const r = simulcastReport();
  const c = compareReports(r, r);
  const rows = c.rows.map((x) => x.figure);
  assert.deepEqual(rows.slice(-6), [
    "layerDelay.l.p50",
    "layerDelay.l.p95",
    "layerDelay.h.p50",
    "layerDelay.h.p95",
    "layerSwitch.p50",
    "layerSwitch.p95",
  ]);
  assert.equal(c.rows.find((x) => x.figure === "layerSwitch.p50")?.diff, 0);
  const plain = buildReport(makeInput([makeViewer(0), makeViewer(1)]));
  assert.equal(
    compareReports(plain, plain).rows.some((x) => x.figure.startsWith("layer")),
    false,
  );
  assert.ok(
    "unavailable" in (compareReports(plain, r).rows.find((x) => x.figure === "layerDelay.h.p95")?.base ?? {}),
  );
  // reports whose simulcast or layerSwitch settings differ are not ranked, whatever their figures
  assert.deepEqual(c.rankable.fingerprint, { ok: true });
  const other = simulcastReport({ layerSwitch: { startRid: "h" } });
  assert.deepEqual(compareReports(r, other).rankable.fingerprint, {
    ok: false,
    reason: "scenarios differ on layerSwitch",
  });
  const fewer = simulcastReport({ simulcast: ["m", "h"], layerSwitch: { startRid: "h" } });
  const differ = compareReports(fewer, other).rankable.fingerprint;
  assert.deepEqual(differ, { ok: false, reason: "scenarios differ on simulcast" });
  assert.equal(parseFailOn("layerSwitch.p95 > +10%").figure, "layerSwitch.p95");
});
