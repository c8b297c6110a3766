// A cohort's own layer (docs/definitions.md#cohort-layers): through the built-in relay, three cohorts
// of a simulcast run ask for l, m and h from their start through the WHEP layer extension; every
// viewer stays on its cohort's layer for the whole hold, and each cohort's per-layer delay
// (#layer-delay) is of its own layer's frames only. A fourth group, the viewers outside every
// cohort, takes the scenario's `layerSwitch` (start l, h at 2 s): a cohort's choice replaces the
// scenario's for its own viewers only. Then one cohort's forced switch (its `layer` l, its
// `layerSwitch` to h at 2 s) beside a viewer that chooses nothing and keeps the relay's default.
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseCohorts } from "../../src/core/link/parse.ts";
import { LAYER_NO_FRAME } from "../../src/core/report/layer-delay.ts";
import { runThroughRelay } from "./harness.ts";
import { checkReportKeys } from "./report-keys.ts";

const RIDS = ["l", "m", "h"];

test("three cohorts ask for l, m and h: each viewer on its layer for the whole hold", async (t) => {
  const cohorts = parseCohorts(RIDS.map((rid) => ({ name: `on-${rid}`, viewers: 2, layer: rid })));
  const layerSwitch = { startRid: "l", atSeconds: 2, rid: "h" };
  const {
    report: r,
    json,
    markdown,
  } = await runThroughRelay(
    {},
    { simulcast: RIDS, viewers: 8, rampSeconds: 1, holdSeconds: 5, cohorts, layerSwitch },
  );
  assert.deepEqual(checkReportKeys(JSON.parse(json) as unknown).problems, []);
  assert.equal(r.aggregate.joined, 8);
  assert.deepEqual(
    r.scenario.cohorts?.map((c) => c.layer),
    RIDS,
  );
  for (const v of r.viewers ?? []) {
    const c = v.layerChoice;
    assert.ok(c?.available, `viewer ${v.id}: the relay offered the extension`);
    const layers = v.layers ?? [];
    if (v.cohort === undefined) {
      // the scenario's layerSwitch: l, then h at 2 s (the switch itself: layer-switch.test.ts)
      assert.deepEqual(
        c.asks.map((a) => a.rid),
        ["l", "h"],
        `viewer ${v.id}`,
      );
      continue;
    }
    const rid = v.cohort.slice("on-".length);
    assert.deepEqual(
      c.asks.map((a) => [a.rid, a.status]),
      [[rid, 200]],
      `viewer ${v.id}`,
    );
    assert.deepEqual(c.switches, [], `viewer ${v.id} (${v.cohort}) never changed layer`);
    for (const l of layers) {
      if (l.rid === rid) {
        // its whole time: the other layers have none (a loaded machine may join it late)
        assert.ok(l.timeMs > 1500, `viewer ${v.id}: ${l.timeMs} ms on ${rid}`);
        assert.ok(l.samples > 0 && l.delayMs?.n === l.samples, JSON.stringify(l));
      } else {
        assert.equal(l.timeMs, 0, `viewer ${v.id} (${v.cohort}): time on ${l.rid}`);
        assert.equal(l.samples, 0);
        assert.equal(l.reason, LAYER_NO_FRAME);
      }
    }
    assert.equal(v.oneWayDelay[0]?.invalid, 0, `viewer ${v.id}: every frame matched its layer's send`);
  }
  // each cohort's layer delay is its own layer's frames, pooled exactly over its two viewers
  for (const rid of RIDS) {
    const g = r.aggregate.cohorts?.find((c) => c.name === `on-${rid}`);
    const own = (r.viewers ?? []).filter((v) => v.cohort === g?.name);
    for (const p of g?.layerDelay ?? []) {
      const samples = own.reduce((a, v) => a + (v.layers?.find((l) => l.rid === p.rid)?.samples ?? 0), 0);
      assert.equal(p.samples, samples, `${g?.name} ${p.rid}`);
      if (p.rid === rid) {
        assert.equal(p.viewers, 2);
        assert.equal(p.delayMs?.n, samples);
        t.diagnostic(`${g?.name}: ${rid} p50 ${p.delayMs?.p50} ms, p95 ${p.delayMs?.p95} ms, n ${samples}`);
      } else assert.equal(p.reason, LAYER_NO_FRAME, `${g?.name} ${p.rid}`);
    }
    assert.equal(g?.layerDelay?.length, 3);
  }
  const pooled = r.aggregate.layerSwitches;
  assert.equal(pooled?.viewers, 8);
  assert.equal(pooled?.asked, 2, "only the viewers outside the cohorts asked for a switch");
  assert.match(
    markdown,
    /Viewers' layer choice: start l, h at 2 s; cohort on-l: start l; cohort on-m: start m;/,
  );
});

test("a cohort's forced switch: its viewer starts on l and switches to h at 2 s; a viewer outside chooses nothing", async () => {
  const cohorts = parseCohorts([
    { name: "forced", viewers: 1, layer: "l", layerSwitch: { atSeconds: 2, rid: "h" } },
  ]);
  const { report: r } = await runThroughRelay({}, { simulcast: RIDS, viewers: 2, holdSeconds: 5, cohorts });
  const forced = (r.viewers ?? []).find((v) => v.cohort === "forced");
  const other = (r.viewers ?? []).find((v) => v.cohort === undefined);
  assert.ok(forced?.joined && other?.joined);
  const c = forced.layerChoice;
  assert.deepEqual(
    c?.asks.map((a) => [a.rid, a.status]),
    [
      ["l", 200],
      ["h", 200],
    ],
  );
  const askH = c?.asks[1]?.askedMs ?? -1;
  assert.ok(askH >= 2000 && askH < 2500, `asked for h at ${askH} ms`);
  assert.deepEqual(
    c?.switches.map((s) => [s.from, s.to, s.askedMs]),
    [["l", "h", askH]],
  );
  // the viewer outside every cohort chose nothing: no choice block, the relay's default (h) only
  assert.equal(other.layerChoice, undefined);
  assert.deepEqual(
    (other.layers ?? []).map((l) => [l.rid, l.timeMs > 0]),
    [
      ["l", false],
      ["m", false],
      ["h", true],
    ],
  );
  assert.equal(r.aggregate.layerSwitches?.viewers, 1);
});
