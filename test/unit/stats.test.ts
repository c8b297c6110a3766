import assert from "node:assert/strict";
import { test } from "node:test";
import * as hdr from "hdr-histogram-js";
import { mulberry32 } from "../../src/core/compare/bootstrap.ts";
import { countsIndexUs, DelayHistogram, exactSummary } from "../../src/core/stats/summaries.ts";

const rng = mulberry32;

/** Exponential samples in ns (mean 20 ms), whole ns. */
function exponentialNs(count: number, seed: number): number[] {
  const r = rng(seed);
  const out: number[] = [];
  for (let i = 0; i < count; i++) out.push(Math.round(-Math.log(1 - r()) * 20e6));
  return out;
}

test("exactSummary: nearest rank on 1..100, input not modified", () => {
  const values = Array.from({ length: 100 }, (_, i) => 100 - i);
  const copy = [...values];
  const s = exactSummary(values);
  assert.deepEqual(s, { n: 100, min: 1, mean: 50.5, p50: 50, p95: 95, p99: 99, max: 100 });
  assert.deepEqual(values, copy);
});

test("exactSummary: three values and empty", () => {
  assert.deepEqual(exactSummary([3, 1, 2]), { n: 3, min: 1, mean: 2, p50: 2, p95: 3, p99: 3, max: 3 });
  assert.deepEqual(exactSummary([]), { n: 0, min: 0, mean: 0, p50: 0, p95: 0, p99: 0, max: 0 });
  assert.deepEqual(exactSummary([7]), { n: 1, min: 7, mean: 7, p50: 7, p95: 7, p99: 7, max: 7 });
});

test("histogram within 0.5 % of exact percentiles; min, max, mean exact", () => {
  const values = exponentialNs(20_000, 12345);
  const h = new DelayHistogram();
  for (const v of values) h.recordNs(v);
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  for (const p of [1, 5, 10, 25, 50, 75, 90, 95, 99, 99.9]) {
    const exact = sorted[Math.ceil((p / 100) * n) - 1] ?? 0;
    const got = h.quantileNs(p);
    assert.ok(Math.abs(got - exact) <= exact * 0.005, `p${p}: ${got} vs ${exact}`);
  }
  const s = h.summaryMs();
  const exactMs = exactSummary(values.map((v) => v / 1e6));
  assert.equal(s.n, 20_000);
  assert.equal(s.min, exactMs.min);
  assert.equal(s.max, exactMs.max);
  assert.ok(Math.abs(s.mean - exactMs.mean) < 1e-9, `${s.mean} vs ${exactMs.mean}`);
  assert.equal(h.quantileNs(0), sorted[0]);
  assert.equal(h.quantileNs(100), sorted[n - 1]);
});

test("histogram: exact to the bucket midpoint below 256 µs, midpoint clamped into [min, max]", () => {
  const h = new DelayHistogram();
  for (const ns of [100_000, 100_200, 100_400, 150_000]) h.recordNs(ns);
  // rank 2 of 4 is 100.2 µs → 100 µs, bucket [100, 101) µs → midpoint 100.5 µs
  assert.equal(h.quantileNs(50), 100_500);
  const one = new DelayHistogram();
  for (const ns of [5_000_000, 5_000_000, 5_000_000]) one.recordNs(ns);
  assert.equal(one.quantileNs(50), 5_000_000); // midpoint clamped to the exact max
});

test("histogram merge of two halves equals the histogram of all values", () => {
  const values = exponentialNs(10_000, 777);
  const all = new DelayHistogram();
  const a = new DelayHistogram();
  const b = new DelayHistogram();
  values.forEach((v, i) => {
    all.recordNs(v);
    (i % 2 === 0 ? a : b).recordNs(v);
  });
  const merged = new DelayHistogram();
  merged.add(a);
  merged.add(b);
  const viaWire = DelayHistogram.decode(a.encode());
  viaWire.add(DelayHistogram.decode(b.encode()));
  const union = DelayHistogram.union(a, b);
  for (let p = 0.5; p <= 100; p += 0.5) {
    assert.equal(merged.quantileNs(p), all.quantileNs(p), `merged p${p}`);
    assert.equal(union.quantileNs(p), all.quantileNs(p), `union p${p}`);
    assert.equal(viaWire.quantileNs(p), all.quantileNs(p), `decoded p${p}`);
  }
  assert.equal(merged.count, all.count);
  assert.deepEqual(merged.encode(), all.encode());
  assert.deepEqual(viaWire.encode(), all.encode());
  assert.deepEqual(union.encode(), all.encode());
  assert.deepEqual(viaWire.summaryMs(), all.summaryMs());
  // the parts are left as they were; a union of empty parts is empty
  assert.equal(a.count + b.count, all.count);
  assert.equal(DelayHistogram.union(new DelayHistogram(), new DelayHistogram()).count, 0);
});

test("histogram: empty encodes and decodes; merge into empty", () => {
  const empty = new DelayHistogram();
  assert.deepEqual(empty.summaryMs(), { n: 0, min: 0, mean: 0, p50: 0, p95: 0, p99: 0, max: 0 });
  const back = DelayHistogram.decode(empty.encode());
  assert.equal(back.count, 0);
  const h = new DelayHistogram();
  h.recordNs(3_000_000);
  back.add(h);
  back.add(empty);
  assert.deepEqual(back.summaryMs(), { n: 1, min: 3, mean: 3, p50: 3, p95: 3, p99: 3, max: 3 });
});

test("histogram: 0 and beyond 60 s clamp for bucketing, exact min and max kept", () => {
  const h = new DelayHistogram();
  h.recordNs(0);
  h.recordNs(120e9);
  assert.equal(h.quantileNs(50), 0);
  assert.equal(h.quantileNs(100), 120e9);
  const three = new DelayHistogram();
  three.recordNs(-5_000); // negative delay: bucket 0
  three.recordNs(90e9);
  three.recordNs(100e9);
  // rank 2 lands in the clamp bucket (60 s): its midpoint, about 60 s, within [min, max]
  const mid = three.quantileNs(50);
  assert.ok(mid > 59.7e9 && mid < 60.2e9, String(mid));
  assert.equal(three.quantileNs(1), -5_000);
  assert.equal(three.summaryMs().max, 100_000);
});

test("histogram footprint: a few blocks while recording, at most 12 KB once read", () => {
  const h = new DelayHistogram();
  assert.equal(h.countsBytes, 0);
  // 1–20 ms: five binary orders of magnitude, five or six blocks of 128 counts
  for (let ns = 1e6; ns <= 20e6; ns += 1e4) h.recordNs(ns);
  assert.ok(h.countsBytes > 0 && h.countsBytes <= 6 * 512, String(h.countsBytes));
  h.quantileNs(50);
  assert.ok(h.countsBytes > 6 * 512 && h.countsBytes <= 12 * 1024, String(h.countsBytes));
  assert.match(DelayHistogram.precisionNote, /2 significant digits/);
});

test("histogram: the recording blocks encode exactly as hdr's own recording of the same values", () => {
  let seed = 7;
  const rnd = (): number => {
    seed = (seed * 1103515245 + 12345) >>> 0;
    return seed / 2 ** 32;
  };
  const sampleNs = (shape: string, k: number): number => {
    if (shape === "spread") return Math.exp(rnd() * 22) * 1000;
    if (shape === "zero-and-small") return k % 3 === 0 ? 0 : Math.floor(rnd() * 300_000);
    return k % 2 === 0 ? -1e6 : 61e9 + rnd() * 1e9; // clamped at both ends
  };
  for (const shape of ["spread", "zero-and-small", "clamped"]) {
    const ours = new DelayHistogram();
    const ref = hdr.build({
      lowestDiscernibleValue: 1,
      highestTrackableValue: 60_000_000,
      numberOfSignificantValueDigits: 2,
      bitBucketSize: 32,
      autoResize: false,
      useWebAssembly: false,
    });
    for (let k = 0; k < 5000; k++) {
      const ns = sampleNs(shape, k);
      ours.recordNs(ns);
      ref.recordValue(Math.floor((Math.min(Math.max(ns, 0), 60e9) + 500) / 1000));
    }
    assert.equal(ours.encode().hdr, hdr.encodeIntoCompressedBase64(ref), shape);
    assert.equal(ours.count, 5000, shape);
  }
});

test("fast bucket index equals hdr's countsArrayIndex", () => {
  const h = hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 60_000_000,
    numberOfSignificantValueDigits: 2,
    bitBucketSize: 32,
    useWebAssembly: false,
  });
  assert.ok(h instanceof hdr.JsHistogram);
  const check = (us: number): void => assert.equal(countsIndexUs(us), h.countsArrayIndex(us), String(us));
  for (let us = 0; us < 70_000; us++) check(us);
  for (let us = 70_000; us <= 60_000_000; us = Math.floor(us * 1.0007) + 1) check(us);
  for (let k = 8; k <= 25; k++) {
    check(2 ** k - 1);
    check(2 ** k);
    check(2 ** k + 1);
  }
  check(60_000_000);
});
