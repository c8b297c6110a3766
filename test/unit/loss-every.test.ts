// LoseEvery (src/core/relay/loss-every.ts): which packets are lost depends on the first
// transmissions only, never on how many resends a viewer's NACKs asked for.
import assert from "node:assert/strict";
import { test } from "node:test";
import { LossEvery } from "../../src/core/relay/loss-every.ts";

function lostOf(sends: number[], every: number): number[] {
  const l = new LossEvery(every);
  return sends.filter((seq) => !l.pass(seq));
}

test("every n-th first transmission is lost; its resend goes through", () => {
  const seqs = Array.from({ length: 20 }, (_, i) => i + 1);
  assert.deepEqual(lostOf(seqs, 5), [5, 10, 15, 20]);
  const l = new LossEvery(5);
  for (const s of [1, 2, 3, 4]) assert.equal(l.pass(s), true);
  assert.equal(l.pass(5), false);
  assert.equal(l.pass(5), true, "the resend of a lost packet");
});

test("resends of packets that were not lost, and a lost one's second resend, do not count", () => {
  // 3 resent twice (a NACK retry that raced the first resend), 5 resent twice after its loss
  const sends = [1, 2, 3, 4, 3, 3, 5, 6, 5, 5, 7, 8, 9, 10];
  assert.deepEqual(lostOf(sends, 5), [5, 10]);
});

test("across the 16-bit wrap, new numbers count and old ones are resends", () => {
  const sends = [65533, 65534, 65535, 0, 1, 65535, 2, 3, 4, 5];
  // first transmissions: 65533, 65534, 65535, 0, 1, 2, 3, 4, 5 → the 3rd, 6th, 9th lost
  assert.deepEqual(lostOf(sends, 3), [65535, 2, 5]);
});
