// The arrival stamps and receive lag a report shows against ground truth: the built-in relay runs
// in this process, on the same monotonic clock, and records when it handed each packet to each
// viewer leg's socket; the viewer thread's intake records each datagram's stamp
// (bench/truth-worker.ts). With the kernel's stamp (docs/definitions.md#arrival-stamps) the
// client-added wait (stamp − relay send) is nil, busy thread or not, and the receive lag is the
// exact wait. With the thread's stamp (forced) that wait includes the kernel's loopback delivery
// and the time the operating system took to run the woken thread, which the bound does not see;
// the stated error is that wake-up latency, which the thread's event-loop delay shows (a timer's
// lateness includes it), and at least 1 ms.
import assert from "node:assert/strict";
import { test } from "node:test";
import { LegWrites, stampBuffer, stampRecords } from "../../bench/truth-records.ts";
import { exactSummary } from "../../src/core/stats/summaries.ts";
import type { RelayTaps } from "../../src/main/relay/relay.ts";
import { poolEngine } from "../../src/main/run/pool-engine.ts";
import { runThroughRelay } from "./harness.ts";
import type { TruthFault } from "./truth-fault-worker.ts";

async function measure(viewers: number, fault?: TruthFault, stampSource: "kernel" | "thread" = "kernel") {
  const writes = new LegWrites();
  const taps: RelayTaps = { publisherReceive() {}, legSend: writes.record };
  const tap = stampBuffer(200_000);
  const engine = poolEngine({
    workers: 1,
    test: {
      workerEntry: new URL("./truth-fault-worker.ts", import.meta.url),
      workerData: { tap, inline: false, ...(fault !== undefined ? { fault: { shard: 0, ...fault } } : {}) },
    },
  });
  const { report } = await runThroughRelay(
    { test: { taps } },
    { viewers, holdSeconds: 4, stampSource },
    engine,
  );
  const records = stampRecords(tap);
  // the report counts from the first join + excludeFirstSeconds (1 s here): compare the same
  // stretch, every datagram from 1.5 s after the first one on, bound against true wait
  let first = Number.POSITIVE_INFINITY;
  for (const r of records) first = Math.min(first, r.stampNs);
  const waits: number[] = [];
  const bounds: number[] = [];
  for (const r of records) {
    const wait = writes.waitNs(r);
    if (wait === undefined || r.stampNs < first + 1.5e9 || r.lagNs < 0) continue;
    waits.push(wait / 1e6);
    bounds.push(r.lagNs / 1e6);
  }
  const eld = report.client.workers?.[0]?.eventLoopDelayMs;
  const errorMs = { p50: Math.max(1, eld?.p50 ?? 0), p99: Math.max(1, eld?.p99 ?? 0) };
  return { report, truth: exactSummary(waits), bound: exactSummary(bounds), paired: waits.length, errorMs };
}

/** The client-added wait (stamp − the relay's write) of a kernel-stamped run: nil at both tails. */
function assertNoClientWait(truth: { p50: number; p99: number }, waits: string): void {
  assert.ok(Math.abs(truth.p50) <= 0.2, `p50 stamp − relay write ${truth.p50} ms (${waits})`);
  assert.ok(Math.abs(truth.p99) <= 0.2, `p99 stamp − relay write ${truth.p99} ms (${waits})`);
}

test("kernel stamps: each datagram's stamp is the relay's write, and the report names the source", async (t) => {
  if (process.platform !== "linux") return t.skip("kernel stamps are Linux-only");
  const { report, truth, paired } = await measure(4);
  assert.ok(paired > 500, `${paired} datagrams paired with the relay's sends`);
  assertNoClientWait(truth, "4 viewers");
  assert.equal(report.client.stampSource, "kernel");
  const w = report.client.workers?.[0];
  assert.equal(w?.stampSource, "kernel");
  assert.equal(w?.threadStamped, 0);
  assert.ok((w?.kernelStamped ?? 0) > 500);
  assert.ok(report.client.receiveLagMs, "the report carries client.receiveLagMs");
  assert.ok(report.client.publisherSendLagMs, "the report carries client.publisherSendLagMs");
});

test("kernel stamps, a slowed viewer thread: stamps still at arrival, the lag exact, the guard quiet", async (t) => {
  if (process.platform !== "linux") return t.skip("kernel stamps are Linux-only");
  // the worker blocks its loop 60 ms out of every 100 ms: datagrams wait up to 60 ms unread
  const { report, truth, bound } = await measure(2, { kind: "busy", afterMs: 500 });
  assertNoClientWait(truth, "busy thread");
  assert.ok(bound.p99 > 20, `the exact receive lag p99 is ${bound.p99} ms`);
  assert.ok((report.client.receiveLagMs?.p99 ?? 0) > 20, "the report's receive lag shows the wait");
  // it keeps up and nothing was lost: no figure carries its stalls
  const c = report.client.ceiling;
  assert.equal(c?.nearCeiling, false, c?.evidence?.join("; "));
  assert.equal(report.aggregate.oneWayDelay[0]?.comparable, true);
});

test("thread stamps (forced): the reported receive lag bounds the client-added wait within its stated error", async () => {
  const { report, truth, bound, paired, errorMs } = await measure(4, undefined, "thread");
  assert.ok(paired > 500, `${paired} datagrams paired with the relay's sends`);
  const lag = report.client.receiveLagMs;
  assert.ok(lag, "the report carries client.receiveLagMs");
  const w = report.client.workers?.[0]?.receiveLagMs;
  assert.deepEqual(w, lag, "one viewer thread: its figures are the pooled ones");
  assert.ok(bound.p50 + errorMs.p50 >= truth.p50, `p50: lag ${bound.p50} ms, true wait ${truth.p50} ms`);
  assert.ok(bound.p99 + errorMs.p99 >= truth.p99, `p99: lag ${bound.p99} ms, true wait ${truth.p99} ms`);
  assert.equal(report.client.stampSource, "thread");
  assert.match(
    report.client.stampReasons?.[0] ?? "",
    /^worker 0: thread \(\d+ of \d+ datagrams by the thread: .*stampSource thread/,
  );
  assert.equal(report.scenario.stampSource, "thread");
});

test("thread stamps (forced), a slowed viewer thread: the receive lag sees the wait, and the ceiling fires on it", async () => {
  const { report, truth, bound } = await measure(2, { kind: "busy", afterMs: 500 }, "thread");
  const lag = report.client.receiveLagMs;
  assert.ok(lag, "the report carries client.receiveLagMs");
  assert.ok(truth.p99 > 20, `the true wait p99 is ${truth.p99} ms`);
  // the blocked loop is the thread's own doing: the bound must see it, not the allowance
  assert.ok(bound.p99 + 1 >= truth.p99, `p99: lag ${bound.p99} ms, true wait ${truth.p99} ms`);
  assert.ok(lag.p99 > 20, `the report's receive lag p99 ${lag.p99} ms`);
  const c = report.client.ceiling;
  assert.equal(c?.nearCeiling, true);
  assert.ok(
    c?.evidence?.some((e) => /^worker 0: receive lag p99 [\d.]+ ms ≥ [\d.]+ ms/.test(e)),
    c?.evidence?.join("; "),
  );
  assert.equal(report.aggregate.oneWayDelay[0]?.comparable, false);
});
