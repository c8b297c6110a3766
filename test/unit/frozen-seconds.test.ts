// Viewers frozen per second (docs/definitions.md#viewers-frozen-per-second): a freeze split over
// the run seconds it covers, carried in ticks as pairs, summed exactly across threads and agents,
// and in the timeline for the second it fell in even when it arrives with a later tick.
import assert from "node:assert/strict";
import { test } from "node:test";
import { FrozenSeconds, mergePairs, pairsTotalNs } from "../../src/core/report/frozen-seconds.ts";
import { emptyTick } from "../../src/main/agents/tick-merge.ts";
import type { ResourceWatch } from "../../src/main/observe/resources.ts";
import { Timeline } from "../../src/main/run/timeline.ts";

const T0 = 5e12;
const THREAD = { cpuSeconds: 0, eventLoopUtilisation: 0, eventLoopDelayMs: { p50: 0, p99: 0, max: 0 } };

test("a freeze is split over the run seconds it covers (second k: t0 + k − 1 s to t0 + k s)", () => {
  const f = new FrozenSeconds();
  f.add(T0 + 0.75e9, T0 + 2.25e9, T0);
  f.add(T0 + 2.5e9, T0 + 2.75e9, T0);
  assert.deepEqual(f.take(), { freezes: 2, frozenNs: [1, 0.25e9, 2, 1e9, 3, 0.5e9] });
  assert.deepEqual(f.take(), { freezes: 0, frozenNs: [] }, "a take empties it");
  // nothing before t0 is counted
  f.add(T0 - 1e9, T0 + 0.5e9, T0);
  assert.deepEqual(f.take().frozenNs, [1, 0.5e9]);
});

test("two threads' freezes merge to exactly what one thread counting them all gives", () => {
  const freezes = [
    [0.123456789e9, 0.987654321e9],
    [1.1e9, 3.3e9],
    [2.9e9, 3.05e9],
    [7.000000001e9, 7.2e9],
  ] as const;
  const one = new FrozenSeconds();
  const a = new FrozenSeconds();
  const b = new FrozenSeconds();
  freezes.forEach(([s, e], i) => {
    one.add(T0 + s, T0 + e, T0);
    (i % 2 === 0 ? a : b).add(T0 + s, T0 + e, T0);
  });
  const whole = one.take().frozenNs;
  assert.deepEqual(mergePairs([a.take().frozenNs, b.take().frozenNs]), whole);
  const total = freezes.reduce((x, [s, e]) => x + Math.round(e - s), 0);
  assert.equal(pairsTotalNs(whole), total);
});

test("the timeline puts frozen time in the second it fell in, also when a later tick brings it", () => {
  const resources = { sample: () => {}, cpuSecondsSoFar: () => 0 } as unknown as ResourceWatch;
  const live: (number | undefined)[] = [];
  const tl = new Timeline({
    shards: 2,
    resources,
    cpuCount: 1,
    onSecond: () => {},
    onTick: (e) => {
      if (e !== null) live.push(e.viewersFrozen);
    },
  });
  const tick = (shard: number, second: number, frozenNs: number[], final = false) => ({
    ...emptyTick(shard, second, THREAD),
    final,
    frozenNs,
  });
  tl.tick(tick(0, 1, []));
  tl.tick(tick(1, 1, [1, 0.5e9]));
  // shard 0 learns at second 3 that a viewer was frozen through second 2 into 3
  tl.tick(tick(0, 2, []));
  tl.tick(tick(1, 2, []));
  tl.tick(tick(0, 3, [2, 1e9, 3, 0.25e9]));
  tl.tick(tick(1, 3, [3, 0.25e9]));
  // the final flush carries one more freeze that ended in the last second
  tl.tick(tick(0, 4, [3, 0.5e9], true));
  assert.deepEqual(live, [0.5, 0, 0.5], "live: what was known when each second completed");
  assert.deepEqual(
    tl.entries().map((e) => e.viewersFrozen),
    [0.5, 1, 1],
  );
});
