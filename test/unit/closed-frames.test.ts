// ClosedFrames (the reassembler's closed frames) against the Map it replaced: the same timestamps
// remembered under random closes and forgetting, through the ring's growth and index collisions.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ClosedFrames } from "../../src/core/rtp/closed-frames.ts";

test("closed frames behave as the insertion-ordered map of timestamp to instant", () => {
  const closed = new ClosedFrames(4);
  const model = new Map<number, number>();
  let seed = 11;
  const rand = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  let now = 0;
  let most = 0;
  for (let step = 0; step < 50_000; step++) {
    now += rand(3);
    // timestamps from a small range (collisions, repeats) and the far end of uint32 (negative int32)
    const ts = rand(2) === 0 ? rand(300) * 3000 : 4294967295 - rand(300);
    assert.equal(closed.has(ts), model.has(ts | 0), `step ${step}: ts ${ts}`);
    if (!model.has(ts | 0) && rand(2) === 0) {
      closed.add(ts, now);
      model.set(ts | 0, now);
    }
    if (rand(50) === 0) {
      const keep = rand(400);
      closed.forgetOlder(now, keep);
      for (const [k, at] of model) {
        if (now - at <= keep) break;
        model.delete(k);
      }
    }
    assert.equal(closed.size, model.size);
    most = Math.max(most, model.size);
  }
  assert.ok(most > 64, `the ring grew well past its first 4 frames (${most})`);
});
