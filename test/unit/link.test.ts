// The emulated link's pure model (src/core/link): parsing, viewer assignment, and what each
// profile field does to a datagram, with no socket or timer.
import assert from "node:assert/strict";
import { test } from "node:test";
import { assignCohorts, cohortSizes, cohortsJson } from "../../src/core/link/assign.ts";
import { DROP_LOSS, DROP_QUEUE, LinkDirection, LinkRandom } from "../../src/core/link/model.ts";
import { parseCohorts } from "../../src/core/link/parse.ts";
import type { DirectionProfile, LinkStep } from "../../src/core/link/types.ts";

const MS = 1e6;

function dir(p: DirectionProfile, steps: LinkStep[] = [], seed = 1): LinkDirection {
  return new LinkDirection(p, steps, "down", 0, new LinkRandom(seed, 0, 0));
}

test("the issue's shape parses, and the report writes it back in the scenario's notation", () => {
  const raw = [
    { name: "far", viewers: 5, down: { delay: "20ms", jitter: "5ms", loss: "2%" }, up: { loss: "1%" } },
    {
      name: "thin",
      share: 0.25,
      down: { rate: "800kbps", queue: "100ms" },
      steps: [{ at: "20s", for: "3s", down: { loss: "100%" } }],
    },
  ];
  const c = parseCohorts(raw);
  assert.equal(c[0]?.down.delayNs, 20 * MS);
  assert.equal(c[0]?.down.loss, 0.02);
  assert.equal(c[1]?.down.rateBps, 800_000);
  assert.equal(c[1]?.steps[0]?.forNs, 3e9);
  assert.deepEqual(cohortsJson(c), raw);
  assert.deepEqual(parseCohorts(cohortsJson(c)), c);
});

test("unknown keys and impossible values name the key", () => {
  const bad: [unknown, RegExp][] = [
    [
      [{ name: "a", viewers: 1, down: { dealy: "1ms" } }],
      /^CohortError: cohorts\[0\]\.down\.dealy: unknown key/,
    ],
    [
      [{ name: "a", viewers: 1, down: { loss: "120%" } }],
      /^CohortError: cohorts\[0\]\.down\.loss: must be 0% to 100%/,
    ],
    [
      [{ name: "a", viewers: 1, down: { loss: 0.02 } }],
      /^CohortError: cohorts\[0\]\.down\.loss: want a percentage/,
    ],
    [
      [{ name: "a", viewers: 1, up: { delay: "-3ms" } }],
      /^CohortError: cohorts\[0\]\.up\.delay: want a duration/,
    ],
    [
      [{ name: "a", viewers: 1, down: { queue: "10ms" } }],
      /^CohortError: cohorts\[0\]\.down\.queue: needs rate/,
    ],
    [
      [{ name: "a", viewers: 1, down: { rate: "fast" } }],
      /^CohortError: cohorts\[0\]\.down\.rate: want a rate/,
    ],
    [[{ name: "a", share: 1.5 }], /^CohortError: cohorts\[0\]\.share: must be above 0/],
    [
      [{ name: "a", viewers: 2, share: 0.5 }],
      /^CohortError: cohorts\[0\]: needs viewers \(a count\) or share, not both/,
    ],
    [
      [
        { name: "a", viewers: 1 },
        { name: "a", viewers: 1 },
      ],
      /^CohortError: cohorts\[1\]\.name: "a" is used twice/,
    ],
    [[{ name: "unimpaired", viewers: 1 }], /^CohortError: cohorts\[0\]\.name:/],
    [
      [
        { name: "a", share: 0.6 },
        { name: "b", share: 0.6 },
      ],
      /^CohortError: cohorts: the shares add up to more than 1/,
    ],
    [
      [{ name: "a", viewers: 1, steps: [{ for: "1s", down: {} }] }],
      /^CohortError: cohorts\[0\]\.steps\[0\]\.at: is required/,
    ],
    [
      [{ name: "a", viewers: 1, down: { burst: { enter: "1%" } } }],
      /^CohortError: cohorts\[0\]\.down\.burst: needs enter and leave/,
    ],
    [[], /^CohortError: cohorts: want a non-empty list/],
  ];
  for (const [raw, re] of bad) assert.throws(() => parseCohorts(raw), re, JSON.stringify(raw));
});

test("counts come first, shares take their part of the rest, and a share stays a share as viewers grow", () => {
  const c = parseCohorts([
    { name: "a", viewers: 3 },
    { name: "b", share: 0.25 },
    { name: "c", share: 0.25 },
  ]);
  assert.deepEqual(cohortSizes(c, 11), [3, 2, 2]);
  assert.deepEqual(cohortSizes(c, 103), [3, 25, 25]);
  assert.deepEqual(cohortSizes(c, 2), [2, 0, 0]);
  assert.deepEqual(cohortSizes(c, 7), [3, 1, 1]);
  const ids = assignCohorts(c, 11);
  assert.equal(ids.length, 11);
  assert.deepEqual(
    [0, 1, 2, -1].map((g) => ids.filter((x) => x === g).length),
    [3, 2, 2, 4],
  );
  // spread over the ids: no cohort takes a block of three neighbours
  for (let i = 0; i + 2 < ids.length; i++)
    assert.ok(!(ids[i] === ids[i + 1] && ids[i] === ids[i + 2] && ids[i] !== -1));
});

test("a fixed delay adds exactly that; a transparent link adds nothing", () => {
  const d = dir({ delayNs: 20 * MS });
  assert.equal(d.decide(1200, 1000), 1000 + 20 * MS);
  assert.equal(d.counts.delayed, 1);
  const t = dir({});
  assert.equal(t.transparent, true);
  assert.equal(t.decide(1200, 5), 5);
  assert.equal(t.counts.delayed, 0);
});

test("uniform jitter stays within ±jitter around the delay, never reorders, and its mean is the delay", () => {
  const d = dir({ delayNs: 20 * MS, jitterNs: 5 * MS });
  let last = 0;
  let sum = 0;
  const n = 20000;
  for (let i = 0; i < n; i++) {
    const now = i * 10 * MS; // spaced wider than the jitter: the no-reorder clamp never acts
    const out = d.decide(1000, now);
    assert.ok(out >= now + 15 * MS && out <= now + 25 * MS);
    assert.ok(out >= last);
    last = out;
    sum += out - now;
  }
  assert.ok(Math.abs(sum / n - 20 * MS) < 0.1 * MS, `mean ${sum / n / MS} ms`);
  // packed datagrams: the clamp keeps the order
  const p = dir({ delayNs: 20 * MS, jitterNs: 5 * MS, distribution: "normal" });
  let prev = 0;
  for (let i = 0; i < 1000; i++) {
    const out = p.decide(1000, i * 0.1 * MS);
    assert.ok(out >= prev);
    prev = out;
  }
});

test("random loss drops its share, deterministically with the seed", () => {
  const run = (seed: number) => {
    const d = dir({ loss: 0.02 }, [], seed);
    const drops: number[] = [];
    for (let i = 0; i < 50000; i++) if (d.decide(1000, i) === DROP_LOSS) drops.push(i);
    return drops;
  };
  const a = run(7);
  assert.deepEqual(run(7), a);
  assert.notDeepEqual(run(8), a);
  assert.ok(Math.abs(a.length / 50000 - 0.02) < 0.003, `${a.length}`);
});

test("Gilbert–Elliott loss comes in bursts of mean length 1/leave", () => {
  const d = dir({ burst: { enter: 0.01, leave: 0.25, lossBad: 1, lossGood: 0 } });
  let runs = 0;
  let lost = 0;
  let prevLost = false;
  const n = 200000;
  for (let i = 0; i < n; i++) {
    const l = d.decide(1000, i) === DROP_LOSS;
    if (l) lost++;
    if (l && !prevLost) runs++;
    prevLost = l;
  }
  // stationary bad share = enter / (enter + leave) = 1/26; mean burst = 1/leave = 4
  assert.ok(Math.abs(lost / n - 1 / 26) < 0.006, `loss ${lost / n}`);
  assert.ok(Math.abs(lost / runs - 4) < 0.4, `burst ${lost / runs}`);
});

test("a rate limit below the offered rate grows the queueing delay to the queue's limit, then tail-drops", () => {
  // 1000-byte datagrams every 5 ms = 1.6 Mbps into 800 kbps (10 ms each), queue 100 ms
  const d = dir({ rateBps: 800_000, queueNs: 100 * MS });
  const waits: number[] = [];
  let firstDrop = -1;
  for (let i = 0; i < 200; i++) {
    const now = i * 5 * MS;
    const out = d.decide(1000, now);
    if (out === DROP_QUEUE && firstDrop < 0) firstDrop = i;
    if (out >= 0) waits.push(out - now);
  }
  assert.equal(waits[0], 10 * MS);
  assert.ok(waits[10]! > waits[5]! && waits[5]! > waits[1]!);
  assert.ok(firstDrop > 0 && firstDrop < 30, `first drop ${firstDrop}`);
  assert.ok(Math.max(...waits) <= 110 * MS + 1);
  // after the queue fills, about half the datagrams go through (the rate's share)
  const delivered = 200 - d.counts.droppedQueue;
  assert.ok(Math.abs(delivered - 100) < 15, `${delivered}`);
  // a byte limit: 3000 bytes hold three datagrams
  const b = dir({ rateBps: 800_000, queueBytes: 3000 });
  const outs = [0, 1, 2, 3].map(() => b.decide(1000, 0));
  assert.deepEqual(outs.slice(0, 3), [10 * MS, 20 * MS, 30 * MS]);
  assert.equal(outs[3], DROP_QUEUE);
});

test("a timed step applies from its start for its length; steps count from the origin", () => {
  const steps: LinkStep[] = [
    { atNs: 20e9, forNs: 3e9, down: { loss: 1 } },
    { atNs: 30e9, down: { delayNs: 50 * MS } },
  ];
  const d = new LinkDirection({ delayNs: 10 * MS }, steps, "down", 1e9, new LinkRandom(0, 0, 0));
  assert.equal(d.decide(100, 1e9 + 19.999e9), 1e9 + 19.999e9 + 10 * MS);
  assert.equal(d.decide(100, 1e9 + 20e9), DROP_LOSS);
  assert.equal(d.decide(100, 1e9 + 22.9e9), DROP_LOSS);
  assert.equal(d.decide(100, 1e9 + 23e9), 1e9 + 23e9 + 10 * MS);
  assert.equal(d.decide(100, 1e9 + 31e9), 1e9 + 31e9 + 50 * MS);
  // an uplink step does not touch the downlink
  const u = new LinkDirection({}, [{ atNs: 0, up: { loss: 1 } }], "down", 0, new LinkRandom(0, 0, 0));
  assert.equal(u.transparent, true);
});

test("the scenario takes cohorts: a mistake is a scenario error naming the key; counts may not exceed viewers", async () => {
  const { parseScenario } = await import("../../src/core/scenario-file/scenario.ts");
  const base = { whep: "http://127.0.0.1:1/whep", viewers: 4, holdSeconds: 1 };
  const ok = parseScenario(
    JSON.stringify({ ...base, cohorts: [{ name: "far", viewers: 2, down: { delay: "20ms" } }] }),
  );
  assert.equal(ok.cohorts?.[0]?.down.delayNs, 20 * MS);
  assert.throws(
    () =>
      parseScenario(
        JSON.stringify({ ...base, cohorts: [{ name: "far", viewers: 2, down: { lose: "2%" } }] }),
      ),
    /^ScenarioError: scenario: cohorts\[0\]\.down\.lose: unknown key/,
  );
  assert.throws(
    () => parseScenario(JSON.stringify({ ...base, cohorts: [{ name: "far", viewers: 5 }] })),
    /^ScenarioError: scenario: cohorts: the cohorts' counts add up to 5, more than the 4 viewers/,
  );
});
