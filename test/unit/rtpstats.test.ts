import assert from "node:assert/strict";
import { test } from "node:test";
import { RtpStats } from "../../src/core/rtp/stats.ts";

const CLOCK = 90000;
const MS = 1e6;
const KEY = Uint8Array.of(1); // the stub below treats a first byte of 1 as a key start
const DELTA = Uint8Array.of(0);

function stats(stallNs = 0): RtpStats {
  return new RtpStats({ clockRate: CLOCK, stallNs, keyframeStart: (p) => p[0] === 1 });
}

/** Arrival (ns) of a packet with RTP timestamp ts under a constant transit, plus extra ns. */
function at(ts: number, extraNs = 0): number {
  return Math.trunc((ts / CLOCK) * 1e9) + extraNs;
}

function seqRange(from: number, n: number): number[] {
  return Array.from({ length: n }, (_, i) => (from + i) & 0xffff);
}

function feed(s: RtpStats, seqs: number[]): void {
  for (const q of seqs) {
    const ts = q * 3000;
    s.push(q, ts, false, DELTA, at(ts));
  }
}

test("in order without loss: nothing lost, jitter ≈ 0", () => {
  const s = stats();
  feed(s, seqRange(100, 1000));
  const r = s.report();
  assert.equal(r.expected, 1000);
  assert.equal(r.received, 1000);
  assert.equal(r.lost, 0);
  assert.equal(r.lossPercent, 0);
  assert.ok(r.jitterMs !== null && r.jitterMs < 1e-5, `jitter ${r.jitterMs}`);
});

test("loss from gaps: 10 of 1000 → 1 %", () => {
  const s = stats();
  feed(
    s,
    seqRange(0, 1000).filter((q) => q % 100 !== 50),
  );
  const r = s.report();
  assert.equal(r.expected, 1000);
  assert.equal(r.lost, 10);
  assert.ok(Math.abs(r.lossPercent - 1) < 1e-12);
});

test("sequence wrap at 65535", () => {
  const s = stats();
  const seqs = seqRange(65500, 200);
  seqs.splice(10, 1);
  for (const q of seqs) s.push(q, 0, false, DELTA, 0);
  const r = s.report();
  assert.equal(r.expected, 200);
  assert.equal(r.lost, 1);
  assert.equal(r.received, 199);
});

test("reordered pairs across the wrap are not loss", () => {
  const s = stats();
  const seqs = seqRange(65530, 20);
  for (let i = 0; i + 1 < seqs.length; i += 2) [seqs[i], seqs[i + 1]] = [seqs[i + 1]!, seqs[i]!];
  for (const q of seqs) s.push(q, 0, false, DELTA, 0);
  const r = s.report();
  assert.equal(r.expected, 20);
  assert.equal(r.lost, 0);
  assert.equal(r.duplicates, 0);
});

test("a retransmission fills a gap, a second copy is a duplicate", () => {
  const s = stats();
  for (const q of [0, 1, 2, 4, 5, 6]) s.push(q, 0, false, DELTA, q * MS);
  assert.equal(s.report().lost, 1);
  s.push(3, 0, false, DELTA, 100 * MS);
  let r = s.report();
  assert.equal(r.lost, 0);
  assert.equal(r.expected, 7);
  assert.equal(r.tooLate, 0);
  assert.equal(r.received, 7);
  s.push(3, 0, false, DELTA, 200 * MS);
  r = s.report();
  assert.equal(r.duplicates, 1);
  assert.equal(r.received, 7);
  assert.equal(r.lost, 0);
});

test("duplicates are not received twice", () => {
  const s = stats();
  for (const q of [...seqRange(0, 100), 10, 20, 30, 40, 50]) s.push(q, 0, false, DELTA, 0);
  const r = s.report();
  assert.equal(r.received, 100);
  assert.equal(r.duplicates, 5);
  assert.equal(r.lost, 0);
});

test("the window clears over two cycles: 70 000 packets, no duplicates", () => {
  const s = stats();
  for (let i = 0; i < 70000; i++) s.push(i & 0xffff, 0, false, DELTA, 0);
  const r = s.report();
  assert.equal(r.duplicates, 0);
  assert.equal(r.lost, 0);
  assert.equal(r.expected, 70000);
  assert.equal(r.received, 70000);
});

test("tooLate: with int16 deltas a packet half a cycle behind is a reorder, not too late", () => {
  // RFC 3550 A.1 style: the signed 16-bit difference places every packet within ±32768 of the
  // maximum, so `ext ≤ maxExt − 65536` (tooLate) is never reached; the counter stays 0 and
  // the old packet moves the base down ("the stream started earlier").
  const s = stats();
  s.push(40000, 0, false, DELTA, 0);
  s.push(7232, 0, false, DELTA, MS); // 40000 − 32768
  const r = s.report();
  assert.equal(r.tooLate, 0);
  assert.equal(r.received, 2);
  assert.equal(r.expected, 32769);
  assert.equal(r.duplicates, 0);
});

test("jitter equals an independent RFC 3550 A.8 recurrence", () => {
  const s = stats();
  const delaysMs = [0, 4, 1, 9, 0, 2, 15, 3, 3, 0, 7];
  const arr: number[] = [];
  const tss: number[] = [];
  for (let i = 0; i < 300; i++) {
    const ts = i * 3000;
    const a = at(ts, delaysMs[i % delaysMs.length]! * MS);
    s.push(i, ts, false, DELTA, a);
    arr.push((a / 1e9) * CLOCK);
    tss.push(ts);
  }
  let j = 0;
  for (let i = 1; i < tss.length; i++) {
    const d = arr[i]! - arr[i - 1]! - (tss[i]! - tss[i - 1]!);
    j += (Math.abs(d) - j) / 16;
  }
  const want = (j / CLOCK) * 1000;
  assert.ok(want > 1, `reference jitter ${want} ms is not trivial`);
  assert.ok(Math.abs((s.report().jitterMs ?? Number.NaN) - want) < 1e-6);
});

test("jitter converges to 10 ms for alternating 0 / 10 ms delays", () => {
  const s = stats();
  for (let i = 0; i < 2000; i++) {
    const ts = i * 3000;
    s.push(i & 0xffff, ts, false, DELTA, at(ts, (i % 2) * 10 * MS));
  }
  assert.ok(Math.abs((s.report().jitterMs ?? Number.NaN) - 10) < 0.01);
});

test("jitter ignores a constant transit; timestamps wrap safely", () => {
  const s = stats();
  const base = 0xffffffff - 50 * 3000;
  for (let i = 0; i < 100; i++) {
    const ts = (base + i * 3000) >>> 0;
    s.push(i, ts, false, DELTA, Math.trunc((i * 3000 * 1e9) / CLOCK) + 250 * MS);
  }
  assert.ok((s.report().jitterMs ?? Number.NaN) < 1e-5);
});

test("stalls: a 600 ms gap is one stall", () => {
  const s = stats(500 * MS);
  s.push(0, 0, false, DELTA, 0);
  s.push(1, 0, false, DELTA, 100 * MS);
  s.push(2, 0, false, DELTA, 700 * MS);
  s.push(3, 0, false, DELTA, 750 * MS);
  const r = s.report();
  assert.equal(r.stalls, 1);
  assert.equal(r.stalledMs, 600);
  assert.equal(r.longestGapMs, 600);
  assert.equal(r.receivingSeconds, 0.75);
});

test("stalls: a gap of exactly stallMs counts, a shorter one does not; duplicates never gap", () => {
  const s = stats(500 * MS);
  s.push(0, 0, false, DELTA, 0);
  s.push(1, 0, false, DELTA, 499 * MS);
  s.push(1, 0, false, DELTA, 2000 * MS); // duplicate: ignored entirely
  s.push(2, 0, false, DELTA, 999 * MS);
  s.push(3, 0, false, DELTA, 1000 * MS);
  const r = s.report();
  assert.equal(r.stalls, 1);
  assert.equal(r.stalledMs, 500);
  assert.equal(r.longestGapMs, 500);
  assert.equal(r.receivingSeconds, 1);
});

interface Pkt {
  seq: number;
  ts: number;
  marker: boolean;
  key: boolean;
}

/** n frames of 3 packets, a keyframe every gop frames (key start on its first packet). */
function frames(n: number, gop: number, drop?: (seq: number) => boolean): Pkt[] {
  const out: Pkt[] = [];
  let seq = 0;
  for (let f = 0; f < n; f++) {
    for (let i = 0; i < 3; i++) {
      const p = { seq, ts: f * 3000, marker: i === 2, key: i === 0 && f % gop === 0 };
      if (!drop?.(seq)) out.push(p);
      seq++;
    }
  }
  return out;
}

test("keyframe interval 1 s and the first complete keyframe at the first marker", () => {
  const s = stats();
  assert.equal(s.firstKeyframeArrivalNs, -1);
  frames(120, 30).forEach((p, i) => {
    s.push(p.seq, p.ts, p.marker, p.key ? KEY : DELTA, i * MS);
  });
  const r = s.report();
  assert.equal(r.keyframes, 4);
  assert.equal(r.keyframeIntervalMinS, 1);
  assert.equal(r.keyframeIntervalMeanS, 1);
  assert.equal(r.keyframeIntervalMaxS, 1);
  assert.equal(s.firstKeyframeArrivalNs, 2 * MS); // packet index 2 is the first marker
});

test("fewer than two keyframes: intervals all 0; two key starts of one timestamp are one keyframe", () => {
  const s = stats();
  s.push(0, 0, false, KEY, 0); // e.g. STAP-A with SPS
  s.push(1, 0, false, KEY, MS); // FU-A start of the IDR
  s.push(2, 0, true, DELTA, 2 * MS);
  const r = s.report();
  assert.equal(r.keyframes, 1);
  assert.equal(r.keyframeIntervalMeanS, 0);
  assert.equal(r.keyframeIntervalMaxS, 0);
  assert.equal(s.firstKeyframeArrivalNs, 2 * MS);
});

test("an incomplete first keyframe is skipped", () => {
  const s = stats();
  let want = -1;
  frames(60, 30, (q) => q === 1).forEach((p, i) => {
    const a = i * MS;
    if (p.seq === 92) want = a; // marker of frame 30, the next keyframe
    s.push(p.seq, p.ts, p.marker, p.key ? KEY : DELTA, a);
  });
  assert.ok(want > 0);
  assert.equal(s.firstKeyframeArrivalNs, want);
});

test("a stream without markers never has a complete keyframe", () => {
  const s = stats();
  for (const p of frames(60, 30)) s.push(p.seq, p.ts, false, p.key ? KEY : DELTA, 0);
  assert.equal(s.firstKeyframeArrivalNs, -1);
  assert.equal(s.report().keyframes, 2);
});

test("nothing received: an all-zero report, jitter not measured (null)", () => {
  const r = stats().report();
  for (const [k, v] of Object.entries(r)) assert.equal(v, k === "jitterMs" ? null : 0, k);
});
