// The client-ceiling rule (src/core/report/ceiling.ts, docs/definitions.md#client-ceiling): for a
// thread-stamped viewer thread (the fallback) its event loop and its receive lag weighed against
// the delay the run measures; for a kernel-stamped one only what can still distort a figure.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ceilingVerdict, DEFAULT_CEILING, receiveLagThresholdMs } from "../../src/core/report/ceiling.ts";

const quiet = { name: "worker 0", eventLoopUtilisation: 0.2, eventLoopDelayP99Ms: 3 };
const kernel = { ...quiet, stampSource: "kernel" as const };

test("receive-lag threshold: the larger of the 5 ms floor and 10 % of the delay p99", () => {
  assert.equal(receiveLagThresholdMs(null), 5);
  assert.equal(receiveLagThresholdMs(4), 5);
  assert.equal(receiveLagThresholdMs(80), 8);
  assert.equal(DEFAULT_CEILING.receiveLagFloorMs, 5);
});

test("a thread whose receive lag p99 reaches the threshold is near the ceiling, with the evidence", () => {
  const v = ceilingVerdict([{ ...quiet, receiveLagP99Ms: 9 }], null, DEFAULT_CEILING, 80);
  assert.equal(v.nearCeiling, true);
  assert.equal(v.thresholds.receiveLagP99Ms, 8);
  assert.deepEqual(v.evidence, [
    "worker 0: receive lag p99 9.00 ms ≥ 8.00 ms (10 % of the frame-delay p99 80.00 ms)",
  ]);
  // the same lag against a slow server is small: not near
  assert.equal(
    ceilingVerdict([{ ...quiet, receiveLagP99Ms: 9 }], null, DEFAULT_CEILING, 200).nearCeiling,
    false,
  );
  // below the floor: not near, however small the delay
  assert.equal(
    ceilingVerdict([{ ...quiet, receiveLagP99Ms: 4 }], null, DEFAULT_CEILING, 2).nearCeiling,
    false,
  );
  // a thread that stamped nothing has no receive lag and is judged on the rest
  assert.equal(ceilingVerdict([quiet], null, DEFAULT_CEILING, 2).nearCeiling, false);
  const floor = ceilingVerdict([{ ...quiet, receiveLagP99Ms: 5.2 }], null, DEFAULT_CEILING, 2);
  assert.deepEqual(floor.evidence, ["worker 0: receive lag p99 5.20 ms ≥ 5.00 ms"]);
});

test("kernel-stamped: a lagging but keeping-up thread with no loss stays quiet", () => {
  // 60 ms stalls every 100 ms: its event loop and lag look bad, but its stamps are the kernel's
  const v = ceilingVerdict(
    [{ ...kernel, eventLoopUtilisation: 0.62, eventLoopDelayP99Ms: 58, receiveLagP99Ms: 59 }],
    { rcvbufErrors: 0, inErrors: 0 },
    DEFAULT_CEILING,
    2,
  );
  assert.deepEqual(v.evidence, []);
  assert.equal(v.nearCeiling, false);
  assert.equal(v.thresholds.keepUpWaitP50Ms, 50);
  // the same figures from a thread-stamped thread are inside every delay: near
  const t = ceilingVerdict(
    [
      {
        ...quiet,
        stampSource: "thread",
        eventLoopUtilisation: 0.62,
        eventLoopDelayP99Ms: 58,
        receiveLagP99Ms: 59,
      },
    ],
    null,
    DEFAULT_CEILING,
    2,
  );
  assert.deepEqual(t.evidence, [
    "worker 0: event-loop delay p99 58.0 ms ≥ 20.0 ms",
    "worker 0: receive lag p99 59.00 ms ≥ 5.00 ms",
  ]);
});

test("kernel-stamped: a thread that does not keep up, or drops, is near", () => {
  const busy = ceilingVerdict([{ ...kernel, eventLoopUtilisation: 0.95, receiveLagP99Ms: 3 }], null);
  assert.deepEqual(busy.evidence, ["worker 0: event-loop utilisation 0.95 ≥ 0.90"]);
  // its socket reads go on between slices (receive lag 2 ms) while its queue grows
  const behind = ceilingVerdict(
    [{ ...kernel, receiveLagP99Ms: 2, processingWaitP50Ms: 340, processingWaitP99Ms: 900 }],
    null,
  );
  assert.deepEqual(behind.evidence, [
    "worker 0: processing wait p50 340.00 ms ≥ 50.00 ms: it does not keep up",
  ]);
  // a stall in the tail (the cores shared for a moment) with a short typical wait: it keeps up
  const stall = ceilingVerdict(
    [{ ...kernel, receiveLagP99Ms: 45, processingWaitP50Ms: 8, processingWaitP99Ms: 208 }],
    null,
  );
  assert.equal(stall.nearCeiling, false);
  const dropped = ceilingVerdict([{ ...kernel, receiveLagP99Ms: 1, intakeDropped: 12 }], null);
  assert.deepEqual(dropped.evidence, ["worker 0: its intake dropped 12 datagrams (queue full)"]);
  const kernelDrops = ceilingVerdict([{ ...kernel, receiveLagP99Ms: 1 }], { rcvbufErrors: 3, inErrors: 3 });
  assert.deepEqual(kernelDrops.evidence, [
    "the kernel dropped UDP datagrams on receive (RcvbufErrors +3, InErrors +3; every socket on the host: the client's own could not be read)",
  ]);
});

test("whose drops: the thread's own sockets are judged; the host's counter only where those were not read", () => {
  const host = { rcvbufErrors: 700, inErrors: 700 };
  // a server on the same host dropped: the client's sockets dropped nothing
  const theirs = ceilingVerdict(
    [
      { name: "main", eventLoopUtilisation: 0.2, eventLoopDelayP99Ms: 2 },
      { ...kernel, receiveLagP99Ms: 1, socketDrops: 0 },
    ],
    host,
  );
  assert.equal(theirs.nearCeiling, false, theirs.evidence.join("; "));
  // the thread's own sockets dropped
  const ours = ceilingVerdict([{ ...kernel, receiveLagP99Ms: 1, socketDrops: 42 }], host);
  assert.deepEqual(ours.evidence, [
    "worker 0: the kernel dropped 42 datagrams on its own sockets (receive buffers full)",
  ]);
  // one thread's count unread: the host's counter is all there is
  const unread = ceilingVerdict(
    [
      { ...kernel, receiveLagP99Ms: 1, socketDrops: 0 },
      { ...kernel, name: "worker 1", receiveLagP99Ms: 1, socketDrops: null },
    ],
    host,
  );
  assert.equal(unread.nearCeiling, true);
  assert.match(unread.evidence[0] ?? "", /the client's own could not be read/);
});

test("kernel-stamped: late feedback counts only where frames were repaired, late against the delay", () => {
  // nothing repaired (no loss, or loss no retransmission came for): a 9 ms lag changes no figure
  assert.equal(
    ceilingVerdict([{ ...kernel, receiveLagP99Ms: 9 }], null, DEFAULT_CEILING, 20).nearCeiling,
    false,
  );
  const late = ceilingVerdict(
    [{ ...kernel, receiveLagP99Ms: 9, repairedFrames: 40 }],
    null,
    DEFAULT_CEILING,
    20,
  );
  assert.deepEqual(late.evidence, [
    "worker 0: 40 frames repaired while its NACKs went up to 9.00 ms late (processing wait or event-loop delay p99 ≥ 5.00 ms): those frames carry that wait",
  ]);
  // the timer-driven retries are late by the event-loop delay
  const timers = ceilingVerdict(
    [{ ...kernel, receiveLagP99Ms: 1, eventLoopDelayP99Ms: 12, repairedFrames: 3 }],
    null,
    DEFAULT_CEILING,
    20,
  );
  assert.equal(timers.nearCeiling, true);
  // against a 200 ms delay p99, 9 ms of lateness is below 10 %: quiet
  assert.equal(
    ceilingVerdict([{ ...kernel, receiveLagP99Ms: 9, repairedFrames: 40 }], null, DEFAULT_CEILING, 200)
      .nearCeiling,
    false,
  );
});

test("the publisher's thread: its event loop and its send lag", () => {
  const main = { name: "main", eventLoopUtilisation: 0.3, eventLoopDelayP99Ms: 4, sendLagP99Ms: 0.5 };
  assert.equal(ceilingVerdict([main], null).nearCeiling, false);
  assert.deepEqual(ceilingVerdict([{ ...main, sendLagP99Ms: 40 }], null).evidence, [
    "main: publisher send lag p99 40.00 ms ≥ 33.00 ms",
  ]);
  // main stays judged on its event loop even when it also runs kernel-stamped viewers (--workers 0)
  assert.deepEqual(
    ceilingVerdict([{ ...main, stampSource: "kernel", eventLoopDelayP99Ms: 25, receiveLagP99Ms: 2 }], null)
      .evidence,
    ["main: event-loop delay p99 25.0 ms ≥ 20.0 ms"],
  );
});

test("mixed: a handful of thread-stamped datagrams does not put the whole thread under the fallback's rule", () => {
  // the run: 207 of 103 569 datagrams by the thread, the thread's receive lag p99 9.3 ms
  // (nearly all of it exact kernel lag, outside every figure), its event loop 25 ms late
  const share = 207 / 103_569;
  const mixed = {
    ...quiet,
    eventLoopDelayP99Ms: 25,
    stampSource: "mixed" as const,
    receiveLagP99Ms: 9.3,
    processingWaitP50Ms: 2,
    processingWaitP99Ms: 12,
    threadStamped: { share, receiveLagP99Ms: 40 },
  };
  const v = ceilingVerdict([mixed], null, DEFAULT_CEILING, 8);
  assert.equal(v.nearCeiling, false, v.evidence.join("; "));
  // the same thread without the split (a second's figures): the fallback's rule for all of it
  const { threadStamped: _, ...unsplit } = mixed;
  assert.deepEqual(ceilingVerdict([unsplit], null, DEFAULT_CEILING, 8).evidence, [
    "worker 0: event-loop delay p99 25.0 ms ≥ 20.0 ms",
    "worker 0: receive lag p99 9.30 ms ≥ 5.00 ms",
  ]);
  // still judged as kernel-stamped: a thread that does not keep up is near
  const behind = ceilingVerdict([{ ...mixed, processingWaitP50Ms: 60 }], null, DEFAULT_CEILING, 8);
  assert.deepEqual(behind.evidence, [
    "worker 0: processing wait p50 60.00 ms ≥ 50.00 ms: it does not keep up",
  ]);
});

test("mixed: from the stated share on, the thread-stamped datagrams are judged by the fallback's rule on their own lag", () => {
  const base = {
    ...quiet,
    stampSource: "mixed" as const,
    receiveLagP99Ms: 9.3,
    processingWaitP50Ms: 2,
    processingWaitP99Ms: 3,
  };
  assert.equal(DEFAULT_CEILING.threadStampedShare, 0.01);
  // at the share, with their own lag below the limit: quiet, whatever the thread's whole lag
  const low = { ...base, threadStamped: { share: 0.01, receiveLagP99Ms: 4 } };
  assert.equal(ceilingVerdict([low], null, DEFAULT_CEILING, 8).nearCeiling, false);
  // at the share, their own lag past the limit: near, naming them
  const high = { ...base, threadStamped: { share: 0.02, receiveLagP99Ms: 6 } };
  assert.deepEqual(ceilingVerdict([high], null, DEFAULT_CEILING, 8).evidence, [
    "worker 0: receive lag of its 2.0 % thread-stamped datagrams p99 6.00 ms ≥ 5.00 ms",
  ]);
  // … and their thread's event loop is judged as a thread-stamped one's
  const late = { ...high, eventLoopDelayP99Ms: 21, threadStamped: { share: 0.02, receiveLagP99Ms: 1 } };
  assert.deepEqual(ceilingVerdict([late], null, DEFAULT_CEILING, 8).evidence, [
    "worker 0: event-loop delay p99 21.0 ms ≥ 20.0 ms",
  ]);
  // just below the share: not judged by it, however late they were
  const few = { ...base, threadStamped: { share: 0.0099, receiveLagP99Ms: 60 } };
  assert.equal(ceilingVerdict([few], null, DEFAULT_CEILING, 8).nearCeiling, false);
  // the share is a threshold like the others
  assert.equal(
    ceilingVerdict([few], null, { ...DEFAULT_CEILING, threadStampedShare: 0.005 }, 8).nearCeiling,
    true,
  );
});
