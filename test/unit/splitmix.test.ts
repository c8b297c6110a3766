import assert from "node:assert/strict";
import { test } from "node:test";
import { rampOffsetsNs, splitmixOutputs } from "../../src/core/stats/splitmix.ts";

test("SplitMix64 reference vectors (docs/definitions.md#start-schedule)", () => {
  assert.deepEqual(splitmixOutputs(0n, 3), [0xe220a8397b1dcdafn, 0x6e789e6aa1b965f4n, 0x06c45d188009454fn]);
  assert.deepEqual(splitmixOutputs(1234567n, 3), [
    6457827717110365317n,
    3203168211198807973n,
    9817491932198370423n,
  ]);
  assert.deepEqual(rampOffsetsNs(42n, 1e9, 3), [741564878, 159910392, 278601130]);
});

test("negative seeds are their two's complement", () => {
  assert.deepEqual(splitmixOutputs(-1n, 4), splitmixOutputs((1n << 64n) - 1n, 4));
  assert.notDeepEqual(splitmixOutputs(-1n, 2), splitmixOutputs(1n, 2));
});

test("offsets independent of n, reproducible, in [0, bound)", () => {
  const long = rampOffsetsNs(42n, 1e9, 50);
  assert.deepEqual(rampOffsetsNs(42n, 1e9, 10), long.slice(0, 10));
  assert.deepEqual(rampOffsetsNs(42n, 1e9, 50), long);
  const other = new Set(rampOffsetsNs(43n, 1e9, 50));
  assert.ok(long.filter((o) => other.has(o)).length <= 1);
  for (const bound of [1e9, 7e6, 3e9, 1]) {
    for (const seed of [0n, 1n, -1n, 42n, 1n << 62n]) {
      for (const o of rampOffsetsNs(seed, bound, 1000)) {
        assert.ok(Number.isInteger(o) && o >= 0 && o < bound, `${seed} ${bound} ${o}`);
      }
    }
  }
  const bins = new Array<number>(10).fill(0);
  for (const o of rampOffsetsNs(7n, 1e9, 1000))
    bins[Math.floor(o / 1e8)] = (bins[Math.floor(o / 1e8)] ?? 0) + 1;
  for (const b of bins) assert.ok(b >= 60 && b <= 140, String(bins));
});
