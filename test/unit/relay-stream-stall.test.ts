// The relay's test-only stream stall (src/main/relay/stream-stall.ts): packets in the last `forMs`
// of every `everyMs` are held, released together and in order at the period's end; a packet that
// comes while others are held waits behind them; switched off, nothing new is held.
import assert from "node:assert/strict";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { StreamStall } from "../../src/main/relay/stream-stall.ts";

test("held in the stall, released in order at the period's end", async () => {
  const sent: number[] = [];
  const stall = new StreamStall({ everyMs: 1000, forMs: 200 }, 0);
  const offer = (n: number, atMs: number, on = true) => {
    if (!stall.hold(atMs, on, () => sent.push(n))) sent.push(n);
  };
  offer(1, 100);
  offer(2, 799);
  offer(3, 800); // the stall starts: held (its timer: the 200 ms left of the period)
  offer(4, 900);
  offer(5, 950, false); // switched off, but packets are held: it waits behind them
  assert.deepEqual(sent, [1, 2]);
  assert.equal(stall.heldPackets, 3);
  await sleep(300);
  assert.deepEqual(sent, [1, 2, 3, 4, 5]);
  assert.equal(stall.stalls, 1);
  offer(6, 1850, false); // off and nothing held: sent at once
  assert.deepEqual(sent, [1, 2, 3, 4, 5, 6]);
});
