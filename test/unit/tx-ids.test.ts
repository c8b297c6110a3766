// The kernel transmit stamp's datagram number (src/core/delay/tx-ids.ts): the sender's counter
// follows the kernel's OPT_ID numbering, and a stamp is taken for the awaited datagram only when
// its number and instant fit.
import assert from "node:assert/strict";
import { test } from "node:test";
import { TxCounter, txVerdict } from "../../src/core/delay/tx-ids.ts";

test("counter: −1 before stamps are on, then 0, 1, 2 … from the next datagram, wrapping at 2^32", () => {
  const c = new TxCounter();
  assert.equal(c.hand(), -1, "a datagram before setsockopt has no number");
  c.start();
  assert.deepEqual([c.hand(), c.hand(), c.hand()], [0, 1, 2]);
  c.start(); // turned on again: the kernel restarts at 0
  assert.equal(c.hand(), 0);
  const w = new TxCounter();
  w.start();
  (w as unknown as { next: number }).next = 0xffff_ffff;
  assert.deepEqual([w.hand(), w.hand()], [0xffff_ffff, 0]);
});

test("verdict: the awaited number with a plausible instant is taken; others are told apart", () => {
  const hand = 1_000_000;
  const now = 1_200_000;
  assert.equal(txVerdict(7, 7, 1_050_000, hand, now, 1000), "take");
  assert.equal(txVerdict(7, 7, hand - 500, hand, now, 1000), "take", "within the conversion's slack");
  assert.equal(txVerdict(6, 7, 1_050_000, hand, now, 1000), "earlier", "a previous datagram's (RTCP, STUN)");
  assert.equal(txVerdict(8, 7, 1_050_000, hand, now, 1000), "missed", "the awaited stamp was dropped");
  assert.equal(
    txVerdict(7, 7, hand - 40_000_000, hand, now, 1000),
    "implausible",
    "a frame earlier: out of step",
  );
  assert.equal(txVerdict(7, 7, now + 5_000, hand, now, 1000), "implausible", "after it was read back");
  // across the counter's wrap
  assert.equal(txVerdict(0, 0xffff_ffff, 1_050_000, hand, now, 1000), "missed");
  assert.equal(txVerdict(0xffff_ffff, 0, 1_050_000, hand, now, 1000), "earlier");
});
