// The HTML report with churn (docs/definitions.md#churn-figures): a card with the counts of
// viewers, late joiners, joins and leaves and the late joiners' setup and join, the same figures
// as the Markdown's churn section; no figures without a verdict, no card without churn.
import assert from "node:assert/strict";
import { test } from "node:test";
import { buildReport, buildReportParts } from "../../src/core/report/build.ts";
import { delayDistribution } from "../../src/core/report/distribution.ts";
import { reportToHtml } from "../../src/core/report/html.ts";
import { churnSection } from "../../src/core/report/html-churn.ts";
import { htmlAssets } from "../../src/main/output/html-report.ts";
import { goldenChurnInput, goldenInput } from "./golden-fixtures.ts";

/** The section's table as rows of cell texts (header row first). */
function table(section: string): string[][] {
  return [...section.matchAll(/<tr>(.*?)<\/tr>/g)].map((row) =>
    [...(row[1] ?? "").matchAll(/<t[hd][^>]*>(.*?)<\/t[hd]>/g)].map((c) => c[1] ?? ""),
  );
}

test("the churn card: counts of the run, and the late joiner's setup and join as summaries", () => {
  const r = buildReport(goldenChurnInput());
  const html = churnSection(r);
  assert.match(html, /3 viewers in all; late joiners 1 \(1 joined\); joins 3; leaves 1 /);
  const rows = table(html);
  assert.deepEqual(rows[0], ["late joiners", "n", "p50", "p95", "p99", "min", "max"]);
  const byLabel = new Map(rows.slice(1).map((row) => [row[0], row.slice(1)]));
  // the one late joiner: POST → answer 9.5 ms, ICE 21.25 ms, first keyframe 412.5 ms
  assert.deepEqual(byLabel.get("setup: signalling (POST → answer)"), ["1", ...Array(5).fill("9.5 ms")]);
  assert.deepEqual(byLabel.get("setup: ICE connected"), ["1", ...Array(5).fill("21.2 ms")]);
  assert.deepEqual(byLabel.get("join: first keyframe"), ["1", ...Array(5).fill("412.5 ms")]);
  assert.equal(rows.length, 4, "a header and three rows");
});

test("the churn card: dashes when no late joiner joined; no figures without a verdict; absent without churn", () => {
  const r = buildReport(goldenChurnInput());
  const c = r.aggregate.churn;
  assert.ok(c !== undefined);
  const none = { n: 0, min: 0, mean: 0, p50: 0, p95: 0, p99: 0, max: 0 };
  const noLate = {
    ...r,
    aggregate: {
      ...r.aggregate,
      churn: {
        ...c,
        lateJoins: 0,
        lateSignallingMs: none,
        lateIceConnectedMs: none,
        lateJoinFirstKeyframeMs: none,
      },
    },
  };
  for (const row of table(churnSection(noLate)).slice(1))
    assert.deepEqual(row.slice(1), ["0", ...Array(5).fill("—")]);
  const invalid = churnSection({ ...r, aggregate: { ...r.aggregate, valid: false } });
  assert.ok(invalid.includes("No verdict") && !invalid.includes("412.5 ms") && !invalid.includes("leaves 1"));
  assert.equal(churnSection(buildReport(goldenInput())), "");
});

test("the run report's page holds the churn card after the charts, before the viewers", async () => {
  const input = goldenChurnInput();
  const r = buildReport(input);
  const page = reportToHtml(r, delayDistribution(r, buildReportParts(input).pools), await htmlAssets());
  const at = page.indexOf('<section id="churn"');
  assert.ok(at > page.indexOf('<section class="charts">') && at < page.indexOf("<h2>Viewers</h2>"));
  const plain = buildReport(goldenInput());
  assert.ok(
    !reportToHtml(
      plain,
      delayDistribution(plain, buildReportParts(goldenInput()).pools),
      await htmlAssets(),
    ).includes('id="churn"'),
  );
});
