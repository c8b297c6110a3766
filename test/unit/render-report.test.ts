// What the viewers would have seen, in the report (docs/definitions.md#viewer-experience-pooled):
// each viewer's render block, the pooled block (sums, the frozen share as an exact summary over
// the viewers judged, the histograms merged exactly), the reasons, and per cohort.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseCohorts } from "../../src/core/link/parse.ts";
import { buildReport, buildReportParts } from "../../src/core/report/build.ts";
import { delayDistribution } from "../../src/core/report/distribution.ts";
import { reportToHtml } from "../../src/core/report/html.ts";
import type { ChartData } from "../../src/core/report/html-data.ts";
import { reportToJson } from "../../src/core/report/json.ts";
import { reportToMarkdown } from "../../src/core/report/markdown.ts";
import type { Report } from "../../src/core/report/types.ts";
import { htmlAssets } from "../../src/main/output/html-report.ts";
import { hist, makeInput, makeScenario, makeViewer, type ViewerOpts } from "./report-fixtures.ts";

/** A joined VP8 viewer that showed frames: `frozenMs` over `measuredMs`, `freezes` of them. */
function seen(id: number, frozenMs: number, freezes: number, over: ViewerOpts = {}) {
  return makeViewer(id, {
    ...over,
    render: {
      finder: "frame-id",
      framesShown: 900,
      framesNotDecodable: freezes * 10,
      framesLate: 1,
      freezes,
      frozenMs,
      longestFreezeMs: freezes > 0 ? frozenMs / freezes : 0,
      pauses: 0,
      pausedMs: 0,
      measuredMs: 30_000,
      endGapMs: 33 + id,
      recoveries: over.recoveryMs?.length ?? 0,
      plisSent: 1,
      plisAnswered: over.pliKeyframeMs?.length ?? 0,
      ...over.render,
    },
  });
}

describe("render blocks", () => {
  test("per viewer: counts, frozen share, end gap, recovery from its histogram", () => {
    const r = buildReport(makeInput([seen(0, 3000, 6, { recoveryMs: [400, 600], pliKeyframeMs: [80] })]));
    const b = r.viewers?.[0]?.render;
    assert.ok(b !== undefined);
    assert.equal(b.available, true);
    assert.equal(b.reason, undefined);
    assert.equal(b.finder, "frame-id");
    assert.equal(b.freezes, 6);
    assert.equal(b.frozenMs, 3000);
    assert.equal(b.frozenPercent, 10);
    assert.equal(b.longestFreezeMs, 500);
    assert.equal(b.endGapMs, 33);
    assert.equal(b.recoveries, 2);
    assert.equal(b.recoveryMs?.n, 2);
    assert.equal(b.recoveryMs?.min, 400);
    assert.equal(b.recoveryMs?.max, 600);
    assert.equal(b.pliKeyframeMs?.n, 1);
    assert.equal(b.pliKeyframeMs?.max, 80);
  });

  test("per viewer: unavailable with its reason, counts still present, no share", () => {
    const r = buildReport(
      makeInput([
        makeViewer(0, { render: { framesNotDecodable: 40, plisSent: 3 } }),
        makeViewer(1, { codec: "av1" }),
        makeViewer(2, { codec: null }),
      ]),
    );
    const [a, b, c] = (r.viewers ?? []).map((v) => v.render);
    assert.equal(a?.available, false);
    assert.equal(a?.reason, "no frame was shown: 40 complete frames not decodable, 0 late");
    assert.equal(a?.framesNotDecodable, 40);
    assert.equal(a?.plisSent, 3);
    assert.equal(a?.frozenPercent, undefined);
    assert.equal(a?.endGapMs, undefined);
    assert.equal(b?.reason, 'codec "av1" has no render model: only VP8 and H.264 frames are judged');
    assert.equal(c?.reason, "no video track reached this viewer");
  });

  test("pooled: sums, frozen share summary over the viewers judged, freezes per viewer-minute", () => {
    const r = buildReport(
      makeInput([
        seen(0, 0, 0),
        seen(1, 1500, 3, { recoveryMs: [200, 300, 1000] }),
        seen(2, 6000, 10, { recoveryMs: [500], pliKeyframeMs: [90, 110] }),
        makeViewer(3, { render: { framesNotDecodable: 7, plisSent: 2 } }),
      ]),
    );
    const p = r.aggregate.render;
    assert.ok(p !== undefined);
    assert.equal(p.available, true);
    assert.equal(
      p.reason,
      "pooled over 3 of 4 joined viewers; the other 1 had none (no frame was shown: 7 complete frames not decodable, 0 late)",
    );
    assert.equal(p.viewers, 3);
    assert.deepEqual(p.viewersByFinder, { "frame-id": 3 });
    assert.equal(p.framesShown, 2700);
    assert.equal(p.framesNotDecodable, 130 + 7);
    assert.equal(p.freezes, 13);
    assert.equal(p.frozenSeconds, 7.5);
    assert.equal(p.measuredSeconds, 90);
    // 13 freezes over 1.5 viewer-minutes
    assert.ok(Math.abs((p.freezesPerViewerMinute ?? 0) - 13 / 1.5) < 1e-12);
    assert.deepEqual(p.frozenPercent, { n: 3, min: 0, mean: 25 / 3, p50: 5, p95: 20, p99: 20, max: 20 });
    assert.equal(p.longestFreezeMs, 600);
    assert.equal(p.endGapMs.n, 3);
    assert.equal(p.endGapMs.max, 35);
    assert.equal(p.recoveries, 4);
    assert.deepEqual(p.recoveryMs, hist([200, 300, 1000, 500]).summaryMs());
    assert.equal(p.plisSent, 3 + 2);
    assert.equal(p.plisAnswered, 2);
    assert.deepEqual(p.pliKeyframeMs, hist([90, 110]).summaryMs());
  });

  test("pooled: unavailable when no viewer showed a frame, or none joined", () => {
    const none = buildReport(makeInput([makeViewer(0, { codec: "av1" }), makeViewer(1, { codec: "av1" })]));
    assert.equal(none.aggregate.render?.available, false);
    assert.equal(
      none.aggregate.render?.reason,
      'codec "av1" has no render model: only VP8 and H.264 frames are judged',
    );
    assert.equal(none.aggregate.render?.freezesPerViewerMinute, undefined);
    assert.equal(none.aggregate.render?.frozenPercent.n, 0);
    const nobody = buildReport(makeInput([makeViewer(0, { joined: false })]));
    assert.equal(nobody.aggregate.render?.reason, "no viewer joined");
    assert.equal(nobody.aggregate.render?.freezes, 0);
  });

  test("pooled equals the same viewers however they were split (workers, agents): built from the records", () => {
    const viewers = [
      seen(0, 100, 1, { recoveryMs: [120.5] }),
      seen(1, 900, 2, { recoveryMs: [333.3, 47] }),
      seen(2, 0, 0),
    ];
    const whole = buildReport(makeInput(viewers)).aggregate.render;
    // the records in another order (as shards return them) pool to the same block, byte for byte
    const shuffled = buildReport(makeInput([viewers[2]!, viewers[0]!, viewers[1]!])).aggregate.render;
    assert.equal(JSON.stringify(shuffled), JSON.stringify(whole));
    assert.deepEqual(whole?.recoveryMs, hist([120.5, 333.3, 47]).summaryMs());
  });

  test("per cohort beside the unimpaired viewers", () => {
    const scenario = makeScenario(3, {
      cohorts: parseCohorts([{ name: "lossy", viewers: 2, down: { loss: "1%" } }]),
    });
    const v = [seen(0, 3000, 5), seen(1, 1000, 1), seen(2, 0, 0)];
    for (const x of v.slice(0, 2)) x.record = { ...x.record, cohort: "lossy" };
    const r: Report = buildReport(makeInput(v, { scenario }));
    const [lossy, clean] = r.aggregate.cohorts ?? [];
    assert.equal(lossy?.name, "lossy");
    assert.equal(lossy?.render?.freezes, 6);
    assert.equal(lossy?.render?.frozenPercent.max, 10);
    assert.equal(clean?.name, "unimpaired");
    assert.equal(clean?.render?.freezes, 0);
    assert.equal(clean?.render?.viewers, 1);
  });

  test("JSON keys in order, viewersByFinder sorted", () => {
    const r = buildReport(
      makeInput([seen(0, 10, 1, { recoveryMs: [5] }), seen(1, 0, 0, { render: { finder: "seq-num" } })]),
    );
    const parsed = JSON.parse(reportToJson(r)) as Report;
    assert.deepEqual(Object.keys(parsed.aggregate.render ?? {}), [
      "available",
      "viewers",
      "viewersByFinder",
      "framesShown",
      "framesNotDecodable",
      "framesLate",
      "freezes",
      "freezesPerViewerMinute",
      "frozenSeconds",
      "pauses",
      "pausedSeconds",
      "measuredSeconds",
      "frozenPercent",
      "longestFreezeMs",
      "endGapMs",
      "recoveries",
      "recoveryMs",
      "plisSent",
      "plisAnswered",
    ]);
    assert.deepEqual(Object.keys(parsed.aggregate.render?.viewersByFinder ?? {}), ["frame-id", "seq-num"]);
  });
});

describe("where people look", () => {
  const viewers = () => [seen(0, 3000, 6), seen(1, 600, 1), seen(2, 0, 0)];

  test("HTML: the card (frozen share p50/p95, freezes per viewer-minute), the chart's data, a row per cohort", async () => {
    const scenario = makeScenario(3, { cohorts: parseCohorts([{ name: "lossy", viewers: 1 }]) });
    const v = viewers();
    v[0]!.record = { ...v[0]!.record, cohort: "lossy" };
    const input = makeInput(v, {
      scenario,
      timeline: [
        {
          t: 1,
          active: 3,
          packets: 300,
          viewersFrozen: 0,
          viewersFrozenByCohort: { lossy: 0, unimpaired: 0 },
        },
        {
          t: 2,
          active: 3,
          packets: 300,
          viewersFrozen: 1.25,
          viewersFrozenByCohort: { lossy: 1, unimpaired: 0.25 },
        },
      ],
    });
    const r = buildReport(input);
    assert.deepEqual(
      r.timeline?.map((e) => e.viewersFrozen),
      [0, 1.25],
    );
    const html = reportToHtml(r, delayDistribution(r, buildReportParts(input).pools), await htmlAssets());
    const card = html.slice(
      html.indexOf('<section id="render"'),
      html.indexOf("</section>", html.indexOf('<section id="render"')),
    );
    assert.match(card, /<h2>What viewers saw<\/h2>/);
    // frozen shares 10 %, 2 %, 0 %: p50 2 %, p95 10 %; 7 freezes over 1.5 viewer-minutes
    assert.match(card, /frozen share p50<\/div><div class="value">2\.00%/);
    assert.match(card, /frozen share p95<\/div><div class="value">10\.00%/);
    assert.match(card, /freezes per viewer-minute<\/div><div class="value">4\.67/);
    assert.ok(html.includes('id="chart-frozen"'));
    const m = /<script type="application\/json" id="whipbench-data">(.*?)<\/script>/s.exec(html);
    const charts = (JSON.parse(m?.[1] ?? "{}") as { charts: ChartData }).charts;
    assert.deepEqual(charts.timeline.viewersFrozen, [0, 1.25]);
    assert.deepEqual(charts.timeline.frozenByCohort, {
      names: ["lossy", "unimpaired"],
      values: [
        [0, 1],
        [0, 0.25],
      ],
    });
    assert.deepEqual(Object.keys(JSON.parse(reportToJson(r)).timeline[1].viewersFrozenByCohort), [
      "lossy",
      "unimpaired",
    ]);
    const cohorts = html.slice(html.indexOf('<section id="cohorts"'));
    assert.match(cohorts, /frozen share p95<\/th><td class="num">10\.00%<\/td><td class="num">2\.00%<\/td>/);
    // the headline list and the viewer table carry it too
    assert.ok(html.includes("<li>frozen share p50 2.00%, p95 10.00%; 7 freezes, 4.67 per viewer-minute"));
    assert.ok(html.includes("<th>freezes</th><th>frozen</th>"));
  });

  test("HTML: an unavailable block says why; a run without a verdict shows none of it", async () => {
    const none = buildReport(makeInput([makeViewer(0, { codec: "av1" })]));
    const html = reportToHtml(none, null, await htmlAssets());
    assert.ok(
      html.includes(
        "<p>Unavailable: codec &quot;av1&quot; has no render model: only VP8 and H.264 frames are judged.</p>",
      ),
    );
    const invalid = buildReport(makeInput([seen(0, 10, 1), makeViewer(1, { joined: false })]));
    const md = reportToMarkdown(invalid);
    assert.doesNotMatch(md, /## What viewers saw/);
    assert.match(
      reportToHtml(invalid, null, await htmlAssets()),
      /No verdict: these figures stay in the JSON report/,
    );
  });

  test("Markdown: the section, its unavailable form and a cohort table", () => {
    const md = reportToMarkdown(buildReport(makeInput(viewers())));
    assert.ok(md.includes("| frozen share per viewer | 3 | 2.00% | 10.00% | 10.00% | 0.00% | 10.00% |"));
    assert.ok(
      md.includes("7 freezes (4.67 per viewer-minute), 3.6 s frozen of 90.0 s judged, the longest 600 ms"),
    );
    const none = reportToMarkdown(buildReport(makeInput([makeViewer(0, { codec: null })])));
    assert.ok(none.includes("**What viewers saw: unavailable** — no video track reached this viewer."));
  });
});
