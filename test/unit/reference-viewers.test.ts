// Reference viewers (docs/definitions.md#reference-viewers) without libwebrtc: the package looked
// for through the loader seam and not found gives "unavailable, because …" in every place of the
// report, never a failure of the run; the plan per cohort; the agreement rule's tolerance
// (docs/definitions.md#reference-agreement); figures read from getStats; ranking unchanged.
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseCohorts } from "../../src/core/link/parse.ts";
import { agreement, per30s } from "../../src/core/reference/agreement.ts";
import { REFERENCE_FIGURES, readReferenceFigures } from "../../src/core/reference/figures.ts";
import { referencePlan, referenceScenarioProblem } from "../../src/core/reference/plan.ts";
import { buildReport } from "../../src/core/report/build.ts";
import { rankable } from "../../src/core/report/comparability.ts";
import { reportToHtml } from "../../src/core/report/html.ts";
import { reportToJson } from "../../src/core/report/json.ts";
import { reportToMarkdown } from "../../src/core/report/markdown.ts";
import { memoryLogger } from "../../src/main/observe/log.ts";
import { htmlAssets } from "../../src/main/output/html-report.ts";
import { ReferenceViewers } from "../../src/main/reference/reference-viewers.ts";
import { loadWrtc, type ModuleLoader, wrtcMissing } from "../../src/main/reference/wrtc.ts";
import { healthyViewers, makeInput, makeScenario } from "./report-fixtures.ts";

const notFound: ModuleLoader = {
  resolve: (id) => {
    throw Object.assign(new Error(`Cannot find module '${id}'`), { code: "MODULE_NOT_FOUND" });
  },
  load: () => assert.fail("a package that was not found is never loaded"),
};

test("a missing package is a reason, never a throw; a binary that will not load is another", () => {
  assert.match(wrtcMissing(notFound) ?? "", /^@roamhq\/wrtc is not installed \(an optional dependency/);
  const loaded = loadWrtc(notFound);
  assert.ok("reason" in loaded && /not installed/.test(loaded.reason));
  const broken: ModuleLoader = {
    resolve: () => "/x/index.js",
    load: () => {
      throw new Error("wrtc.node: invalid ELF header\nmore");
    },
  };
  assert.deepEqual(loadWrtc(broken), { reason: "@roamhq/wrtc did not load: wrtc.node: invalid ELF header" });
});

test("without the package the run's reference viewers end unavailable, with the reason in JSON, Markdown and HTML", async () => {
  const log = memoryLogger();
  const scenario = makeScenario(4, { referenceViewers: 2 });
  const refs = ReferenceViewers.forRun({ scenario, bearer: undefined, log, loader: notFound });
  assert.ok(refs !== null);
  refs.prepare();
  refs.start(1000, new AbortController().signal);
  assert.deepEqual(refs.processIds(), [], "no process is started for a package that is not there");
  const results = await refs.finish();
  assert.equal(results.length, 2);
  for (const r of results) assert.match(r.reason ?? "", /^@roamhq\/wrtc is not installed/);
  assert.match(log.lines.join("\n"), /reference viewers unavailable: @roamhq\/wrtc is not installed/);
  const report = buildReport(makeInput(healthyViewers(4), { scenario, reference: results }));
  assert.ok(report.aggregate.valid, "the run itself is unaffected");
  const block = report.aggregate.reference;
  assert.ok(block !== undefined);
  assert.equal(block.available, false);
  assert.equal(block.viewers, 2);
  assert.equal(block.measured, 0);
  assert.match(block.reason ?? "", /^@roamhq\/wrtc is not installed/);
  for (const f of REFERENCE_FIGURES)
    assert.equal(block[f.key], undefined, `no ${f.key}: never a 0 for "not measured"`);
  assert.equal(block.agreement.judged, false);
  assert.ok(
    report.method.some((l) => l.startsWith("Reference viewers: libwebrtc M106")),
    "the method line",
  );
  assert.match(reportToJson(report), /"reference": \{\n {6}"available": false,\n {6}"reason": "@roamhq/);
  assert.match(reportToMarkdown(report), /^- all: unavailable, because @roamhq\/wrtc is not installed/m);
  const html = reportToHtml(report, null, await htmlAssets());
  assert.match(html, /<li>all: unavailable, because @roamhq\/wrtc is not installed/);
});

test("no reference viewers asked for: no block, and the scenario carries no key", () => {
  const report = buildReport(makeInput(healthyViewers(2)));
  assert.equal(report.aggregate.reference, undefined);
  assert.doesNotMatch(reportToJson(report), /"reference(Viewers)?":/);
  assert.doesNotMatch(reportToMarkdown(report), /Reference viewers/);
  assert.ok(!report.method.some((l) => l.startsWith("Reference viewers")), "no method line");
  assert.equal(
    ReferenceViewers.forRun({ scenario: makeScenario(2), bearer: undefined, log: memoryLogger() }),
    null,
  );
});

test("the plan: the scenario's K per group, a cohort's own K over it, a cohort's link named", () => {
  const cohorts = parseCohorts([
    { name: "far", viewers: 2, down: { delay: "20ms" } },
    { name: "near", viewers: 2, referenceViewers: 3 },
    { name: "none", viewers: 1, referenceViewers: 0 },
  ]);
  assert.deepEqual(referencePlan(makeScenario(10, { cohorts, referenceViewers: 1 })), [
    { group: "far", viewers: 1, linkNotApplied: true },
    { group: "near", viewers: 3, linkNotApplied: false },
    { group: "", viewers: 1, linkNotApplied: false },
  ]);
  // every viewer in a cohort: no unimpaired group to stand beside
  assert.deepEqual(
    referencePlan(makeScenario(5, { cohorts, referenceViewers: 1 })).map((g) => g.group),
    ["far", "near"],
  );
  assert.deepEqual(referencePlan(makeScenario(5, { referenceViewers: 2 })), [
    { group: "", viewers: 2, linkNotApplied: false },
  ]);
  assert.match(referenceScenarioProblem(makeScenario(1, { codec: "h264" })) ?? "", /offers no H\.264/);
  assert.equal(referenceScenarioProblem(makeScenario(1)), null);
});

test("agreement: ±1 freeze per 30 s, frozen seconds ±15 % of libwebrtc's (at least ±0.25 s)", () => {
  // per 30 s of viewing: 60 s with 4 freezes is 2 per 30 s
  assert.deepEqual(per30s(4, 3, 60), { freezesPer30s: 2, frozenSecondsPer30s: 1.5 });
  const at = (mf: number, ms: number, rf: number, rs: number) =>
    agreement({ freezesPer30s: mf, frozenSecondsPer30s: ms }, { freezesPer30s: rf, frozenSecondsPer30s: rs });
  assert.equal(at(10, 3.44, 9, 3).agrees, true, "within 15 % of 3 s (0.45 s)");
  assert.equal(at(10, 3.46, 9, 3).agrees, false, "0.46 s off is beyond 15 %");
  assert.equal(at(11.1, 3, 10, 3).agrees, false, "1.1 freezes off");
  assert.equal(at(0, 0.25, 0, 0).agrees, true, "the 0.25 s floor for small totals");
  assert.equal(at(0, 0.26, 0, 0).agrees, false);
  assert.match(
    at(0, 0, 0, 0).line,
    /^agree within the calibration's tolerance: per 30 s, freezes 0\.0 \(model\) vs 0\.0 \(libwebrtc\)/,
  );
  assert.match(at(3, 0, 0, 0).line, /^differ beyond the calibration's tolerance/);
});

test("getStats: the video track's and inbound-rtp's members; one missing is named, never read as 0", () => {
  const track = {
    type: "track",
    kind: "video",
    freezeCount: 2,
    totalFreezesDuration: 0.5,
    pauseCount: 0,
    totalPausesDuration: 0,
  };
  const inbound = {
    type: "inbound-rtp",
    kind: "video",
    framesReceived: 90,
    framesDecoded: 89,
    framesDropped: 1,
    nackCount: 3,
    pliCount: 1,
    jitterBufferDelay: 2.5,
    jitterBufferEmittedCount: 88,
  };
  const audio = { type: "inbound-rtp", kind: "audio", nackCount: 99 };
  const read = readReferenceFigures([audio, track, inbound]);
  assert.ok("figures" in read);
  assert.equal(read.figures.nacksSent, 3, "the video stream's, not the audio's");
  assert.equal(read.figures.freezes, 2);
  assert.equal(read.figures.jitterBufferEmitted, 88);
  const { freezeCount: _, ...noFreezes } = track;
  assert.deepEqual(readReferenceFigures([noFreezes, inbound]), { missing: ["track.freezeCount"] });
});

test("reports with and without reference viewers rank: they are not load", () => {
  const cohorts = parseCohorts([{ name: "far", viewers: 1, down: { delay: "20ms" } }]);
  const a = buildReport(makeInput(healthyViewers(2), { scenario: makeScenario(2, { cohorts }) }));
  const refCohorts = parseCohorts([
    { name: "far", viewers: 1, down: { delay: "20ms" }, referenceViewers: 2 },
  ]);
  const b = buildReport(
    makeInput(healthyViewers(2), {
      scenario: makeScenario(2, { cohorts: refCohorts, referenceViewers: 1 }),
      reference: [{ group: "far", reason: "x" }],
    }),
  );
  assert.equal(b.scenario.referenceViewers, 1);
  assert.equal(b.scenario.cohorts?.[0]?.["referenceViewers"], 2);
  assert.deepEqual(rankable(a, b, "fingerprint"), { ok: true });
  // the load figures are the same ones
  assert.equal(a.aggregate.viewers, b.aggregate.viewers);
  assert.deepEqual(a.aggregate.render, b.aggregate.render);
});
