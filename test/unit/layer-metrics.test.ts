// /metrics with simulcast (docs/definitions.md#layer-metrics): the whipbench_layer_* families come
// last with a `layer` label (the switches a `from` and a `to`), fed by the shards' layer ticks; a
// viewer's stays report each change of layer and each asked switch's time as it happens.
import assert from "node:assert/strict";
import { test } from "node:test";
import { LayerStays } from "../../src/core/delay/layer-stays.ts";
import { emptyTick } from "../../src/main/agents/tick-merge.ts";
import { RunMetrics } from "../../src/main/observe/metrics.ts";
import { layerStayHooks } from "../../src/workers/viewer/layer-live.ts";
import type { ViewerLive } from "../../src/workers/viewer/viewer-context.ts";
import { parseExposition, sampleValue } from "./prom-text.ts";

const THREAD = { cpuSeconds: 0, eventLoopUtilisation: 0, eventLoopDelayMs: { p50: 0, p99: 0, max: 0 } };
const LAYER_FAMILIES = [
  "whipbench_layer_one_way_delay_seconds",
  "whipbench_layer_switches_total",
  "whipbench_layer_switch_seconds",
];

test("with simulcast: the layer families come last, zeroed per layer, and take a tick's pairs", async () => {
  const m = new RunMetrics({ viewersTarget: 2, layers: ["l", "m", "h"] });
  const before = parseExposition(await m.text());
  assert.deepEqual(
    before.slice(-3).map((f) => f.name),
    LAYER_FAMILIES,
  );
  assert.equal(sampleValue(before, "whipbench_layer_one_way_delay_seconds_count", { layer: "m" }), 0);
  assert.equal(sampleValue(before, "whipbench_layer_switches_total", { from: "h", to: "l" }), 0);
  m.applyTick({
    ...emptyTick(0, 1, THREAD),
    // l: one frame at 5 ms; h: two at 20 and 30 ms; one switch l → h, 300 ms to h's keyframe; a
    // layer index the scenario does not name (7) is dropped
    layers: { delays: [0, 5e6, 2, 20e6, 2, 30e6, 7, 1e6], switches: [0, 2, 7, 0], switchNs: [2, 300e6] },
  });
  const f = parseExposition(await m.text());
  const v = (name: string, labels: Record<string, string>) => sampleValue(f, name, labels);
  assert.equal(v("whipbench_layer_one_way_delay_seconds_count", { layer: "l" }), 1);
  assert.equal(v("whipbench_layer_one_way_delay_seconds_count", { layer: "h" }), 2);
  assert.ok(Math.abs(v("whipbench_layer_one_way_delay_seconds_sum", { layer: "h" }) - 0.05) < 1e-9);
  assert.equal(v("whipbench_layer_one_way_delay_seconds_count", { layer: "m" }), 0);
  assert.equal(v("whipbench_layer_switches_total", { from: "l", to: "h" }), 1);
  assert.equal(v("whipbench_layer_switches_total", { from: "h", to: "l" }), 0);
  assert.equal(v("whipbench_layer_switch_seconds_count", { layer: "h" }), 1);
  assert.ok(Math.abs(v("whipbench_layer_switch_seconds_sum", { layer: "h" }) - 0.3) < 1e-9);
  // without simulcast: no layer family
  const plain = parseExposition(await new RunMetrics({ viewersTarget: 2 }).text());
  assert.equal(plain.filter((x) => x.name.startsWith("whipbench_layer_")).length, 0);
});

test("a viewer's stays report a change of layer at its first frame and an asked switch's time at its keyframe", () => {
  const changes: number[][] = [];
  const times: number[][] = [];
  const live = {
    layerSwitch: (from: number, to: number) => changes.push([from, to]),
    layerSwitchTime: (layer: number, ns: number) => times.push([layer, ns]),
  } as unknown as ViewerLive;
  const asks = [
    { rid: "l", atNs: 0, status: 200 },
    { rid: "h", atNs: 1000, status: 200 },
  ];
  const stays = new LayerStays(3);
  stays.hooks = layerStayHooks(live, () => asks, ["l", "m", "h"]);
  stays.frame(0, 100, 0, true); // the first stay: no switch
  stays.frame(0, 200, 3000, false);
  stays.frame(2, 1300, 6000, false); // h's first frame, a delta: the change, no time yet
  assert.deepEqual(changes, [[0, 2]]);
  assert.deepEqual(times, []);
  stays.frame(2, 1500, 9000, true); // h's first keyframe: 500 ns after the ask for h
  stays.frame(2, 1600, 12000, true); // a later keyframe counts nothing
  assert.deepEqual(times, [[2, 500]]);
  stays.frame(1, 1700, 15000, true); // m, unasked: a change with a keyframe, no time
  assert.deepEqual(changes, [
    [0, 2],
    [2, 1],
  ]);
  assert.deepEqual(times, [[2, 500]]);
  // without live hooks on the shard: none
  assert.equal(
    layerStayHooks({} as ViewerLive, () => asks, []),
    null,
  );
});
