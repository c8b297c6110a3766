import assert from "node:assert/strict";
import { test } from "node:test";
import { Matcher, type MatchOutcome } from "../../src/core/delay/matcher.ts";
import { SendLog } from "../../src/core/delay/sendlog.ts";

const FRAMES = 10;
const TICKS = 3000;
const BASE = 1e15;
const at = (ms: number): number => BASE + ms * 1e6;
/** After every send in these tests, so latest returns the highest recorded k ≡ i. */
const T = at(100000);

function recordAt(l: SendLog, from: number, to: number): void {
  for (let k = from; k <= to; k++) l.record(k, at(33 * k));
}

/** A matcher over its own log of 10 frames per loop, k = 0..39 recorded at 33·k ms. */
function newMatch(): { m: Matcher; l: SendLog } {
  const l = SendLog.create(FRAMES);
  recordAt(l, 0, 39);
  return { m: new Matcher(l, FRAMES, TICKS), l };
}

/** The delay a sampled match of frame k must report at T. */
const sample = (k: number): number => T - at(33 * k);

function want(m: Matcher, i: number, ts: number, t1: number, outcome: MatchOutcome, delayNs: number): void {
  assert.equal(m.match(i, ts, t1), outcome, `match(${i}, ${ts})`);
  assert.equal(m.delayNs, delayNs, `delay of match(${i}, ${ts})`);
}

function wantAnchor(m: Matcher, k: number, ts: number): void {
  assert.deepEqual([m.anchorK, m.anchorTs], [k, ts]);
}

/** newMatch with the anchor (35, 1000) set by a first match(5, 1000, T). */
function anchored(): { m: Matcher; l: SendLog } {
  const r = newMatch();
  want(r.m, 5, 1000, T, "sampled", sample(35));
  wantAnchor(r.m, 35, 1000);
  return r;
}

test("the first match is kept as it is", () => {
  const { m } = newMatch();
  wantAnchor(m, -1, -1);
  assert.equal(sample(35), 98845e6);
  want(m, 5, 1000, T, "sampled", sample(35));
  wantAnchor(m, 35, 1000);
});

test("one loop too new is aliased and leaves the anchor", () => {
  const { m, l } = anchored();
  recordAt(l, 40, 49);
  // kL 49 = 35 + 4 + 10: one whole loop too new
  want(m, 9, 1000 + 4 * TICKS, T, "aliased", 0);
  wantAnchor(m, 35, 1000);
  want(m, 9, 1000 + 4 * TICKS, T, "aliased", 0);
  wantAnchor(m, 35, 1000);
});

test("two loops too new is aliased and leaves the anchor", () => {
  const { m, l } = anchored();
  recordAt(l, 40, 59);
  // kL 57 = 35 + 2 + 20
  want(m, 7, 1000 + 2 * TICKS, T, "aliased", 0);
  wantAnchor(m, 35, 1000);
});

test("a send whole loops older than the frame: the log is behind, no sample, the anchor stays", () => {
  const { m, l } = anchored();
  // the frame 4 on from the anchor is k 39; the log holds k 0..39, so index 9's latest is 39: a
  // sample. Five frames on (k 40) the log has only k 30 for index 0: one whole loop behind
  want(m, 0, 1000 + 5 * TICKS, T, "behind", 0);
  wantAnchor(m, 35, 1000);
  recordAt(l, 40, 40);
  want(m, 0, 1000 + 5 * TICKS, T, "sampled", sample(40));
  wantAnchor(m, 40, 1000 + 5 * TICKS);
});

test("a step that is not a whole number of ticks is no evidence: a sample", () => {
  const { m } = anchored();
  want(m, 6, 1000 + 4500, T, "sampled", sample(36));
  wantAnchor(m, 36, 5500);
});

test("a difference that is not a whole loop is a sample", () => {
  const { m } = anchored();
  // kL 39, expected 38: diff 1
  want(m, 9, 1000 + 3 * TICKS, T, "sampled", sample(39));
  wantAnchor(m, 39, 10000);
});

test("a backwards step (negative whole ticks) is handled", () => {
  const { m } = anchored();
  // kL 33 for i 3; expected 35 − 2 = 33: diff 0
  want(m, 3, 1000 - 2 * TICKS + 2 ** 32, T, "sampled", sample(33));
});

test("RTP timestamp wrap", () => {
  const w = 0xfffff000;
  const a = newMatch().m;
  want(a, 5, w, T, "sampled", sample(35));
  const wrapped = (w + 6000) >>> 0;
  assert.equal(wrapped, 0x770);
  // two frames on across the wrap, kL 37, diff 0
  want(a, 7, wrapped, T, "sampled", sample(37));
  wantAnchor(a, 37, 0x770);

  const b = newMatch();
  want(b.m, 5, w, T, "sampled", sample(35));
  recordAt(b.l, 40, 47);
  // kL 47, diff 10: one whole loop too new, across the wrap
  want(b.m, 7, wrapped, T, "aliased", 0);
  wantAnchor(b.m, 35, w);
});

test("not logged: no send of the index by t1; the anchor stays unset", () => {
  const { m } = newMatch();
  // k ≡ 3 is first sent at 99 ms
  want(m, 3, 0, at(50), "not_logged", 0);
  wantAnchor(m, -1, -1);
  want(m, 12, 0, T, "not_logged", 0); // not a clip index
});

test("a sample is the monotonic difference t1 − t0", () => {
  const l = SendLog.create(10);
  const t0 = 123456789012345;
  l.record(0, t0);
  const m = new Matcher(l, 10, TICKS);
  want(m, 0, 0, t0 + 5e6, "sampled", 5e6);
});

/** 10 frames a loop, k 3 jumps from index 2 to 5 and k 9 from 0 to 5 (keyframes on request). */
const JUMPS = [0, 1, 2, 5, 6, 7, 8, 9, 0, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6];
const tsOf = (k: number): number => (1000 + k * TICKS) >>> 0;

function jumping(to: number): { m: Matcher; l: SendLog } {
  const l = SendLog.create(FRAMES);
  for (let k = 0; k <= to; k++) l.record(k, at(33 * k), JUMPS[k]!);
  const m = new Matcher(l, FRAMES, TICKS);
  // frame k 4 (index 6) arrives 2 ms after its send: the anchor
  want(m, 6, tsOf(4), at(33 * 4 + 2), "sampled", 2e6);
  wantAnchor(m, 4, tsOf(4));
  return { m, l };
}

test("a jumping clip: the RTP step names the frame's own k, sends of its index are not N apart", () => {
  const { m, l } = jumping(19);
  // k 10 sends index 6 six frames after k 4 (not a loop): its own send, a sample
  want(m, 6, tsOf(10), T, "sampled", T - at(330));
  wantAnchor(m, 10, tsOf(10));
  // k 20's send (index 6) is not logged yet: the log is behind, no sample
  want(m, 6, tsOf(20), T, "behind", 0);
  wantAnchor(m, 10, tsOf(10));
  l.record(20, at(660), 6);
  // a copy of k 10 arriving after k 20 was sent: aliased to k 20, no sample
  want(m, 6, tsOf(10), T, "aliased", 0);
  want(m, 6, tsOf(20), T, "sampled", T - at(660));
});

test("a jumping clip under loss: frames between matches lost, the next is still its own k", () => {
  const { m } = jumping(30);
  // frames k 5..16 lost; k 17 sends index 3 (k mod 10 would say 7): its own send, 1 ms after it
  want(m, 3, tsOf(17), at(33 * 17 + 1), "sampled", 1e6);
  wantAnchor(m, 17, tsOf(17));
  // k 27 also sends index 3: ten frames later, sampled; k 17's copy arriving now is aliased
  want(m, 3, tsOf(27), at(33 * 27 + 3), "sampled", 3e6);
  want(m, 3, tsOf(17), T, "aliased", 0);
  // a step whose k sends another index is no evidence: the match is taken as it is
  want(m, 9, tsOf(24), T, "sampled", T - at(33 * 23));
});
