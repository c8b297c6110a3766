// libwebrtc inside a run, as its reference (docs/definitions.md#reference-viewers): a run through
// the built-in relay with a delayed cohort and the unimpaired viewers, one libwebrtc reference
// viewer beside each. Their getStats figures reach the report (JSON, Markdown) and /metrics; they
// are not load (the load's figures count only the scenario's viewers); the unimpaired group gets
// an agreement line, the delayed cohort says its link was not applied. Skipped, with its reason,
// where @roamhq/wrtc is not installed, unless WHIPBENCH_LIBWEBRTC_REQUIRED=1 (CI).
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseCohorts } from "../../src/core/link/parse.ts";
import { REFERENCE_FIGURES } from "../../src/core/reference/figures.ts";
import { RunMetrics } from "../../src/main/observe/metrics.ts";
import { wrtcMissing } from "../../src/main/reference/wrtc.ts";
import { inThreadEngine } from "../../src/main/run/engine.ts";
import { parseExposition, sampleValue } from "../unit/prom-text.ts";
import { runThroughRelay } from "./harness.ts";

const missing = wrtcMissing();
const required = process.env.WHIPBENCH_LIBWEBRTC_REQUIRED === "1";
const skip = missing !== null && !required ? `libwebrtc cannot run here: ${missing}` : false;

test("reference viewers beside a cohort and the unimpaired viewers reach the report and /metrics", {
  skip,
  timeout: 120_000,
}, async () => {
  assert.equal(missing, null, `WHIPBENCH_LIBWEBRTC_REQUIRED=1 but ${missing}`);
  const metrics = new RunMetrics({
    viewersTarget: 4,
    reference: [
      { cohort: "far", viewers: 1 },
      { cohort: "unimpaired", viewers: 1 },
    ],
  });
  const cohorts = parseCohorts([{ name: "far", viewers: 2, down: { delay: "20ms" } }]);
  const { report, markdown, relay } = await runThroughRelay(
    {},
    // a 10 s join timeout: this test is about the reference viewers, not a loaded machine's joins
    { viewers: 4, rampSeconds: 1, holdSeconds: 6, joinTimeoutSeconds: 10, cohorts, referenceViewers: 1 },
    inThreadEngine(),
    undefined,
    { onReferenceFigures: (g, i, f) => metrics.applyReference(g === "" ? "unimpaired" : g, i, f) },
  );
  assert.ok(
    report.aggregate.valid,
    `${report.aggregate.verdict} ${JSON.stringify(report.viewers?.map((v) => v.error))}`,
  );
  // not load: the scenario's 4 viewers, no more, in every load figure
  assert.equal(report.aggregate.viewers, 4);
  assert.equal(report.viewers?.length, 4);
  assert.equal(report.scenario.referenceViewers, 1);
  assert.equal(
    relay.whepPostsMonoNs.length,
    6,
    "the relay took the 4 viewers' offers and the 2 reference viewers' (with the bearer)",
  );
  const all = report.aggregate.reference;
  assert.ok(all !== undefined, "aggregate.reference");
  assert.ok(all.available, all.reason);
  assert.equal(all.viewers, 2);
  assert.equal(all.measured, 2);
  assert.ok((all.framesDecoded ?? 0) > 60, `frames decoded ${all.framesDecoded}`);
  assert.ok((all.measuredSeconds ?? 0) > 4, `measured ${all.measuredSeconds} s`);
  assert.ok((all.jitterBufferDelayMs ?? -1) >= 0);
  assert.equal(all.agreement.judged, false, "the whole run mixes a cohort whose link they were not behind");
  const [far, unimpaired] = report.aggregate.cohorts ?? [];
  assert.equal(far?.reference?.linkApplied, false);
  assert.match(far?.reference?.agreement.line ?? "", /^not judged: the cohort's emulated link/);
  const ref = unimpaired?.reference;
  assert.ok(ref?.available, ref?.reason);
  assert.equal(ref.agreement.judged, true, ref.agreement.line);
  assert.match(ref.agreement.line, /^(agree within|differ beyond) the calibration's tolerance/);
  // a clean stream: libwebrtc and the model both show it whole
  assert.equal(ref.agreement.agrees, true, ref.agreement.line);
  for (const f of REFERENCE_FIGURES) {
    const sum = (far?.reference?.[f.key] ?? 0) + (ref[f.key] ?? 0);
    assert.ok(Math.abs((all[f.key] ?? -1) - sum) < 1e-9, `aggregate.reference.${f.key} sums the groups`);
  }
  assert.match(markdown, /## Reference viewers \(libwebrtc\)/);
  assert.match(markdown, /2 libwebrtc reference viewers/);
  assert.match(markdown, /- unimpaired: (agree within|differ beyond)/);
  assert.match(markdown, /- far \(without the cohort's emulated link\): not judged/);
  const fams = parseExposition(await metrics.text());
  for (const [cohort, block] of [
    ["far", far?.reference],
    ["unimpaired", ref],
  ] as const) {
    for (const f of REFERENCE_FIGURES) {
      const v = sampleValue(fams, `whipbench_reference_${f.metric}`, { cohort });
      assert.ok(
        Math.abs(v - (block?.[f.key] ?? -1)) < 1e-9,
        `${cohort} ${f.metric}: ${v} vs ${block?.[f.key]}`,
      );
    }
    assert.equal(sampleValue(fams, "whipbench_reference_viewers", { cohort }), 1);
  }
});

test("a reference viewer answers a server's counter-offer (406, PATCH) as the viewers do", {
  skip,
  timeout: 120_000,
}, async () => {
  assert.equal(missing, null, `WHIPBENCH_LIBWEBRTC_REQUIRED=1 but ${missing}`);
  const { report } = await runThroughRelay(
    { counterOffer: true },
    { viewers: 2, rampSeconds: 0.5, holdSeconds: 4, joinTimeoutSeconds: 10, referenceViewers: 1 },
  );
  assert.ok(report.aggregate.valid, report.aggregate.verdict);
  assert.equal(report.viewers?.[0]?.whepFlow, "counter-offer");
  const ref = report.aggregate.reference;
  assert.ok(ref?.available, ref?.reason);
  assert.equal(ref.measured, 1);
  assert.ok((ref.framesDecoded ?? 0) > 0, `frames decoded ${ref.framesDecoded}`);
});
