// The coordinator's merge (issue 16): simulated agents' real wire frames through the real
// agents engine. The merged histograms are the exact union of the agents'; an agent that sends
// a malformed record is lost (and counted) with only its own viewers; the run's clock follows
// the worst host.
import assert from "node:assert/strict";
import { test } from "node:test";
import { dealIds, simAgents, simEngine } from "../../bench/sim-agents.ts";
import { decodeViewer } from "../../src/core/report/decode.ts";
import type { ReportInput } from "../../src/core/report/input.ts";
import { DelayHistogram } from "../../src/core/stats/summaries.ts";
import { missingNames } from "../../src/main/agents/coordinator.ts";
import { mergedClock } from "../../src/main/agents/host-merge.ts";
import { encodeFrame } from "../../src/main/agents/wire.ts";
import type { ShardTick } from "../../src/workers/protocol.ts";

const O = { agents: 3, viewersPerAgent: 4, seconds: 3, fps: 20, seed: 7 };

test("the merged delay histogram of every viewer is the exact union of the agents' samples", async () => {
  const agents = simAgents(O, dealIds(3, 12));
  const { engine, tasks } = simEngine(agents, 12);
  await engine.warmUp?.(3);
  const ticks: ShardTick[] = [];
  const running = engine.run(tasks, new AbortController().signal, (t) => ticks.push(t));
  for (const a of agents) a.deliver([...a.ticks, ...a.finals]);
  const res = await running;
  assert.equal(res.records.length, 12);
  assert.deepEqual(
    res.records.map((r) => r.id).sort((a, b) => a - b),
    [...Array(12).keys()],
  );
  assert.equal(res.profiles.length, 12, "4 worker profiles from each agent, renumbered");
  assert.deepEqual(
    res.profiles.map((p) => p.shard),
    [...Array(12).keys()],
  );
  assert.deepEqual([...new Set(ticks.map((t) => t.shard))].sort(), [0, 1, 2]);
  const merged = DelayHistogram.union(...res.records.map((r) => decodeViewer(r).delayHist));
  const union = new DelayHistogram();
  for (const a of agents) for (const ns of a.samples) union.recordNs(ns);
  assert.deepEqual(merged.encode(), union.encode());
  for (const p of [0.5, 0.9, 0.99, 0.999, 1]) assert.equal(merged.quantileNs(p), union.quantileNs(p));
  // what the viewers would have seen crosses the wire whole: counters and recovery histograms
  const recoveries = DelayHistogram.union(...res.records.map((r) => DelayHistogram.decode(r.recoveryHist)));
  const sent = DelayHistogram.union(
    ...agents.flatMap((a) => a.records.map((r) => DelayHistogram.decode(r.recoveryHist))),
  );
  assert.ok(recoveries.count > 0);
  assert.deepEqual(recoveries.encode(), sent.encode());
  const freezes = (rs: readonly { render: { freezes: number } }[]) =>
    rs.reduce((a, r) => a + r.render.freezes, 0);
  assert.equal(freezes(res.records), freezes(agents.flatMap((a) => a.records)));
  // instants come back on the coordinator's clock: the agent's offset from t0 plus this t0
  const r5 = res.records.find((r) => r.id === 5);
  assert.equal(r5?.postMonoNs, (tasks[0]?.t0MonoNs ?? 0) + 5e6);
});

test("an agent that sends a malformed record is lost and counted; only its viewers are agent_lost", async () => {
  const agents = simAgents(O, dealIds(3, 12));
  const { engine, tasks } = simEngine(agents, 12);
  await engine.warmUp?.(3);
  const ticks: ShardTick[] = [];
  const running = engine.run(tasks, new AbortController().signal, (t) => ticks.push(t));
  const [a0, a1, a2] = agents;
  a0?.deliver([...(a0?.ticks ?? []), ...(a0?.finals ?? [])]);
  a1?.deliver([encodeFrame({ type: "records", records: [{ id: 1, joined: "maybe" }] })]);
  a2?.deliver([...(a2?.ticks ?? []), ...(a2?.finals ?? [])]);
  const res = await running;
  const lost = res.records.filter((r) => r.errorKind === "agent_lost").map((r) => r.id);
  assert.deepEqual(
    lost.sort((a, b) => a - b),
    [1, 4, 7, 10],
  );
  assert.match(res.records.find((r) => r.id === 1)?.error ?? "", /sim-1 .*malformed viewer record/);
  // the lost agent's seconds were filled empty, so each second had a tick from every agent
  for (let s = 0; s < O.seconds; s++) {
    assert.deepEqual(
      ticks
        .filter((t) => t.second === s && !t.final)
        .map((t) => t.shard)
        .sort(),
      [0, 1, 2],
    );
  }
  const input = engine.finishInput({
    clock: { method: "monotonic", offsetMs: 0, uncertaintyMs: 0, stepDetected: false },
    topology: "single-process",
  } as ReportInput);
  assert.equal(input.agentMessagesRejected, 1);
  assert.equal(input.topology, "split");
  assert.equal(input.hosts?.[1]?.lost, "it sent a malformed viewer record");
  assert.equal(input.clock.method, "exchange");
});

test("the run's clock is the worst finished host's; an unmeasured host makes it unmeasured", () => {
  const own = { method: "monotonic" as const, offsetMs: 0, uncertaintyMs: 0, stepDetected: false };
  const host = (name: string, u?: number, lost?: string) => ({
    name,
    viewers: 1,
    workers: 1,
    ...(lost ? { lost } : {}),
    clock:
      u === undefined
        ? { method: "none" as const, reason: "the clock peer did not answer" }
        : { method: "exchange" as const, offsetMs: u * 2, uncertaintyMs: u },
  });
  assert.deepEqual(mergedClock([host("a", 0.2), host("b", 0.7), host("c", 0.4)], [], own), {
    method: "exchange",
    stepDetected: false,
    offsetMs: 1.4,
    uncertaintyMs: 0.7,
  });
  assert.equal(
    mergedClock([host("a", 0.2), host("b", undefined, "gone")], [false, true], own).stepDetected,
    true,
  );
  const none = mergedClock([host("a", 0.2), host("b")], [], own);
  assert.equal(none.method, "none");
  assert.match(none.reason ?? "", /agent b: the clock peer did not answer/);
});

test("an agent that finished early (no viewers of its own) gets empty seconds, so each second completes", async () => {
  const agents = simAgents({ ...O, agents: 2 }, [[0, 1, 2], []]);
  const { engine, tasks } = simEngine(agents, 3);
  await engine.warmUp?.(2);
  const ticks: ShardTick[] = [];
  const running = engine.run(tasks, new AbortController().signal, (t) => ticks.push(t));
  const [busy, idle] = agents;
  idle?.deliver(idle.finals);
  busy?.deliver([...(busy?.ticks ?? []), ...(busy?.finals ?? [])]);
  const res = await running;
  assert.equal(res.records.length, 3);
  for (let s = 0; s < O.seconds; s++) {
    const idleTick = ticks.find((t) => t.second === s && t.shard === 1);
    assert.equal(idleTick?.active, 0, `second ${s}`);
  }
});

test("missing agents are named when the arrived ones are numbered like an indexed job's", () => {
  assert.deepEqual(missingNames(["agent-0", "agent-2"], 4), ["agent-1", "agent-3"]);
  assert.deepEqual(missingNames(["alpha", "beta"], 3), []);
  assert.deepEqual(missingNames(["a-0", "b-1"], 3), []);
  assert.deepEqual(missingNames([], 2), []);
});
