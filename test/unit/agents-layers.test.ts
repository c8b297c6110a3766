// Simulcast on agents (docs/definitions.md#many-hosts): the send log's hello carries the layers'
// combined identity and their number, the agent checks a simulcast scenario without whip, the
// coordinator accepts a record's per-layer fields and a tick's live layer pairs (and nothing
// malformed in them), an agent's threads' layer pairs merge whole, and a viewer's layer choice
// (its asks and switches) passes the shape check and moves between the clocks.
import assert from "node:assert/strict";
import { test } from "node:test";
import { syntheticRecord } from "../../bench/sim-agents.ts";
import { loadSimulcastClips } from "../../src/core/clip/simulcast.ts";
import { clipIdentity, createHasher } from "../../src/core/delay/fingerprint.ts";
import { DelayHistogram } from "../../src/core/stats/summaries.ts";
import { agentScenario } from "../../src/main/agents/agent-share.ts";
import { shiftRecordInstants } from "../../src/main/agents/record-clock.ts";
import { recordOk, tickOk } from "../../src/main/agents/shapes.ts";
import { emptyTick, MAX_LIVE_SAMPLES, mergeTicks } from "../../src/main/agents/tick-merge.ts";
import { followSendLog, serveSendLog } from "../../src/main/split/sendlog-channel.ts";

const THREAD = { cpuSeconds: 0, eventLoopUtilisation: 0, eventLoopDelayMs: { p50: 0, p99: 0, max: 0 } };

test("the send log's hello carries the layers: the follower's identity is the combined table's", async () => {
  const sc = loadSimulcastClips("vp8", ["l", "h"]);
  const identity = { ...clipIdentity(await createHasher(), sc.combined), layers: 2 };
  const server = await serveSendLog("127.0.0.1", 0, identity, undefined);
  const stop = new AbortController();
  try {
    const got = await followSendLog("127.0.0.1", server.port, undefined, stop.signal, () => {}, 2000);
    assert.equal(got.layers, 2);
    assert.equal(got.fingerprints.length, sc.combined.frames.length);
    assert.deepEqual(got.fingerprints, identity.fingerprints);
  } finally {
    stop.abort();
    await server.close();
  }
});

test("an agent takes a simulcast scenario without whip; a bad simulcast still names its key", () => {
  const base = { whip: "http://h/whip", whep: "http://h/whep", viewers: 2, holdSeconds: 1 };
  const s = agentScenario({ ...base, simulcast: ["l", "h"] });
  assert.deepEqual(s.simulcast, ["l", "h"]);
  assert.equal(s.whip, undefined);
  assert.throws(() => agentScenario({ ...base, simulcast: "lots" }), /simulcast/);
});

test("a record's per-layer fields and a tick's layer pairs pass; malformed ones do not", () => {
  const ids = new Set([1]);
  const hist = new DelayHistogram();
  hist.recordNs(3e6);
  const rec = {
    ...syntheticRecord(1, [1e6]),
    layerSamples: [0, 1],
    layerNs: [0, 2e9],
    layerDelayHists: [new DelayHistogram().encode(), hist.encode()],
    layerFrames: [0, 60],
    layerExcluded: [0, 30],
  };
  assert.equal(recordOk(JSON.parse(JSON.stringify(rec)), ids), true);
  assert.equal(recordOk({ ...rec, layerSamples: ["1"] }, ids), false);
  assert.equal(recordOk({ ...rec, layerNs: Array(17).fill(0) }, ids), false, "more layers than any scenario");
  assert.equal(
    recordOk({ ...rec, layerDelayHists: [{ hdr: "!!", n: 1, sumNs: 0, minNs: 0, maxNs: 0 }] }, ids),
    false,
  );
  const tick = { ...emptyTick(0, 2, THREAD), layers: { delays: [1, 3e6], switches: [], switchNs: [] } };
  assert.equal(tickOk(JSON.parse(JSON.stringify(tick))), true);
  assert.equal(tickOk({ ...tick, layers: { delays: [1, 3e6] } }), false);
  assert.equal(tickOk({ ...tick, layers: { ...tick.layers, switches: ["h"] } }), false);
});

test("an agent's threads' layer pairs merge whole: all of them, or thinned pairs", () => {
  const tick = (delays: number[], switches: number[] = []) => ({
    ...emptyTick(0, 3, THREAD),
    layers: { delays, switches, switchNs: [] },
  });
  const m = mergeTicks([tick([0, 1e6, 1, 2e6], [0, 1]), emptyTick(0, 3, THREAD), tick([1, 5e6])]);
  assert.deepEqual(m?.layers, { delays: [0, 1e6, 1, 2e6, 1, 5e6], switches: [0, 1], switchNs: [] });
  assert.equal(mergeTicks([emptyTick(0, 3, THREAD)])?.layers, undefined, "no layers: none invented");
  const many = Array.from({ length: 2 * MAX_LIVE_SAMPLES + 2 }, (_, i) => (i % 2 === 0 ? 1 : 7e6 + i));
  const thinned = mergeTicks([tick(many)])?.layers?.delays ?? [];
  assert.equal(thinned.length, 2 * MAX_LIVE_SAMPLES);
  for (let i = 0; i < thinned.length; i += 2) assert.equal(thinned[i], 1, "every pair starts with its layer");
});

test("an agent takes layerSwitch and a cohort's layer without whip; a layer simulcast lacks names its key", () => {
  const base = { whip: "http://h/whip", whep: "http://h/whep", viewers: 2, holdSeconds: 1 };
  const layerSwitch = { startRid: "l", atSeconds: 1, rid: "h" };
  const cohorts = [{ name: "low", viewers: 1, layer: "l", layerSwitch: { atSeconds: 2, rid: "h" } }];
  const s = agentScenario({ ...base, simulcast: ["l", "h"], layerSwitch, cohorts });
  assert.deepEqual(s.layerSwitch, layerSwitch);
  assert.equal(s.cohorts?.[0]?.layer, "l");
  assert.deepEqual(s.cohorts?.[0]?.layerSwitch, { atSeconds: 2, rid: "h" });
  assert.throws(
    () => agentScenario({ ...base, simulcast: ["l", "h"], layerSwitch: { startRid: "m" } }),
    /layerSwitch: startRid "m" is not one of the simulcast layers/,
  );
  assert.throws(
    () => agentScenario({ ...base, cohorts: [{ name: "low", viewers: 1, layer: "l" }] }),
    /cohorts\[0\]\.layer needs simulcast/,
  );
});

const CHOICE = {
  asks: [
    { rid: "l", atNs: 5e6, status: 200 },
    { rid: "h", atNs: 1.005e9, status: 200 },
  ],
  switches: [{ from: "l", to: "h", askedNs: 1.005e9, switchNs: 4e7, framesLost: 0 }],
};

test("a record's layer choice passes; a malformed or oversized one does not", () => {
  const ids = new Set([1]);
  const rec = { ...syntheticRecord(1, [1e6]), layerChoice: CHOICE };
  assert.equal(recordOk(JSON.parse(JSON.stringify(rec)), ids), true);
  const unasked = { ...CHOICE, switches: [{ ...CHOICE.switches[0], askedNs: null, switchNs: null }] };
  assert.equal(recordOk({ ...rec, layerChoice: unasked }, ids), true);
  const refused = { reason: "the server offered no layer extension", asks: [], switches: [] };
  assert.equal(recordOk({ ...rec, layerChoice: refused }, ids), true);
  const bad = [
    { ...CHOICE, asks: [{ rid: "h", atNs: "soon", status: 200 }] },
    { ...CHOICE, asks: [{ rid: "h", atNs: 1, status: 200, token: "x" }] },
    { ...CHOICE, switches: [{ from: "l", to: "h", askedNs: 1, switchNs: 1 }] },
    { ...CHOICE, switches: Array(513).fill(CHOICE.switches[0]) },
    { ...CHOICE, extra: 1 },
    { asks: [] },
  ];
  for (const layerChoice of bad)
    assert.equal(recordOk({ ...rec, layerChoice }, ids), false, JSON.stringify(layerChoice).slice(0, 80));
});

test("a record's instants go out relative to the agent's t0 and come back on the coordinator's", () => {
  const rec = { ...syntheticRecord(1, [1e6]), postMonoNs: 7e9, stopMonoNs: 9e9, layerChoice: CHOICE };
  const wire = shiftRecordInstants(rec, -6e9);
  assert.equal(wire.postMonoNs, 1e9);
  assert.equal(wire.stopMonoNs, 3e9);
  assert.deepEqual(
    wire.layerChoice?.asks.map((a) => a.atNs),
    [5e6 - 6e9, 1.005e9 - 6e9],
  );
  const back = shiftRecordInstants(wire, 100e9);
  assert.equal(back.postMonoNs, 101e9);
  assert.equal(back.layerChoice?.switches[0]?.askedNs, 1.005e9 + 94e9);
  assert.equal(back.layerChoice?.switches[0]?.switchNs, 4e7, "a duration is not moved");
  assert.equal(rec.postMonoNs, 7e9, "the record itself is not changed");
  const ask = (r: typeof back) => (r.layerChoice?.asks[1]?.atNs ?? 0) - (r.postMonoNs ?? 0);
  assert.equal(ask(back), ask(rec), "the ask stays where it was after the viewer's POST");
});
