// /metrics with reference viewers (docs/definitions.md#reference-viewer-metrics): their families
// after every other (the cohorts' too), one series per group declared at 0, each getStats reading
// adding what grew since that reference viewer's previous one; none without reference viewers.
import assert from "node:assert/strict";
import { test } from "node:test";
import { type ReferenceFigures, zeroReferenceFigures } from "../../src/core/reference/figures.ts";
import { RunMetrics } from "../../src/main/observe/metrics.ts";
import { COHORT_FAMILIES, family, parseExposition, REFERENCE_FAMILIES, sampleValue } from "./prom-text.ts";

const REFERENCE = [
  { cohort: "far", viewers: 2 },
  { cohort: "unimpaired", viewers: 1 },
];

test("reference families come last, after the cohorts', a series per group at 0 from the start", async () => {
  const m = new RunMetrics({
    viewersTarget: 10,
    cohorts: [{ name: "far", viewers: 3 }],
    reference: REFERENCE,
  });
  const fams = parseExposition(await m.text());
  assert.deepEqual(
    fams.slice(-REFERENCE_FAMILIES.length).map((f) => [f.name, f.type]),
    REFERENCE_FAMILIES.map(([n, t]) => [n, t]),
  );
  assert.deepEqual(
    fams
      .slice(-REFERENCE_FAMILIES.length - COHORT_FAMILIES.length, -REFERENCE_FAMILIES.length)
      .map((f) => f.name),
    COHORT_FAMILIES.map(([n]) => n),
  );
  for (const [name] of REFERENCE_FAMILIES) {
    assert.deepEqual(
      family(fams, name).samples.map((s) => s.labels["cohort"]),
      ["far", "unimpaired"],
      name,
    );
  }
  assert.equal(sampleValue(fams, "whipbench_reference_viewers", { cohort: "far" }), 2);
  assert.equal(sampleValue(fams, "whipbench_reference_freezes_total", { cohort: "far" }), 0);
});

test("cumulative readings add what grew, per reference viewer, summed per group", async () => {
  const m = new RunMetrics({ viewersTarget: 10, reference: REFERENCE });
  const at = (freezes: number, decoded: number): ReferenceFigures => ({
    ...zeroReferenceFigures(),
    freezes,
    framesDecoded: decoded,
  });
  m.applyReference("far", 0, at(1, 30));
  m.applyReference("far", 0, at(2, 60)); // the same viewer a second later: +1, +30
  m.applyReference("far", 1, at(0, 55)); // the other one
  m.applyReference("nobody", 0, at(9, 9)); // a group the scenario does not name: no series
  const fams = parseExposition(await m.text());
  assert.equal(sampleValue(fams, "whipbench_reference_freezes_total", { cohort: "far" }), 2);
  assert.equal(sampleValue(fams, "whipbench_reference_frames_decoded_total", { cohort: "far" }), 115);
  assert.equal(sampleValue(fams, "whipbench_reference_frames_decoded_total", { cohort: "unimpaired" }), 0);
  assert.ok(
    !family(fams, "whipbench_reference_freezes_total").samples.some((s) => s.labels["cohort"] === "nobody"),
  );
});

test("without reference viewers there is no reference family", async () => {
  const fams = parseExposition(await new RunMetrics({ viewersTarget: 10 }).text());
  assert.ok(!fams.some((f) => f.name.startsWith("whipbench_reference_")));
});
