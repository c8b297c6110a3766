// The relay's test-only padding-only packets (src/main/relay/stream-padding.ts): after every n-th
// frame, k packets with the next sequence numbers, the publisher's later packets renumbered past
// them for good (also once the fault is off), so the numbers a leg sees stay gap-free.
import assert from "node:assert/strict";
import { test } from "node:test";
import { StreamPadding } from "../../src/main/relay/stream-padding.ts";

test("padding after every n-th frame takes the next numbers; later packets move past it, for good", () => {
  const p = new StreamPadding({ everyFrames: 2, packets: 3, bytes: 224 });
  assert.equal(p.payload.length, 224);
  assert.equal(p.payload[223], 224);
  assert.equal(p.payload[0], 0);
  // frames of 2 packets from 65 530: the leg's numbers, padding included, must follow on by one
  const seen: number[] = [];
  let publisherSeq = 65530;
  for (let frame = 0; frame < 6; frame++) {
    for (let k = 0; k < 2; k++) {
      const seq = p.seq(publisherSeq++ & 0xffff);
      seen.push(seq);
      const pads = p.after(k === 1, frame < 4);
      for (let i = 1; i <= pads; i++) seen.push((seq + i) & 0xffff);
    }
  }
  // padding after frames 2 and 4 (the fault is off from frame 5 on): 12 media + 6 padding packets
  assert.equal(p.sent, 6);
  assert.equal(seen.length, 18);
  for (let i = 1; i < seen.length; i++) assert.equal(seen[i], (seen[i - 1]! + 1) & 0xffff, `at ${i}`);
  // a packet without a marker bit never counts as a frame's end
  const q = new StreamPadding({ everyFrames: 1, packets: 1, bytes: 1 });
  assert.equal(q.after(false, true), 0);
  assert.equal(q.after(true, true), 1);
  assert.equal(q.seq(10), 11);
});

test("lost padding: the numbers are skipped, nothing is sent", () => {
  const p = new StreamPadding({ everyFrames: 1, packets: 2, bytes: 10, lost: true });
  assert.equal(p.seq(100), 100);
  assert.equal(p.after(true, true), 0);
  assert.equal(p.sent, 0);
  assert.equal(p.seq(101), 103);
});
