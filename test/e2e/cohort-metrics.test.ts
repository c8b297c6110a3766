// /metrics with cohorts from a real run through the built-in relay (docs/definitions.md#prometheus-metrics):
// the shard counts each viewer into its cohort, so at the end each cohort's families equal its
// entry of aggregate.cohorts[] (viewers joined, the one-way delay's sample count) and the
// delayed cohort's delay histogram sits 20 ms above the unimpaired one's.
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseCohorts } from "../../src/core/link/parse.ts";
import { RunMetrics } from "../../src/main/observe/metrics.ts";
import { inThreadEngine } from "../../src/main/run/engine.ts";
import { parseExposition, sampleValue } from "../unit/prom-text.ts";
import { runThroughRelay } from "./harness.ts";

test("each cohort's /metrics families end equal to its report entry", async () => {
  const metrics = new RunMetrics({
    viewersTarget: 4,
    cohorts: [
      { name: "far", viewers: 2 },
      { name: "unimpaired", viewers: 2 },
    ],
  });
  const cohorts = parseCohorts([{ name: "far", viewers: 2, down: { delay: "20ms" } }]);
  const { report } = await runThroughRelay(
    {},
    { viewers: 4, rampSeconds: 1, holdSeconds: 4, cohorts },
    inThreadEngine({ liveDelays: true }),
    (t) => metrics.applyTick(t),
  );
  assert.ok(report.aggregate.valid, report.aggregate.verdict);
  const fams = parseExposition(await metrics.text());
  for (const c of report.aggregate.cohorts ?? []) {
    const labels = { cohort: c.name };
    assert.equal(sampleValue(fams, "whipbench_cohort_viewers_joined_total", labels), c.joined, c.name);
    assert.equal(sampleValue(fams, "whipbench_cohort_viewers_started_total", labels), c.viewers, c.name);
    const samples = c.oneWayDelay[0]?.samples ?? 0;
    assert.ok(samples > 0, `${c.name} has delay samples`);
    // the live samples include each viewer's first seconds, which the report leaves out
    const count = sampleValue(fams, "whipbench_cohort_one_way_delay_seconds_count", labels);
    assert.ok(count >= samples, `${c.name}: ${count} live samples, ${samples} in the report`);
    // what its viewers saw: each freeze counted live once, frozen time within 1 ms a freeze (whole ms in the report)
    const render = c.render;
    if (render === undefined) assert.fail(`${c.name}: no render block`);
    assert.ok(render.available, `${c.name}: ${render.reason ?? ""}`);
    assert.equal(sampleValue(fams, "whipbench_cohort_freezes_total", labels), render.freezes, c.name);
    const frozen = sampleValue(fams, "whipbench_cohort_frozen_seconds_total", labels);
    assert.ok(
      Math.abs(frozen - render.frozenSeconds) <= 1e-3 * render.freezes + 1e-9,
      `${c.name}: ${frozen} s`,
    );
  }
  const mean = (cohort: string) =>
    sampleValue(fams, "whipbench_cohort_one_way_delay_seconds_sum", { cohort }) /
    sampleValue(fams, "whipbench_cohort_one_way_delay_seconds_count", { cohort });
  const added = (mean("far") - mean("unimpaired")) * 1e3;
  assert.ok(added > 17 && added < 25, `far's mean is ${added.toFixed(2)} ms above the unimpaired one`);
  const all = sampleValue(fams, "whipbench_one_way_delay_seconds_count", { source: "fingerprint" });
  assert.equal(
    sampleValue(fams, "whipbench_cohort_one_way_delay_seconds_count", { cohort: "far" }) +
      sampleValue(fams, "whipbench_cohort_one_way_delay_seconds_count", { cohort: "unimpaired" }),
    all,
    "the cohorts' delay counts add up to the whole run's",
  );
});
