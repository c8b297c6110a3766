// Property-based tests of the per-viewer RTP statistics (docs/definitions.md#rtp-statistics) against a plain reference
// model: every packet is placed on the extended sequence line (int16 step from the highest so
// far, RFC 3550 A.1); a place already taken is a duplicate; expected = highest − lowest + 1.
// Over any stream (steps, repeats, reordering, jumps, wraps) the counters equal the model's,
// lost = expected − received ≥ 0, and every figure is finite.
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { keyframeStartH264 } from "../../src/core/codec/h264.ts";
import { keyframeStartVp8 } from "../../src/core/codec/vp8.ts";
import { RtpStats } from "../../src/core/rtp/stats.ts";
import { bytes, check, list } from "./fuzz.ts";

const keyframeStarts: Record<string, (p: Uint8Array) => boolean> = {
  vp8: keyframeStartVp8,
  h264: keyframeStartH264,
  none: () => false,
  always: () => true,
};

const packetArb = fc.record({
  seqStep: fc.oneof(
    { weight: 8, arbitrary: fc.integer({ min: -3, max: 3 }).map((d) => (d === 0 ? 1 : d)) },
    { weight: 1, arbitrary: fc.constant(0) },
    { weight: 1, arbitrary: fc.constantFrom(16384, -16384, 32767, -32768, 32768, 65535) },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: 0xffff }) },
  ),
  tsStep: fc.oneof(fc.constant(0), fc.constant(3000), fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 })),
  marker: fc.boolean(),
  payload: fc.oneof(bytes(6), fc.constantFrom(Uint8Array.of(0x10, 0x00), Uint8Array.of(0x65, 0x88))),
  dtNs: fc.oneof(
    fc.integer({ min: 0, max: 2_000_000 }),
    fc.constant(0),
    fc.integer({ min: 0, max: 3_000_000_000 }),
  ),
});

const streamArb = fc.record({
  keyframeStart: fc.constantFrom(...Object.keys(keyframeStarts)),
  stallNs: fc.constantFrom(0, 1, 500_000_000, 2 ** 40),
  clockRate: fc.constantFrom(90000, 48000, 8000),
  seq0: fc.integer({ min: 0, max: 0xffff }),
  ts0: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
  t0: fc.constantFrom(0, 5e14, -1e9),
  packets: list(packetArb, 400),
});

test("rtpstats: counters equal the reference model; lost = expected − received ≥ 0; figures finite", (t) => {
  check(t, 400, [streamArb], (s) => {
    const keyframeStart = keyframeStarts[s.keyframeStart]!;
    const st = new RtpStats({ clockRate: s.clockRate, stallNs: s.stallNs, keyframeStart });
    // the model
    const placed = new Set<number>();
    let maxExt = 0;
    let minExt = 0;
    let duplicates = 0;
    let stalls = 0;
    let longestGap = 0;
    let keyframes = 0;
    let lastKeyTs = -1;
    let lastArrival = 0;
    let firstArrival = 0;
    const markerArrivals = new Set<number>();

    let seq = s.seq0;
    let ts = s.ts0;
    let now = s.t0;
    s.packets.forEach((p, i) => {
      seq = (seq + p.seqStep) & 0xffff;
      ts = (ts + p.tsStep) >>> 0;
      now += p.dtNs;
      st.push(seq, ts, p.marker, p.payload, now);

      let ext: number;
      if (placed.size === 0 && duplicates === 0) {
        ext = seq;
        maxExt = seq;
        minExt = seq;
      } else {
        ext = maxExt + (((seq - maxExt) << 16) >> 16);
      }
      if (placed.has(ext)) {
        duplicates++;
      } else {
        placed.add(ext);
        if (ext > maxExt) maxExt = ext;
        if (ext < minExt) minExt = ext;
        if (placed.size === 1) firstArrival = now;
        else {
          const gap = now - lastArrival;
          if (gap > longestGap) longestGap = gap;
          if (s.stallNs > 0 && gap >= s.stallNs) stalls++;
        }
        lastArrival = now;
        if (keyframeStart(p.payload) && ts !== lastKeyTs) {
          keyframes++;
          lastKeyTs = ts;
        }
        if (p.marker) markerArrivals.add(now);
      }

      if (i % 16 !== 0 && i !== s.packets.length - 1) return;
      const r = st.report();
      for (const [k, v] of Object.entries(r))
        assert.ok(Number.isFinite(v) || (k === "jitterMs" && v === null), `${k} = ${v}`);
      assert.equal(r.received, placed.size);
      assert.equal(r.duplicates, duplicates);
      assert.equal(r.tooLate, 0, "an int16 step never lands a packet out of the window");
      assert.equal(r.received + r.duplicates + r.tooLate, i + 1);
      assert.equal(r.expected, maxExt - minExt + 1);
      assert.ok(r.received <= r.expected);
      assert.equal(r.lost, r.expected - r.received);
      assert.ok(r.lossPercent >= 0 && r.lossPercent <= 100);
      // measured from the second received packet on, never before
      if (r.received < 2) assert.equal(r.jitterMs, null);
      else assert.ok(r.jitterMs !== null && r.jitterMs >= 0);
      assert.ok(Math.abs(r.receivingSeconds - (lastArrival - firstArrival) / 1e9) < 1e-6);
      assert.equal(r.stalls, stalls);
      assert.ok(Math.abs(r.longestGapMs - longestGap / 1e6) < 1e-6);
      assert.ok(r.stalledMs >= 0 && (stalls > 0 || r.stalledMs === 0));
      assert.equal(r.keyframes, keyframes);
      if (keyframes >= 2) {
        const eps = 1e-9 * Math.max(1, Math.abs(r.keyframeIntervalMaxS), Math.abs(r.keyframeIntervalMinS));
        assert.ok(r.keyframeIntervalMinS <= r.keyframeIntervalMeanS + eps);
        assert.ok(r.keyframeIntervalMeanS <= r.keyframeIntervalMaxS + eps);
      } else {
        assert.equal(r.keyframeIntervalMeanS, 0);
      }
      const join = st.firstKeyframeArrivalNs;
      assert.ok(join === -1 || markerArrivals.has(join), "the join instant is a marker packet's arrival");
    });
  });
});

test("rtpstats: an in-order stream with every k-th packet missing loses exactly those", (t) => {
  const arb = fc.record({
    seq0: fc.integer({ min: 0, max: 0xffff }),
    n: fc.integer({ min: 1, max: 3000 }),
    every: fc.integer({ min: 2, max: 50 }),
  });
  check(t, 100, [arb], ({ seq0, n, every }) => {
    const st = new RtpStats({ clockRate: 90000, stallNs: 0, keyframeStart: () => false });
    let sent = 0;
    for (let i = 0; i < n; i++) {
      if (i > 0 && i < n - 1 && i % every === 0) continue;
      st.push((seq0 + i) & 0xffff, i * 30, false, Uint8Array.of(0), i * 1e6);
      sent++;
    }
    const r = st.report();
    assert.equal(r.expected, n);
    assert.equal(r.received, sent);
    assert.equal(r.lost, n - sent);
  });
});
