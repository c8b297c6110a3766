import assert from "node:assert/strict";
import { once } from "node:events";
import { test } from "node:test";
import { Worker } from "node:worker_threads";
import { SendLog } from "../../src/core/delay/sendlog.ts";

const BASE = 1e15; // a monotonic origin of hrtime's magnitude
const at = (ms: number): number => BASE + ms * 1e6;

/** A log of n frames per loop with k = from..to recorded at 33·k ms. */
function logAt(n: number, from: number, to: number): SendLog {
  const l = SendLog.create(n);
  recordAt(l, from, to);
  return l;
}

function recordAt(l: SendLog, from: number, to: number): void {
  for (let k = from; k <= to; k++) l.record(k, at(33 * k));
}

function wantLatest(l: SendLog, i: number, t1: number, k: number): void {
  assert.deepEqual(l.latest(i, t1), { k, t0Ns: at(33 * k) }, `latest(${i}, ${t1 - BASE} ns)`);
}

test("latest: the most recent send of the index at or before t1", () => {
  const l = logAt(3, 0, 8);
  wantLatest(l, 1, at(140), 4);
  wantLatest(l, 1, at(300), 7);
  wantLatest(l, 2, at(70), 2);
  wantLatest(l, 0, at(0), 0); // an equal t0 counts
  assert.equal(l.recorded, 9);
});

test("latest never returns an unlogged send", () => {
  const l = logAt(3, 0, 8);
  assert.equal(l.latest(2, at(65)), null); // k 2 is sent at 66 ms, nothing earlier for i 2
});

test("latest writes into the caller's object", () => {
  const l = logAt(3, 0, 8);
  const out = { k: -1, t0Ns: -1 };
  assert.equal(l.latest(1, at(140), out), out);
  assert.deepEqual(out, { k: 4, t0Ns: at(132) });
});

test("the ring of 4 loops overwrites the oldest sends", () => {
  const l = logAt(3, 0, 14); // 12 slots: k 0..2 overwritten by k 12..14
  assert.equal(l.latest(0, at(10)), null);
  wantLatest(l, 0, at(100), 3);
  wantLatest(l, 0, at(1000), 12);
});

test("bad index and empty log", () => {
  const l = logAt(3, 0, 0);
  assert.equal(l.latest(-1, at(1000)), null);
  assert.equal(l.latest(3, at(1000)), null);
  assert.equal(l.latest(Number.NaN, at(1000)), null);
  assert.equal(l.latest(1, at(1000)), null); // h 0 < i 1
  const empty = SendLog.create(3);
  assert.equal(empty.latest(0, at(1000)), null);
  assert.equal(empty.recorded, 0);
  assert.equal(empty.loopMinNs, -1);
});

test("zero frames per loop is refused; attach checks the buffer", () => {
  assert.throws(() => SendLog.create(0), RangeError);
  assert.throws(() => SendLog.create(-2), RangeError);
  const l = SendLog.create(4);
  assert.throws(() => SendLog.attach(l.buffer, 5), RangeError);
  assert.throws(() => SendLog.attach(new SharedArrayBuffer(SendLog.byteLength(4)), 4), RangeError);
  assert.equal(SendLog.attach(l.buffer, 4).recorded, 0);
});

test("loop minimum: 50 ms, then 45 ms; readers see it through the buffer", () => {
  const l = SendLog.create(4);
  const r = SendLog.attach(l.buffer, 4);
  for (let k = 0; k <= 3; k++) l.record(k, at(10 * k));
  assert.equal(r.loopMinNs, -1);
  l.record(4, at(50));
  assert.equal(r.loopMinNs, 50e6);
  l.record(5, at(55));
  assert.equal(r.loopMinNs, 45e6);
  l.record(6, at(200)); // a longer loop does not raise the minimum
  assert.equal(r.loopMinNs, 45e6);
  assert.equal(r.recorded, 7);
  assert.deepEqual(r.latest(2, at(1000)), { k: 6, t0Ns: at(200) });
});

test("pacing slip: the minimum is the paced loop, lookups follow k not time", () => {
  const l = SendLog.create(4);
  for (let k = 0; k <= 11; k++) l.record(k, at(10 * k + (k >= 6 ? 600 : 0)));
  assert.equal(l.recorded, 12);
  // loops spanning the slip take 640 ms; the others 40 ms
  assert.equal(l.loopMinNs, 40e6);
  assert.deepEqual(l.latest(2, at(700)), { k: 10, t0Ns: at(700) });
  assert.deepEqual(l.latest(2, at(699)), { k: 6, t0Ns: at(660) });
});

test("a reader in a worker thread sees only consistent entries while the main thread writes", async () => {
  const frames = 120;
  const log = SendLog.create(frames);
  const done = new SharedArrayBuffer(4);
  const base = 5e14;
  const t0Of = (k: number): number => base + k * 1000 + (k % 7);
  const worker = new Worker(new URL("./sendlog-reader.worker.ts", import.meta.url), {
    workerData: { buffer: log.buffer, frames, done, base },
  });
  try {
    const [ready] = (await once(worker, "message")) as [{ ready: boolean }];
    assert.equal(ready.ready, true);
    const result = once(worker, "message");
    // write for 300 ms while the worker reads (the writer never yields)
    const until = performance.now() + 300;
    let k = 0;
    while (performance.now() < until) {
      for (let j = 0; j < 1000; j++, k++) log.record(k, t0Of(k));
    }
    Atomics.store(new Int32Array(done), 0, 1);
    const [r] = (await result) as [
      { lookups: number; found: number; bad: number; firstBad: string; distinctRecorded: number },
    ];
    assert.equal(r.bad, 0, r.firstBad);
    assert.ok(r.found >= 3 * frames, `found ${r.found} of ${r.lookups}`); // ≥ the 3 rounds after the writes
    assert.ok(r.distinctRecorded > 2, `the reader saw only ${r.distinctRecorded} states of the log`);
    assert.equal(log.recorded, k);
  } finally {
    await worker.terminate();
  }
});

test("a clip that jumps (a keyframe on request): latest finds the k that sent the index, indexAt each k's index", () => {
  // 10 frames a loop; k 3 jumps from index 2 to 5, k 9 from 0 to 5
  const seq = [0, 1, 2, 5, 6, 7, 8, 9, 0, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6];
  const l = SendLog.create(10);
  for (const [k, i] of seq.entries()) l.record(k, at(33 * k), i);
  assert.deepEqual(l.latest(5, at(33 * 8)), { k: 3, t0Ns: at(99) });
  assert.deepEqual(l.latest(5, at(33 * 18)), { k: 9, t0Ns: at(297) });
  assert.deepEqual(l.latest(5, at(10000)), { k: 19, t0Ns: at(627) });
  assert.deepEqual(l.latest(6, at(33 * 19)), { k: 10, t0Ns: at(330) });
  assert.deepEqual(l.latest(3, at(10000)), { k: 17, t0Ns: at(561) }); // sent once, not at k 3 or 13
  assert.equal(l.latest(3, at(33 * 16)), null);
  assert.deepEqual(
    seq.map((_, k) => l.indexAt(k)),
    seq,
  );
  assert.equal(l.indexAt(21), -1);
  assert.equal(l.indexAt(-1), -1);
  assert.throws(() => l.record(21, at(693), 10), RangeError);
  l.record(20, at(1), 0); // a k already logged is ignored
  assert.equal(l.indexAt(20), 6);
});

test("a jumping clip in the ring: sends of an index older than 4 loops are gone", () => {
  const l = SendLog.create(3);
  // index 1 is skipped from k 2 on: 0 1 | 0 2 0 2 ...
  for (let k = 0; k <= 14; k++) l.record(k, at(33 * k), k < 2 ? k : k % 2 === 0 ? 0 : 2);
  assert.equal(l.latest(1, at(10000)), null); // k 1 left the 12-slot ring
  assert.deepEqual(l.latest(0, at(33 * 13)), { k: 12, t0Ns: at(396) });
  assert.equal(l.indexAt(1), -1);
});
