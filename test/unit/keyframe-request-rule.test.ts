// When a viewer asks for a keyframe (docs/definitions.md#keyframe-requests): libwebrtc's frame-buffer
// timeouts (200 ms before the first frame, 3 s after, re-armed on each timeout), only with a packet
// within 5 s and no keyframe packet within 200 ms; the pause they mark; the first frame not a
// keyframe; the NACK overflow; and the "join" rule.
import assert from "node:assert/strict";
import { test } from "node:test";
import { KeyframeRequestRule } from "../../src/core/render/keyframe-request-rule.ts";

const MS = 1e6;

/** A rule with a count of the inactivity marks. */
function rule(mode: "browser" | "join") {
  const marks = { inactive: 0 };
  return { r: new KeyframeRequestRule(mode, () => marks.inactive++), marks };
}

test("browser: 3 s with nothing shown while packets arrive → a PLI, again every 3 s", () => {
  const { r } = rule("browser");
  r.packet(0, true, false);
  r.shown(0);
  const plis: number[] = [];
  // packets keep arriving every 33 ms, none of a keyframe, nothing shown after 0
  for (let t = 33; t <= 10_000; t += 33) {
    if (r.poll(t * MS)) plis.push(t);
    r.packet(t * MS, false, true);
  }
  // timeouts at 3000, 6000, 9000 ms, each found on the first poll at or after it
  assert.deepEqual(plis, [3003, 6006, 9009]);
  assert.equal(r.nextDueNs(), 12_000 * MS);
});

test("browser: frames shown keep the timeout away; no PLI while a keyframe is arriving", () => {
  const { r } = rule("browser");
  let plis = 0;
  for (let t = 0; t <= 10_000; t += 33) {
    if (r.poll(t * MS)) plis++;
    r.packet(t * MS, false, true);
    r.shown(t * MS);
  }
  assert.equal(plis, 0);
  // nothing shown from 0 but keyframe packets within 200 ms of each timeout: no PLI
  const k = rule("browser").r;
  k.packet(0, true, false);
  k.shown(0);
  let asked = 0;
  for (let t = 10; t <= 7000; t += 10) {
    if (k.poll(t * MS)) asked++;
    k.packet(t * MS, true, true);
  }
  assert.equal(asked, 0);
});

test("browser: before the first frame the wait is 200 ms", () => {
  const { r } = rule("browser");
  r.packet(0, false, false);
  assert.equal(r.nextDueNs(), 200 * MS);
  assert.equal(r.poll(199 * MS), false);
  assert.equal(r.poll(200 * MS), true);
  assert.equal(r.nextDueNs(), 400 * MS);
  r.packet(300 * MS, false, false);
  // two timeouts due at once are one PLI
  assert.equal(r.poll(650 * MS), true);
  assert.equal(r.nextDueNs(), 800 * MS);
});

test("browser: the 200 ms waits run from the stream's start, so the first falls on that grid", () => {
  const { r, marks } = rule("browser");
  r.start(1000 * MS);
  r.packet(1350 * MS, false, false);
  assert.equal(r.nextDueNs(), 1400 * MS, "the wait that began at 1 200 ms, not 200 ms after the packet");
  assert.equal(r.poll(1399 * MS), false);
  assert.equal(r.poll(1400 * MS), true);
  assert.equal(marks.inactive, 0, "no timeout before the first packet is judged");
  // without a start the first wait begins with the first packet
  const { r: plain } = rule("browser");
  plain.packet(1350 * MS, false, false);
  assert.equal(plain.nextDueNs(), 1550 * MS);
  // a start after the first packet is ignored
  plain.start(1500 * MS);
  assert.equal(plain.nextDueNs(), 1550 * MS);
});

test("no packet for 5 s: the timeout marks the stream inactive and asks for nothing", () => {
  const { r, marks } = rule("browser");
  r.packet(0, true, false);
  r.shown(0);
  // a silence from 0 to 20 s: timeouts at 3, 6 (packet 6 s old: inactive), 9, 12 … 18
  assert.equal(r.poll(3000 * MS), true); // the packet at 0 is 3 s old: still active
  assert.equal(r.poll(20_000 * MS), false);
  assert.equal(marks.inactive, 5); // 6, 9, 12, 15, 18 s
  // a stream that never sent a packet asks for nothing
  const idle = rule("browser").r;
  assert.equal(idle.poll(60e9), false);
  assert.equal(idle.nextDueNs(), -1);
});

test("browser: the first frame not a keyframe, and a NACK overflow, ask at once", () => {
  const { r } = rule("browser");
  r.packet(0, false, false);
  r.firstFrameNotKey();
  assert.equal(r.nextDueNs(), 0);
  assert.equal(r.poll(1 * MS), true);
  assert.equal(r.poll(2 * MS), false);
  r.nackOverflow();
  assert.equal(r.poll(3 * MS), true);
});

test("join: a PLI with the first packet and every 500 ms of packets until joined, none after", () => {
  const { r } = rule("join");
  const plis: number[] = [];
  for (let t = 0; t <= 3000; t += 100) {
    if (r.poll(t * MS)) plis.push(t);
    if (r.packet(t * MS, false, t >= 1200)) plis.push(t);
  }
  assert.deepEqual(plis, [0, 500, 1000]);
  assert.equal(r.nextDueNs(), -1, "join needs no timer");
  // no timeout PLIs, no first-frame or overflow requests
  r.firstFrameNotKey();
  r.nackOverflow();
  assert.equal(r.poll(60e9), false);
});
