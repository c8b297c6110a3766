// Worker for sendlog.test.ts: reads a send log while the main thread writes it, and reports
// every lookup that returned an inconsistent entry (wrong index, a t0 not the k's own, a send
// after t1, or a k beyond what was published).
import { parentPort, workerData } from "node:worker_threads";
import { SendLog } from "../../src/core/delay/sendlog.ts";

interface Data {
  buffer: SharedArrayBuffer;
  frames: number;
  done: SharedArrayBuffer;
  base: number;
}

const { buffer, frames, done, base } = workerData as Data;
const log = SendLog.attach(buffer, frames);
const flag = new Int32Array(done);
/** The t0 the writer records for k: a function of k, so a torn pair shows. */
const t0Of = (k: number): number => base + k * 1000 + (k % 7);

let lookups = 0;
let found = 0;
let bad = 0;
let firstBad = "";
let lastRecorded = -1;
let distinctRecorded = 0;
const e = { k: 0, t0Ns: 0 };
parentPort!.postMessage({ ready: true });
for (let round = 0; Atomics.load(flag, 0) === 0 || round < 3; round++) {
  for (let i = 0; i < frames; i++) {
    const before = log.recorded;
    if (before !== lastRecorded) {
      lastRecorded = before;
      distinctRecorded++;
    }
    // alternately the newest send, and a t1 that excludes the newest ~50 frames
    const t1 = (i & 1) === 0 ? Number.MAX_VALUE : t0Of(Math.max(before - 50, 0));
    lookups++;
    const got = log.latest(i, t1, e);
    if (got === null) continue;
    found++;
    const after = log.recorded;
    if (got.k % frames !== i || got.t0Ns !== t0Of(got.k) || got.t0Ns > t1 || got.k >= after) {
      bad++;
      if (firstBad === "") firstBad = `i ${i} k ${got.k} t0 ${got.t0Ns} t1 ${t1} recorded ${after}`;
    }
  }
}
parentPort!.postMessage({ lookups, found, bad, firstBad, distinctRecorded });
