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
