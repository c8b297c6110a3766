// The NACK generator's timing against libwebrtc M106's receive-side NACK module
// (docs/definitions.md#nacks): hand-built sequence numbers and a fake clock (ns).
import assert from "node:assert/strict";
import { test } from "node:test";
import { NackGenerator } from "../../src/workers/receive/nack.ts";

const MS = 1e6;

/** What a tick at `now` sends (each inner list is one message). */
function tick(g: NackGenerator, now: number): number[][] {
  const out: number[][] = [];
  g.poll(now, (s) => out.push([...s]));
  return out;
}

function fresh(g: NackGenerator, now: number): number[][] {
  const out: number[][] = [];
  g.pollNew(now, (s) => out.push([...s]));
  return out;
}

/** Runs the 20 ms ticks the sender would run from `from` to `to` (ns), collecting the messages. */
function ticks(g: NackGenerator, from: number, to: number): { at: number; seqs: number[] }[] {
  const out: { at: number; seqs: number[] }[] = [];
  for (let due = g.nextDueNs(); due >= 0 && due <= to; due = g.nextDueNs()) {
    const at = Math.max(due, from);
    for (const seqs of tick(g, at)) out.push({ at, seqs });
  }
  return out;
}

test("NACK: a gap is asked for at once, then on the first tick 100 ms after, 10 times in all", () => {
  const g = new NackGenerator();
  assert.equal(g.onPacket(100, 0), false, "the first packet starts the 20 ms grid");
  assert.equal(g.onPacket(101, 1 * MS), false);
  assert.equal(g.onPacket(104, 3 * MS), true, "102 and 103 missing");
  assert.deepEqual(fresh(g, 3 * MS), [[102, 103]], "one message for the gap, at once");
  assert.deepEqual(fresh(g, 3 * MS), [], "asked once");
  assert.equal(g.nextDueNs(), 120 * MS, "due at 103 ms: the tick at 120 ms");
  assert.deepEqual(tick(g, 100 * MS), [], "not 100 ms old yet");
  g.onPacket(103, 50 * MS); // 103 repaired
  const sent = ticks(g, 120 * MS, 5000 * MS);
  assert.deepEqual(
    sent.map((m) => m.at / MS),
    [120, 220, 320, 420, 520, 620, 720, 820, 920],
    "nine re-requests, each on the first tick at least 100 ms after the last",
  );
  for (const m of sent) assert.deepEqual(m.seqs, [102]);
  assert.equal(g.pending, 0, "dropped after 10 requests");
  assert.equal(g.messages, 10);
  assert.equal(g.requested, 11);
});

test("NACK: the sequence numbers due on one tick go out in one message", () => {
  const g = new NackGenerator();
  g.onPacket(0, 0);
  assert.ok(g.onPacket(2, 1 * MS)); // 1
  assert.deepEqual(fresh(g, 1 * MS), [[1]]);
  assert.ok(g.onPacket(5, 15 * MS)); // 3, 4
  assert.deepEqual(fresh(g, 15 * MS), [[3, 4]]);
  assert.ok(g.onPacket(9, 30 * MS)); // 6, 7, 8
  assert.deepEqual(fresh(g, 30 * MS), [[6, 7, 8]]);
  // 1 due at 101, 3-4 at 115: both at the 120 ms tick; 6-8 at 130: the 140 ms tick
  assert.deepEqual(tick(g, 120 * MS), [[1, 3, 4]]);
  assert.deepEqual(tick(g, 140 * MS), [[6, 7, 8]]);
  g.onPacket(3, 150 * MS);
  g.onPacket(7, 150 * MS);
  assert.deepEqual(tick(g, 220 * MS), [[1, 4]]);
  assert.deepEqual(tick(g, 240 * MS), [[6, 8]]);
  assert.equal(g.messages, 7);
  // a duplicate or an old packet adds nothing
  assert.equal(g.onPacket(9, 250 * MS), false);
  assert.equal(g.onPacket(0, 250 * MS), false);
});

test("NACK: a known RTT replaces the 100 ms resend delay", () => {
  const g = new NackGenerator();
  g.onPacket(10, 0);
  g.onPacket(12, 0);
  fresh(g, 0);
  g.updateRtt(30);
  assert.equal(g.nextDueNs(), 40 * MS, "due at 30 ms: the 40 ms tick");
  assert.deepEqual(tick(g, 20 * MS), []);
  assert.deepEqual(tick(g, 40 * MS), [[11]]);
  assert.equal(g.nextDueNs(), 80 * MS);
});

test("NACK: gaps across the sequence wrap; a jump beyond maxGap is no loss", () => {
  const g = new NackGenerator({ maxGap: 100 });
  g.onPacket(65534, 0);
  assert.ok(g.onPacket(1, 0)); // 65535, 0
  assert.deepEqual(fresh(g, 0), [[65535, 0]]);
  g.onPacket(0, 1 * MS);
  g.onPacket(65535, 1 * MS);
  assert.equal(g.pending, 0);
  assert.equal(g.onPacket(500, 2 * MS), false, "a jump of 498 > maxGap");
  assert.equal(g.pending, 0);
  assert.equal(g.nextDueNs(), -1);
  assert.equal(g.overflows, 0);
});

test("NACK: a single jump past maxPackets overflows (a keyframe request), however far past maxGap", () => {
  const g = new NackGenerator({ maxGap: 100, maxPackets: 300 });
  g.onPacket(0, 0);
  assert.equal(g.onPacket(200, 0), false, "199 missing: past maxGap, within the list: no loss");
  assert.equal(g.overflows, 0);
  assert.equal(g.onPacket(502, 0), false, "301 missing: the list cannot hold them");
  assert.equal(g.overflows, 1);
  const d = new NackGenerator();
  d.onPacket(0, 0);
  d.onPacket(30001, 0);
  assert.equal(d.overflows, 1, "a jump of 30 000 (a sender's restart) asks for a keyframe");
  assert.equal(d.pending, 0);
});

test("NACK: a gap that would pass maxPackets (1 000) clears the list and counts an overflow", () => {
  const g = new NackGenerator({ maxPackets: 10 });
  g.onPacket(0, 0);
  assert.ok(g.onPacket(5, 0)); // 1..4
  assert.ok(g.onPacket(11, 0)); // 6..10: 9 held
  assert.ok(g.onPacket(13, 0), "12: 10 held, not past 10");
  assert.equal(g.onPacket(15, 0), false, "14 would make 11: the list is cleared instead");
  assert.equal(g.overflows, 1);
  assert.equal(g.pending, 0);
  assert.deepEqual(fresh(g, 0), []);
  const d = new NackGenerator();
  d.onPacket(0, 0);
  assert.ok(d.onPacket(501, 0));
  assert.ok(d.onPacket(1002, 0));
  assert.equal(d.pending, 1000);
  assert.equal(d.onPacket(1004, 0), false);
  assert.equal(d.overflows, 1);
});

test("NACK: an entry 10 000 sequence numbers behind the newest is dropped", () => {
  const g = new NackGenerator({ maxNacks: 1000 });
  g.onPacket(0, 0);
  g.onPacket(2, 0); // 1 missing
  fresh(g, 0);
  for (let s = 3; s <= 10001; s++) g.onPacket(s & 0xffff, 0);
  assert.equal(g.pending, 1, "10 000 behind: still held");
  g.onPacket(10003, 0); // 10002 missing: adding it drops 1 (10 002 behind)
  assert.equal(g.pending, 1);
  assert.deepEqual(fresh(g, 0), [[10002]]);
});
