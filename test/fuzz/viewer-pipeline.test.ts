// Property-based tests of one viewer's packet pipeline (docs/definitions.md#viewer-pipeline) over arbitrary streams: frames
// of a small random clip (with repeated frames, so some fingerprints are duplicates), sent in
// random loops with lost, repeated and swapped packets, mixed with junk packets of any seq,
// timestamp, marker and payload; a send log missing some sends; capture stamps of any value.
// Nothing throws, every complete frame lands in exactly one outcome, the histograms hold what
// the counters say, and the RTP and transit counters add up to the packets read.
import assert from "node:assert/strict";
import { before, test } from "node:test";
import fc from "fast-check";
import { type Clip, keyframeIntervalOf } from "../../src/core/clip/model.ts";
import { packetizeH264 } from "../../src/core/codec/h264.ts";
import { packetizeVp8 } from "../../src/core/codec/vp8.ts";
import { ClipTable, createHasher, type Hasher } from "../../src/core/delay/fingerprint.ts";
import { SendLog } from "../../src/core/delay/sendlog.ts";
import { ViewerPipeline, type ViewerPipelineOptions } from "../../src/core/delay/viewer-pipeline.ts";
import { RtpStats } from "../../src/core/rtp/stats.ts";
import { DelayHistogram } from "../../src/core/stats/summaries.ts";
import type { Codec } from "../../src/core/types.ts";
import { bytes, check, concat, runsFor } from "./fuzz.ts";

const TICKS = 3000;
let hasher: Hasher;
before(async () => {
  hasher = await createHasher();
});

/** A frame of `codec` from random bytes: VP8 as it is, H.264 as one slice NAL unit (IDR or not). */
function frameOf(codec: Codec, body: Uint8Array, key: boolean): Uint8Array {
  if (codec === "vp8") {
    const f = body.length > 0 ? body.slice() : Uint8Array.of(0);
    f[0] = key ? f[0]! & 0xfe : f[0]! | 1;
    return f;
  }
  const nal = concat([Uint8Array.of(key ? 0x65 : 0x41), body]);
  for (let i = 2; i < nal.length; i++) if (nal[i]! <= 1 && nal[i - 1] === 0 && nal[i - 2] === 0) nal[i] = 2;
  if (nal[nal.length - 1] === 0) nal[nal.length - 1] = 0x80;
  return concat([Uint8Array.of(0, 0, 0, 1), nal]);
}

interface Sent {
  kind: "frame";
  kStep: number; // absolute frame index k = previous k + kStep (at least 0)
  logged: boolean;
  logLagNs: number; // t0 = first arrival − lag (negative: logged after it arrived)
  tsNoise: number; // 0, or a timestamp that is off the frame grid
}
interface Junk {
  kind: "junk";
  seq: number;
  ts: number;
  marker: boolean;
  payload: Uint8Array;
}

const caseArb = fc.record({
  codec: fc.constantFrom<Codec>("vp8", "h264"),
  trackCodec: fc.constantFrom("same", "same", "same", "opus"),
  withLog: fc.constantFrom(true, true, true, false),
  // clip frames: bodies from a pool of 3, so repeated bodies make duplicate fingerprints
  pool: fc.array(bytes(600, 1), { minLength: 3, maxLength: 3 }),
  picks: fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 1, maxLength: 6 }),
  mtu: fc.integer({ min: 20, max: 300 }),
  seq0: fc.integer({ min: 0, max: 0xffff }),
  ts0: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
  events: fc.array(
    fc.oneof(
      {
        weight: 5,
        arbitrary: fc.record({
          kind: fc.constant("frame" as const),
          kStep: fc.oneof(
            { weight: 8, arbitrary: fc.constant(1) },
            { weight: 1, arbitrary: fc.integer({ min: -3, max: 20 }) },
          ),
          logged: fc.constantFrom(true, true, true, false),
          logLagNs: fc.oneof(fc.integer({ min: 0, max: 50_000_000 }), fc.constant(-1_000_000)),
          tsNoise: fc.constantFrom(0, 0, 0, 0, 1, 1500),
        }),
      },
      {
        weight: 1,
        arbitrary: fc.record({
          kind: fc.constant("junk" as const),
          seq: fc.integer({ min: 0, max: 0xffff }),
          ts: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
          marker: fc.boolean(),
          payload: bytes(20),
        }),
      },
    ),
    { maxLength: 40, size: "max" },
  ),
  // per packet on the wire: 0 as is, 1 lost, 2 repeated, 3 swapped with the next, 4 a byte changed
  fate: fc.array(fc.constantFrom(0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4), { maxLength: 600, size: "max" }),
  dtNs: fc.array(fc.oneof(fc.integer({ min: 0, max: 2_000_000 }), fc.constantFrom(0, 40_000_000, 1.2e9)), {
    maxLength: 600,
    size: "max",
  }),
  capture: fc.oneof(
    fc.constant("none" as const),
    fc.constant("good" as const),
    fc.constantFrom(0, -(2 ** 53), 2 ** 53, 1e18, -5e9),
  ),
  negotiated: fc.boolean(),
  excludeFirstNs: fc.constantFrom(0, 0, 1_000_000, 30_000_000, 1e9),
  stallNs: fc.constantFrom(0, 500_000_000),
  postNs: fc.constantFrom(0, 1e15),
  clockRate: fc.constantFrom(undefined, 90000, 48000),
});

type Case = typeof caseArb extends fc.Arbitrary<infer T> ? T : never;

const totals = { samples: 0, invalid: 0, unmatched: 0, excluded: 0, duplicates: 0, incomplete: 0, late: 0 };

function runCase(c: Case): void {
  const frames = c.picks.map((p, i) => frameOf(c.codec, c.pool[p]!, i === 0 || p === 0));
  const keyframes = frames.map((_, i) => i === 0 || c.picks[i] === 0);
  const clip: Clip = {
    codec: c.codec,
    frames,
    keyframes,
    ticks: TICKS,
    fps: 30,
    keyframeInterval: keyframeIntervalOf(keyframes),
  };
  const table = new ClipTable(hasher, clip);
  const n = frames.length;
  const log = SendLog.create(n);

  // the wire: packets of each event in order, then each packet's fate
  interface Pkt {
    seq: number;
    ts: number;
    marker: boolean;
    payload: Uint8Array;
    event: number;
  }
  const sentPkts: Pkt[] = [];
  let seq = c.seq0;
  let k = -1;
  const kOf = new Map<number, number>(); // frame event → k
  c.events.forEach((e: Sent | Junk, ei) => {
    if (e.kind === "junk") {
      sentPkts.push({ seq: e.seq, ts: e.ts, marker: e.marker, payload: e.payload, event: ei });
      return;
    }
    k = Math.max(0, k + e.kStep);
    kOf.set(ei, k);
    const frame = frames[k % n]!;
    const payloads = c.codec === "vp8" ? packetizeVp8(frame, c.mtu, k & 0x7fff) : packetizeH264(frame, c.mtu);
    const ts = (c.ts0 + k * TICKS + e.tsNoise) >>> 0;
    payloads.forEach((payload, j) => {
      sentPkts.push({ seq, ts, marker: j === payloads.length - 1, payload, event: ei });
      seq = (seq + 1) & 0xffff;
    });
  });
  const wire: Pkt[] = [];
  for (let i = 0; i < sentPkts.length; i++) {
    const fate = c.fate[i] ?? 0;
    const p = sentPkts[i]!;
    if (fate === 1) continue;
    if (fate === 3 && i + 1 < sentPkts.length) {
      wire.push(sentPkts[i + 1]!, p);
      i++;
      continue;
    }
    if (fate === 4) {
      const payload = p.payload.slice();
      payload[payload.length - 1]! ^= 0x5a;
      wire.push({ ...p, payload });
      continue;
    }
    wire.push(p);
    if (fate === 2) wire.push(p);
  }
  const arrivals: number[] = [];
  let now = c.postNs + 10_000_000;
  for (let i = 0; i < wire.length; i++) {
    now += c.dtNs[i] ?? 100_000;
    arrivals.push(now);
  }
  // the send log: t0 of each logged frame event relative to its first packet's arrival
  const firstArrival = new Map<number, number>();
  wire.forEach((p, i) => {
    if (!firstArrival.has(p.event)) firstArrival.set(p.event, arrivals[i]!);
  });
  c.events.forEach((e: Sent | Junk, ei) => {
    if (e.kind !== "frame" || !e.logged) return;
    log.record(kOf.get(ei)!, (firstArrival.get(ei) ?? c.postNs) - e.logLagNs);
  });
  // and one send after the last arrival (never a match: no frame arrived after it), so the log
  // has passed every frame, as a split run's has once it caught up
  if (log.recorded > 0) log.record(log.recorded, now + 1);

  const wallMinusMono = 1.7e18;
  const hook = { n: 0, key: 0, negative: 0 };
  const trackCodec = c.trackCodec === "same" ? c.codec : c.trackCodec;
  const options: ViewerPipelineOptions = {
    codec: trackCodec,
    stallNs: c.stallNs,
    excludeFirstNs: c.excludeFirstNs,
    postNs: c.postNs,
    wallMinusMonoNs: wallMinusMono,
    hasher,
    table,
    sendLog: c.withLog ? log : null,
    absCaptureNegotiated: c.negotiated,
    onDelaySample: (d, key) => {
      hook.n++;
      if (key) hook.key++;
      if (d < 0) hook.negative++;
    },
    ...(c.clockRate !== undefined ? { clockRate: c.clockRate } : {}),
  };
  const pipeline = new ViewerPipeline(options);
  // the same stream with matching deferred (split runs): the log is complete before the first
  // packet here and has passed the last, so the deferral must change nothing, only when each
  // frame is matched
  const deferred = new ViewerPipeline({ ...options, onDelaySample: () => {}, logWaitNs: 3_000_000_000 });

  // packet transit takes only the packets the RTP statistics accept (a duplicate or a too-late
  // packet feeds no other figure): the statistics' own rule decides which
  const accepts = new RtpStats({ clockRate: 90000, stallNs: 0, keyframeStart: () => false });
  let stamped = 0;
  wire.forEach((p, i) => {
    const at = arrivals[i]!;
    let capture = -1;
    if (c.capture === "good") capture = at + wallMinusMono - 1_000_000;
    else if (typeof c.capture === "number") capture = c.capture;
    const accepted = accepts.push(p.seq, p.ts, p.marker, p.payload, at);
    if (accepted && c.negotiated && capture !== -1) stamped++;
    pipeline.onPacket(p.seq, p.ts, p.marker, p.payload, at, capture);
    deferred.onPacket(p.seq, p.ts, p.marker, p.payload, at, capture);
  });

  const r = pipeline.finish();
  assert.deepEqual(deferred.finish(), r, "deferred matching changed an outcome");
  const d = r.oneWayDelay;
  assert.equal(r.codec, trackCodec);
  // every packet read is received, a duplicate or too late (the shard's counters count them all)
  assert.equal(r.rtp.received + r.rtp.duplicates + r.rtp.tooLate, wire.length);
  if (wire.length > 0) assert.equal(pipeline.firstRtpNs, arrivals[0]! - c.postNs);
  else assert.equal(pipeline.firstRtpNs, -1);
  assert.equal(pipeline.joined, pipeline.firstKeyframeNs >= 0);

  // every complete frame has exactly one outcome
  assert.equal(
    d.completeFrames,
    d.samples + d.invalid + d.unmatchedFrames + d.excludedFrames + d.duplicateFrames,
  );
  assert.equal(d.samples, d.keyframeSamples + d.deltaFrameSamples);
  assert.ok(d.incompleteFrames >= 0);
  assert.deepEqual([hook.n, hook.key, hook.negative], [d.samples, d.keyframeSamples, 0]);
  if (r.oneWayDelayBlocker.kind !== "none")
    assert.equal(d.completeFrames, 0, "no fingerprint outcome when blocked");
  else assert.ok(d.lateCompletedFrames <= d.completeFrames);
  assert.deepEqual(
    r.oneWayDelayBlocker,
    !c.withLog
      ? { kind: "no_send_log" }
      : trackCodec === "opus"
        ? { kind: "codec", codec: "opus" }
        : { kind: "none" },
  );

  // the histograms hold what the counters say, and decode
  const all = DelayHistogram.decode(r.delayHist);
  assert.equal(all.count, d.samples);
  assert.equal(DelayHistogram.decode(r.delayKeyHist).count, d.keyframeSamples);
  assert.equal(DelayHistogram.decode(r.delayDeltaHist).count, d.deltaFrameSamples);
  if (d.samples > 0) assert.ok(r.delayHist.minNs >= 0, "a sample is never before its send");
  for (const h of [r.delayHist, r.delayKeyHist, r.delayDeltaHist, r.transitHist]) {
    for (const v of [h.n, h.sumNs, h.minNs, h.maxNs]) assert.ok(Number.isFinite(v));
  }

  // RTP and transit counters add up to the packets read
  assert.equal(r.rtp.received + r.rtp.duplicates + r.rtp.tooLate, wire.length);
  assert.ok(r.rtp.received <= r.rtp.expected && r.rtp.lost === r.rtp.expected - r.rtp.received);
  assert.deepEqual(r.packetTransit, {
    negotiated: c.negotiated,
    stamped,
    invalid: r.packetTransit.invalid,
  });
  assert.ok(r.packetTransit.invalid <= stamped);
  assert.equal(DelayHistogram.decode(r.transitHist).count, stamped - r.packetTransit.invalid);

  checkStampSource(r as unknown as Record<string, unknown>);

  totals.samples += d.samples;
  totals.invalid += d.invalid;
  totals.unmatched += d.unmatchedFrames;
  totals.excluded += d.excludedFrames;
  totals.duplicates += d.duplicateFrames;
  totals.incomplete += d.incompleteFrames;
  totals.late += d.lateCompletedFrames;
}

/**
 * The `stamp` delay source, when the pipeline has one (fields looked up by name, as the source
 * is newer than these tests): each of its complete frames has one outcome and its histograms
 * hold its samples.
 */
function checkStampSource(r: Record<string, unknown>): void {
  const c = r["stampDelay"] as Record<string, number> | undefined;
  if (c === undefined) return;
  const n = (k: string): number => c[k] ?? 0;
  assert.equal(n("completeFrames"), n("samples") + n("invalid") + n("unmatchedFrames") + n("excludedFrames"));
  assert.equal(n("samples"), n("keyframeSamples") + n("deltaFrameSamples"));
  const hist = r["stampHist"] as Parameters<typeof DelayHistogram.decode>[0] | undefined;
  if (hist !== undefined) {
    assert.equal(DelayHistogram.decode(hist).count, n("samples"));
    if (n("samples") > 0) assert.ok(hist.minNs >= 0);
  }
}

test("viewer pipeline: any stream — every complete frame has one outcome, counters add up", (t) => {
  check(t, 300, [caseArb], runCase);
  t.diagnostic(`outcomes over all cases: ${JSON.stringify(totals)}`);
  if (runsFor(300) >= 300) {
    // the generator reaches every outcome (else the property above would be vacuous)
    for (const [k, v] of Object.entries(totals)) assert.ok(v > 0, `no case produced ${k}`);
  }
});
