import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { bootstrapDiff, perViewerDelayMs } from "../../src/core/compare/bootstrap.ts";
import { compareReports, layerCompareFigures, parseFailOn } from "../../src/core/compare/compare.ts";
import { compareHtml, compareMarkdown } from "../../src/core/compare/render.ts";
import { buildReport } from "../../src/core/report/build.ts";
import { pooledLayerSwitches, viewerLayerChoice } from "../../src/core/report/layer-choice.ts";
import type { Report } from "../../src/core/report/types.ts";
import { makeInput, makeScenario, makeViewer } from "./report-fixtures.ts";

/** n viewers whose delays are the healthy fixture's plus `shiftMs` (and `lost` packets each). */
function report(n: number, shiftMs: number, lost = 0, over: Parameters<typeof makeScenario>[1] = {}): Report {
  const viewers = Array.from({ length: n }, (_, i) =>
    makeViewer(i, {
      keyMs: [10 + shiftMs, 12 + shiftMs],
      deltaMs: [2 + shiftMs, 3 + shiftMs, 4 + i + shiftMs],
      rtp: { lost, expected: 1000 + lost, lossPercent: (100 * lost) / (1000 + lost) },
    }),
  );
  return buildReport(makeInput(viewers, { scenario: makeScenario(n, over) }));
}

describe("--fail-on", () => {
  test("relative, change and value forms", () => {
    assert.deepEqual(parseFailOn("oneWayDelay.p95 > +10%"), {
      text: "oneWayDelay.p95 > +10%",
      figure: "oneWayDelay.p95",
      op: ">",
      kind: "relative",
      value: 10,
    });
    assert.deepEqual(parseFailOn("oneWayDelay.p95 > +0.5s").value, 500);
    assert.equal(parseFailOn("oneWayDelay.p95 > +5ms").kind, "change");
    assert.equal(parseFailOn("oneWayDelay.p95 > 60ms").kind, "value");
    assert.equal(parseFailOn("loss > +0.2pp").kind, "change");
    assert.equal(parseFailOn("loss > 1%").kind, "value");
    assert.equal(parseFailOn("stalls > +2").kind, "change");
  });

  test("mistakes name the condition", () => {
    assert.throws(
      () => parseFailOn("oneWayDelay.p95 > +10"),
      /^UsageError: --fail-on "oneWayDelay.p95 > \+10": a time figure needs ms or s/,
    );
    assert.throws(() => parseFailOn("loss > +0.2%x"), /want "<figure> <op>/);
    assert.throws(() => parseFailOn("loss > 0.2pp"), /a percentage needs %/);
    assert.throws(() => parseFailOn("nope.p95 > +1%"), /unknown figure nope\.p95/);
  });
});

describe("compare", () => {
  test("rankable reports: differences, an interval that holds the true shift, gates", () => {
    const base = report(8, 0);
    const next = report(8, 10, 10);
    const c = compareReports(base, next, [
      parseFailOn("oneWayDelay.p95 > +10%"),
      parseFailOn("oneWayDelay.p50 > +20ms"),
      parseFailOn("loss > +0.5pp"),
      parseFailOn("failedViewers > 0"),
    ]);
    assert.deepEqual(c.rankable.fingerprint, { ok: true });
    const p95 = c.rows.find((r) => r.figure === "oneWayDelay.p95");
    assert.ok(Math.abs((p95?.diff ?? 0) - 10) < 0.1, `pooled p95 moved by ${p95?.diff}`);
    const i = p95?.interval;
    assert.ok(
      i !== undefined && i.lowMs <= 10 && 10 <= i.highMs,
      `interval ${i?.lowMs}..${i?.highMs} holds 10`,
    );
    assert.ok(i !== undefined && i.highMs - i.lowMs < 3, "a constant shift gives a narrow interval");
    assert.equal(c.rows.find((r) => r.figure === "join.p50")?.interval, undefined);
    assert.deepEqual(
      c.gates.map((g) => [g.text, g.tripped]),
      [
        ["oneWayDelay.p95 > +10%", true],
        ["oneWayDelay.p50 > +20ms", false],
        ["loss > +0.5pp", true],
        ["failedViewers > 0", false],
      ],
    );
    const md = compareMarkdown(c, { label: "base.json", verdict: "v" }, { label: "new.json", verdict: "v" });
    assert.match(md, /\*\*rankable on the fingerprint one-way delay; /);
    assert.match(
      md,
      /\| `oneWayDelay\.p95` \| [\d.]+ ms \| [\d.]+ ms | \+(?:9\.9|10\.0) ms \(\+\d+\.\d%\) \| \+[\d.]+ ms … \+[\d.]+ ms \|/,
    );
    assert.match(md, /\| \*\*FAIL\*\* \| `loss > \+0\.5pp` \| \+0\.990 pp \|/);
    const html = compareHtml([
      { c, base: { label: "b<", verdict: "v" }, next: { label: "n", verdict: "v" } },
    ]);
    assert.match(html, /<h2>b&lt; → n<\/h2>/);
  });

  test("not rankable: the reason (scenarios differ)", () => {
    const c = compareReports(report(4, 0), report(5, 0));
    assert.deepEqual(c.rankable.fingerprint, { ok: false, reason: "scenarios differ on viewers" });
  });

  test("an unavailable figure trips its gate with the reason", () => {
    const c = compareReports(report(3, 0), report(3, 0), [parseFailOn("packetTransit.p99 > +1ms")]);
    assert.equal(c.gates[0]?.tripped, true);
    assert.match(c.gates[0]?.unavailable ?? "", /^NEW: /);
  });
});

describe("compare's simulcast rows", () => {
  const MS = 1_000_000;
  /** a report with layers l and h whose one viewer switched l → h in `switchMs` (no scenario layerSwitch) */
  function switched(switchMs: number): Report {
    const r = report(2, 0, 0, { simulcast: ["l", "h"] });
    const block = viewerLayerChoice({
      postMonoNs: 0,
      layerChoice: {
        asks: [{ rid: "h", atNs: 2000 * MS, status: 200 }],
        switches: [{ from: "l", to: "h", askedNs: 2000 * MS, switchNs: switchMs * MS, framesLost: 0 }],
      },
    });
    assert.ok(block !== undefined);
    const layerSwitches = pooledLayerSwitches([block]);
    assert.ok(layerSwitches !== undefined);
    return { ...r, aggregate: { ...r.aggregate, layerSwitches } };
  }

  test("switch rows come from aggregate.layerSwitches, not the scenario-wide layerSwitch", () => {
    const plain = report(2, 0, 0, { simulcast: ["l", "h"] });
    const delays = ["layerDelay.l.p50", "layerDelay.l.p95", "layerDelay.h.p50", "layerDelay.h.p95"];
    assert.equal(plain.scenario.layerSwitch, undefined);
    assert.deepEqual(layerCompareFigures(plain, plain), delays);
    const base = switched(120);
    const next = switched(150);
    assert.equal(base.scenario.layerSwitch, undefined, "cohorts or the relay chose, not the scenario");
    const both = [...delays, "layerSwitch.p50", "layerSwitch.p95"];
    assert.deepEqual(layerCompareFigures(base, plain), both, "either report having switches is enough");
    assert.deepEqual(layerCompareFigures(plain, next), both);
    const rows = compareReports(base, next, [parseFailOn("layerSwitch.p95 > +20ms")]);
    const p50 = rows.rows.find((r) => r.figure === "layerSwitch.p50");
    assert.deepEqual([p50?.base, p50?.next, p50?.diff], [{ value: 120 }, { value: 150 }, 30]);
    assert.equal(rows.gates[0]?.tripped, true);
    assert.equal(rows.gates[0]?.observed, 30);
  });
});

describe("bootstrap over viewers", () => {
  test("deterministic, needs two viewers a side", () => {
    const a = [1, 2, 3, 4, 5];
    const b = [3, 4, 5, 6, 7];
    assert.deepEqual(bootstrapDiff(a, b), bootstrapDiff(a, b));
    const i = bootstrapDiff(a, b);
    assert.ok(i !== null && i.lowMs < 2 && 2 < i.highMs && i.lowMs > -1);
    assert.equal(bootstrapDiff([1], b), null);
    assert.equal(perViewerDelayMs(report(3, 0), "fingerprint", "p95").length, 3);
  });
});
