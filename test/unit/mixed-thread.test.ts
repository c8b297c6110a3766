// Regression (issue 32): a viewer thread whose datagrams the kernel stamped all but a handful of
// (the thread stamped 207 of 103 569 in a 50-viewer Janus run) stays comparable: the thread's
// profile, as a worker hands it to the main thread, goes through the report's own path
// (run-lag.ts's threadLoads, the ceiling, the report's comparability), and only its
// thread-stamped datagrams answer to the fallback's rule (docs/definitions.md#client-ceiling).
import assert from "node:assert/strict";
import { test } from "node:test";
import { buildReport } from "../../src/core/report/build.ts";
import { ceilingVerdict } from "../../src/core/report/ceiling.ts";
import { DelayHistogram } from "../../src/core/stats/summaries.ts";
import { stampSources, threadLoads } from "../../src/main/run/run-lag.ts";
import type { ShardProfile } from "../../src/workers/protocol.ts";
import { healthyViewers, makeInput } from "./report-fixtures.ts";

const main = { cpuSeconds: 1, eventLoopUtilisation: 0.3, eventLoopDelayMs: { p50: 1, p99: 4, max: 9 } };

function worker(kernelStamped: number, threadStamped: number, threadLagP99: number): ShardProfile {
  return {
    shard: 0,
    thread: "worker",
    viewers: 50,
    packets: kernelStamped + threadStamped,
    cpuSeconds: 20,
    eventLoopUtilisation: 0.6,
    // a busy thread's timers fire late: judged only where its stamps are its own
    eventLoopDelayMs: { p50: 3, p99: 24, max: 60 },
    // mostly the kernel-stamped datagrams' exact lag, outside every figure
    receiveLagMs: { p50: 1.1, p99: 9.3, max: 80 },
    processingWaitMs: { p50: 1.6, p99: 14, max: 90 },
    receiveLagHist: new DelayHistogram().encode(),
    intakeDropped: 0,
    stamps: {
      source: "mixed",
      kernelStamped,
      threadStamped,
      threadReason: "a datagram reached the thread without its socket",
      threadLagMs: { p50: threadLagP99 / 2, p99: threadLagP99, max: threadLagP99 },
    },
    repairedFrames: 0,
    receivePath: "arena",
  };
}

function reportOf(p: ShardProfile) {
  const viewers = healthyViewers(3);
  const ceiling = ceilingVerdict(threadLoads(main, [p]), { rcvbufErrors: 0, inErrors: 0 }, undefined, 8);
  return buildReport(makeInput(viewers, { ceiling, ...stampSources([p]) }));
}

test("a mixed thread with a handful of thread-stamped datagrams stays comparable", () => {
  const r = reportOf(worker(103_362, 207, 9.3));
  assert.equal(r.client.stampSource, "mixed");
  assert.equal(r.client.ceiling?.nearCeiling, false, (r.client.ceiling?.evidence ?? []).join("; "));
  const pooled = r.aggregate.oneWayDelay.find((b) => b.source === "fingerprint");
  assert.equal(pooled?.comparable, true, pooled?.notComparableReason);
  for (const v of r.viewers ?? []) {
    for (const b of v.oneWayDelay) if (b.available) assert.equal(b.comparable, true, `viewer ${v.id}`);
  }
});

test("a mixed thread whose thread-stamped share reaches 1 % answers to the fallback's rule on their own lag", () => {
  const r = reportOf(worker(99_000, 1_000, 9.3));
  assert.equal(r.client.ceiling?.nearCeiling, true);
  assert.deepEqual(r.client.ceiling?.evidence, [
    "worker 0: event-loop delay p99 24.0 ms ≥ 20.0 ms",
    "worker 0: receive lag of its 1.0 % thread-stamped datagrams p99 9.30 ms ≥ 5.00 ms",
  ]);
  const pooled = r.aggregate.oneWayDelay.find((b) => b.source === "fingerprint");
  assert.equal(pooled?.comparable, false);
  assert.match(pooled?.notComparableReason ?? "", /ceiling/);
});
