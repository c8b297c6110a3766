// A cohort's own layer choice (docs/definitions.md#cohort-layers): `layer` (the rid its viewers ask
// for from their start) and `layerSwitch`, parsed beside the cohort's other keys, checked against
// the scenario's `simulcast`, written back in the scenario's notation; bad values exit 2 naming the
// key (`cohorts[1].layer`), never echoing the value.
import assert from "node:assert/strict";
import { test } from "node:test";
import { cohortLayerSpec } from "../../src/core/layer/layer-switch.ts";
import { cohortsJson } from "../../src/core/link/assign.ts";
import { parseCohorts } from "../../src/core/link/parse.ts";
import { parseScenario } from "../../src/core/scenario-file/scenario.ts";
import { shardTasks } from "../../src/main/run/shard-tasks.ts";

const BASE = {
  whip: "http://127.0.0.1:1/s/whip",
  whep: "http://127.0.0.1:1/s/whep",
  viewers: 6,
  holdSeconds: 1,
  simulcast: true,
};

function refused(over: Record<string, unknown>, message: string): void {
  assert.throws(
    () => parseScenario(JSON.stringify({ ...BASE, ...over })),
    (err: Error & { exitStatus?: number }) => {
      assert.equal(err.message, `scenario: ${message}`);
      assert.equal(err.exitStatus, 2);
      return true;
    },
  );
}

test("a cohort's layer is its start; its layerSwitch adds the switch; both write back as given", () => {
  const raw = [
    { name: "low", viewers: 2, layer: "l" },
    { name: "up", viewers: 2, layer: "m", layerSwitch: { atSeconds: 2, rid: "h" } },
    { name: "own", viewers: 1, layerSwitch: { startRid: "h", atSeconds: 1.5, rid: "l" } },
    { name: "plain", viewers: 1 },
  ];
  const cohorts = parseCohorts(raw);
  assert.deepEqual(cohorts.map(cohortLayerSpec), [
    { startRid: "l" },
    { atSeconds: 2, rid: "h", startRid: "m" },
    { startRid: "h", atSeconds: 1.5, rid: "l" },
    undefined,
  ]);
  assert.deepEqual(cohortsJson(cohorts), raw);
  const s = parseScenario(JSON.stringify({ ...BASE, cohorts: raw }));
  assert.deepEqual(s.cohorts?.[0]?.layer, "l");
});

test("bad cohort layer values exit 2 naming the key, never echoing the value", () => {
  const c = (extra: Record<string, unknown>) => ({
    cohorts: [
      { name: "a", viewers: 1 },
      { name: "b", viewers: 1, ...extra },
    ],
  });
  refused(c({ layer: "x-secret" }), "cohorts[1].layer: want a layer (l, m, h)");
  refused(c({ layer: 2 }), "cohorts[1].layer: want a layer (l, m, h)");
  refused(
    c({ layerSwitch: "h" }),
    'cohorts[1].layerSwitch: want an object {"startRid", "atSeconds", "rid"} naming layers l, m, h',
  );
  refused(c({ layerSwitch: { rid: "h" } }), "cohorts[1].layerSwitch: atSeconds and rid come together");
  refused(
    c({ layerSwitch: { atSeconds: 0, rid: "h" } }),
    "cohorts[1].layerSwitch: atSeconds must be a number of seconds above 0 and at most 3600",
  );
  refused(
    c({ layer: "l", layerSwitch: { startRid: "m" } }),
    "cohorts[1].layerSwitch.startRid: the cohort's layer is its start: name one of them",
  );
  refused(
    c({ layer: "l", layerSwitch: { atSeconds: 1, rid: "l" } }),
    "cohorts[1].layerSwitch.rid: is the cohort's layer, where it starts",
  );
  // against the scenario's layers
  refused(
    { simulcast: ["l", "h"], ...c({ layer: "m" }) },
    'cohorts[1].layer "m" is not one of the simulcast layers (l, h)',
  );
  refused(
    { simulcast: ["l", "h"], ...c({ layer: "l", layerSwitch: { atSeconds: 1, rid: "m" } }) },
    'cohorts[1].layerSwitch.rid "m" is not one of the simulcast layers (l, h)',
  );
  refused(
    { simulcast: false, ...c({ layer: "l" }) },
    "cohorts[1].layer needs simulcast (the layers to choose from)",
  );
  refused(
    { simulcast: false, ...c({ layerSwitch: { atSeconds: 1, rid: "m" } }) },
    "cohorts[1].layerSwitch needs simulcast (the layers to choose from)",
  );
});

test("the shards carry the layers when only a cohort chooses, with no scenario-wide choice", () => {
  const s = parseScenario(JSON.stringify({ ...BASE, cohorts: [{ name: "low", viewers: 2, layer: "l" }] }));
  const opts = {
    workers: 2,
    scenario: s,
    schedule: { startNs: [0, 0, 0, 0, 0, 0], viewersPhaseNs: 1e9 },
    bearer: undefined,
    t0MonoNs: 0,
    anchor: { wallMs: 0, monoNs: 0 },
    ice: { loopbackOnly: true, includeLoopback: false },
    sendLog: null,
    identity: null,
    publisherWallMinusMono: null,
  } as unknown as Parameters<typeof shardTasks>[0];
  for (const t of shardTasks(opts)) assert.deepEqual(t.layerSwitch, { spec: null, rids: ["l", "m", "h"] });
  const none = parseScenario(JSON.stringify({ ...BASE, cohorts: [{ name: "low", viewers: 2 }] }));
  for (const t of shardTasks({ ...opts, scenario: none })) assert.equal(t.layerSwitch, undefined);
});

test("a layerSwitch reads back in the report's key order (startRid, atSeconds, rid), as the file wrote it or not", () => {
  const s = parseScenario(
    JSON.stringify({ ...BASE, layerSwitch: { rid: "h", atSeconds: 1, startRid: "l" } }),
  );
  assert.deepEqual(Object.keys(s.layerSwitch ?? {}), ["startRid", "atSeconds", "rid"]);
});
