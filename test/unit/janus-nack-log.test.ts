// The reading of Janus 1.1.2's log at level 6 that test/janus/janus-lossy.test.ts and
// bench/janus-lossy.ts use to say what Janus did with each NACK (test/janus/nack-log.ts), on lines
// in the shape its src/ice.c writes them.
import assert from "node:assert/strict";
import { test } from "node:test";
import { byMessages, nacksInLog } from "../janus/nack-log.ts";

const at = "[Mon Dec  7 20:55:03 2026]";
const got = (h: string, n: number) => `${at} [${h}]     Just got some NACKS (${n}) we should handle...`;
const line = (h: string, rest: string) => `${at} [${h}]   >> >> ${rest}`;

test("NACK messages before Janus kept a packet name no number; after, each number is resent or not held", () => {
  const log = [
    got("7", 1), // before the buffer: no line per number
    `${at} [7]  Got video RTCP (32 bytes)`,
    got("7", 2), // also before
    got("9", 1),
    line("9", "Scheduling 40 for retransmission due to NACK"),
    got("7", 2),
    line("7", "Can't retransmit packet 10, we don't have it..."),
    line("7", "Scheduling 12 for retransmission due to NACK"),
    line("7", "... and sent 188 of those bytes on the socket"),
    got("7", 1),
    line("7", "Packet 12 was retransmitted just 101ms ago, skipping"),
    got("7", 1),
    line("7", "Scheduling 12 for retransmission due to NACK"),
    got("9", 1), // the last message of a handle that named nothing Janus could look up
  ].join("\n");
  const [h7, h9] = nacksInLog(log);
  assert.equal(h7?.handle, "7");
  assert.equal(h7?.messages, 5);
  assert.equal(h7?.beforeBuffer, 2);
  assert.deepEqual([...(h7?.resent ?? [])], [12]);
  assert.equal(h7?.retransmissions, 2);
  assert.deepEqual([...(h7?.notHeld ?? [])], [10]);
  assert.equal(h9?.messages, 2);
  assert.equal(h9?.beforeBuffer, 1);
  assert.deepEqual([...(h9?.resent ?? [])], [40]);
});

test("handles are matched to receivers by their NACK message counts, a count no handle has left undefined", () => {
  const log = [got("1", 1), got("2", 1), got("2", 1), got("3", 1)].join("\n");
  const handles = nacksInLog(log);
  assert.deepEqual(
    byMessages(handles, [2, 1, 1, 3]).map((h) => h?.handle),
    ["2", "1", "3", undefined],
  );
});

test("round trips: each rtt= line is the handle's whose RTCP Janus parsed last; NACKs before the first > 0 counted", () => {
  const rtcp = (h: string) => `${at} [${h}]  Got an RTCP packet`;
  const log = [
    rtcp("7"),
    `${at}    Parsing compound packet (total of 76 bytes)`,
    `${at} rtt=0`, // a report before Janus's SR would log nothing; a sub-millisecond round trip logs 0
    got("7", 1),
    rtcp("9"),
    `${at} rtt=6`, // 9's first sample: no NACK before it
    got("9", 1),
    got("7", 1),
    rtcp("7"),
    `${at} rtt=5`, // 7's first sample > 0, after two of its NACK messages
    got("7", 1),
    rtcp("7"),
    `${at} rtt=0`,
    rtcp("5"), // a handle that never sent a NACK is not listed
    `${at} rtt=1`,
  ].join("\n");
  const [h7, h9, h5] = nacksInLog(log);
  assert.equal(h7?.firstRttMs, 0);
  assert.equal(h7?.beforeRtt, 2);
  assert.equal(h7?.rttZero, 2);
  assert.equal(h9?.firstRttMs, 6);
  assert.equal(h9?.beforeRtt, 0);
  assert.equal(h9?.rttZero, 0);
  assert.equal(h5, undefined);
  assert.equal(nacksInLog(got("3", 1))[0]?.beforeRtt, -1);
});
