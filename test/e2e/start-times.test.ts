// Viewer start times as they happened (issue 11): the report's startOffsetMs is the instant the
// viewer sent its WHEP POST, read on the monotonic clock the relay (in this process) reads when
// the POST reaches it; and the first viewer does not wait for the worker pool to start or for
// anything to load — the engine is warmed before t0 — so every POST goes out close to its slot.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Engine } from "../../src/main/run/engine.ts";
import { inThreadEngine } from "../../src/main/run/engine.ts";
import { poolEngine } from "../../src/main/run/pool-engine.ts";
import { runThroughRelay } from "./harness.ts";

/** A POST goes out this soon after its slot: the viewer's own ICE gathering (host candidates on loopback). */
const START_BOUND_MS = 100;
/** ... and reaches the relay's handler this soon after it went out (one loopback HTTP request). */
const ARRIVAL_BOUND_MS = 50;

/** The engine, passing on its warm-up, with the run's t0 (monotonic ns) taken from the shard tasks. */
function withT0(inner: Engine): { engine: Engine; t0: () => number } {
  let t0 = Number.NaN;
  const engine: Engine = {
    workers: inner.workers,
    run(tasks, interrupt, onTick) {
      t0 = tasks[0]!.t0MonoNs;
      return inner.run(tasks, interrupt, onTick);
    },
  };
  if (inner.warmUp) engine.warmUp = (shards) => inner.warmUp?.(shards) ?? Promise.resolve();
  return { engine, t0: () => t0 };
}

for (const [label, make] of [
  ["workers 2", () => poolEngine({ workers: 2 })],
  ["workers 0", () => inThreadEngine()],
] as const) {
  test(`${label}: each viewer's start is its POST instant, within ${START_BOUND_MS} ms of its slot`, async (t) => {
    const { engine, t0 } = withT0(make());
    const { report: r, relay } = await runThroughRelay({}, { viewers: 4, holdSeconds: 2 }, engine);
    const viewers = [...(r.viewers ?? [])].sort((a, b) => a.startOffsetMs - b.startOffsetMs);
    assert.equal(viewers.length, 4);
    assert.equal(relay.whepPostsMonoNs.length, 4, "one POST per viewer");
    const lines: string[] = [];
    viewers.forEach((v, k) => {
      const slotMs = 250 * v.id; // ramp 1 s over 4 viewers
      const postNs = t0() + v.startOffsetMs * 1e6;
      const arrivedNs = relay.whepPostsMonoNs[k]!;
      lines.push(
        `viewer ${v.id}: start ${v.startOffsetMs.toFixed(3)} ms (slot ${slotMs}), reached the relay ${((arrivedNs - postNs) / 1e6).toFixed(3)} ms later`,
      );
      assert.equal(v.joined, true);
      assert.ok(v.startOffsetMs >= slotMs, `viewer ${v.id} started before its slot`);
      assert.ok(v.startOffsetMs - slotMs <= START_BOUND_MS, lines.join("; "));
      assert.ok(arrivedNs >= postNs, `viewer ${v.id}: the relay saw the POST before the reported start`);
      assert.ok(arrivedNs - postNs <= ARRIVAL_BOUND_MS * 1e6, lines.join("; "));
    });
    t.diagnostic(lines.join("; "));
  });
}
