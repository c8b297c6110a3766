// FrameHeads (the stamp source's open frames) against the Map it replaced: the same frames
// remembered, the same heads, and the oldest forgotten first, under random adds and removals.
import assert from "node:assert/strict";
import { test } from "node:test";
import { FrameHeads } from "../../src/core/delay/frame-heads.ts";

interface Head {
  seq: number;
  stampNs: number;
  key: boolean;
}

test("frame heads behave as an insertion-ordered map with the oldest evicted at capacity", () => {
  const CAP = 8;
  const heads = new FrameHeads(CAP);
  const model = new Map<number, Head>();
  let seed = 7;
  const rand = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  for (let step = 0; step < 20_000; step++) {
    const ts = rand(20) * 3000;
    const s = heads.find(ts);
    const want = model.get(ts);
    assert.equal(s >= 0, want !== undefined, `step ${step}: ts ${ts} remembered`);
    if (want !== undefined) {
      assert.deepEqual({ seq: heads.seqAt(s), stampNs: heads.stampAt(s), key: heads.keyAt(s) }, want);
    }
    const op = rand(3);
    if (op === 0 && want !== undefined) {
      heads.remove(s);
      model.delete(ts);
    } else if (op === 1 && want !== undefined) {
      const h = { seq: rand(65536), stampNs: rand(1000) * 1e6, key: rand(2) === 1 };
      heads.set(s, h.seq, h.stampNs, h.key);
      model.set(ts, h);
    } else if (want === undefined) {
      const h = { seq: rand(65536), stampNs: rand(2) === 0 ? -1 : rand(1000) * 1e6, key: rand(2) === 1 };
      if (model.size >= CAP) model.delete(model.keys().next().value as number);
      model.set(ts, h);
      heads.add(ts, h.seq, h.stampNs, h.key);
    }
    assert.equal(heads.size, model.size);
  }
});
