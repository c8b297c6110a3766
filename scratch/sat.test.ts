import { test } from "node:test";
import { faultyPoolEngine } from "../test/e2e/faulty-worker.ts";
import { runThroughRelay } from "../test/e2e/harness.ts";
test("x", async () => {
  const engine = faultyPoolEngine(1, { shard: 0, kind: "saturate", afterMs: 2000 });
  const { report: r } = await runThroughRelay({}, { viewers: 2, holdSeconds: 4 }, engine);
  console.log(JSON.stringify({ w: r.client.workers, c: r.client.ceiling, s: r.scenario, v: r.aggregate.verdict, tl: r.timeline.map(t=>[t.t, t.eventLoopDelayMs, t.receiveLagMs]) }));
});
