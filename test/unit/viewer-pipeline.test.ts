import assert from "node:assert/strict";
import { before, test } from "node:test";
import { loadClip } from "../../src/core/clip/clip.ts";
import { KeyframeRequests } from "../../src/core/clip/keyframe-requests.ts";
import { packetizeH264 } from "../../src/core/codec/h264.ts";
import { packetizeVp8 } from "../../src/core/codec/vp8.ts";
import { ClipTable, createHasher, type Hasher } from "../../src/core/delay/fingerprint.ts";
import { SendLog } from "../../src/core/delay/sendlog.ts";
import { ViewerPipeline, type ViewerPipelineOptions } from "../../src/core/delay/viewer-pipeline.ts";
import { absCaptureToUnixNs, unixNsToAbsCapture } from "../../src/core/rtp/abs-capture-time.ts";
import { DelayHistogram } from "../../src/core/stats/summaries.ts";
import type { Codec } from "../../src/core/types.ts";

const MS = 1e6;
const POST_NS = 1e15; // monotonic instant of the POST
const WALL_MINUS_MONO = 1.76e18 - POST_NS; // Unix ns ≈ late 2025 at the POST
const SEND_START = POST_NS + 50 * MS;
const TRANSIT_NS = 2 * MS;
const PACKET_SPACING_NS = 10_000; // the publisher writes a frame's packets 10 µs apart

let hasher: Hasher;
const tables = new Map<Codec, ClipTable>();
before(async () => {
  hasher = await createHasher();
  for (const codec of ["vp8", "h264"] as const) tables.set(codec, new ClipTable(hasher, loadClip(codec)));
});

interface Stream {
  pipeline: ViewerPipeline;
  delaysNs: number[]; // expected delay of every frame that completes (k ≥ 0: the first one too)
  packets: number;
  stapA: number;
  firstArrival: number;
  firstKeyArrival: number;
  hook: { n: number; key: number };
}

/**
 * Publishes two clip loops plus one frame (k = 0..2N) offline: send log filled as the
 * publisher would, MTU 1200, sequence and timestamp starting just before their wrap, every
 * packet arriving TRANSIT_NS after it was written, stamped with abs-capture-time.
 */
function stream(
  codec: Codec,
  opts: {
    excludeFirstNs?: number;
    markers?: boolean;
    trackCodec?: string;
    sendLog?: boolean;
    /** deferred matching (split runs) */
    logWaitNs?: number;
    /** the send log learns of frame k only after its packets arrived (a replicated log) */
    lateLog?: boolean;
    /** with lateLog: only after frame k + logLagFrames's packets arrived (a log that fell behind) */
    logLagFrames?: number;
    /** the clip index sent as k (default k mod N; a publisher answering keyframe requests jumps) */
    clipIndex?: (k: number) => number;
  } = {},
): Stream {
  const clip = loadClip(codec);
  const table = tables.get(codec)!;
  const n = clip.frames.length;
  const indexOf = opts.clipIndex ?? ((k: number) => k % n);
  const log = SendLog.create(n);
  const hook = { n: 0, key: 0 };
  const o: ViewerPipelineOptions = {
    codec: opts.trackCodec ?? codec,
    stallNs: 500 * MS,
    excludeFirstNs: opts.excludeFirstNs ?? 0,
    postNs: POST_NS,
    wallMinusMonoNs: WALL_MINUS_MONO,
    hasher,
    table,
    sendLog: opts.sendLog === false ? null : log,
    absCaptureNegotiated: true,
    ...(opts.logWaitNs !== undefined ? { logWaitNs: opts.logWaitNs } : {}),
    onDelaySample: (_d, key) => {
      hook.n++;
      if (key) hook.key++;
    },
  };
  const pipeline = new ViewerPipeline(o);
  const stamp = new Uint8Array(8);
  const delaysNs: number[] = [];
  let seq = 65000;
  let packets = 0;
  let stapA = 0;
  let firstKeyArrival = -1;
  for (let k = 0; k <= 2 * n; k++) {
    const t0 = SEND_START + Math.round((k * 1e9) / clip.fps);
    if (opts.lateLog !== true) log.record(k, t0, indexOf(k));
    const ts = (0xfffff000 + k * clip.ticks) >>> 0;
    const frame = clip.frames[indexOf(k)]!;
    const payloads = codec === "vp8" ? packetizeVp8(frame, 1200, k & 0x7fff) : packetizeH264(frame, 1200);
    payloads.forEach((p, j) => {
      const sentNs = t0 + j * PACKET_SPACING_NS;
      unixNsToAbsCapture(sentNs + WALL_MINUS_MONO, stamp);
      const last = j === payloads.length - 1;
      if (codec === "h264" && (p[0]! & 0x1f) === 24) stapA++;
      if (k === 0 && last) firstKeyArrival = sentNs + TRANSIT_NS;
      pipeline.onPacket(
        seq,
        ts,
        last && opts.markers !== false,
        p,
        sentNs + TRANSIT_NS,
        absCaptureToUnixNs(stamp),
      );
      seq = (seq + 1) & 0xffff;
      packets++;
    });
    const lag = opts.logLagFrames ?? 0;
    if (opts.lateLog === true && k >= lag)
      log.record(k - lag, SEND_START + Math.round(((k - lag) * 1e9) / clip.fps), indexOf(k - lag));
    delaysNs.push(TRANSIT_NS + (payloads.length - 1) * PACKET_SPACING_NS);
  }
  // the log's tail arrives before the viewer finishes
  const lag = opts.logLagFrames ?? 0;
  if (opts.lateLog === true)
    for (let k = 2 * n + 1 - lag; k <= 2 * n; k++)
      log.record(k, SEND_START + Math.round((k * 1e9) / clip.fps), indexOf(k));
  return { pipeline, delaysNs, packets, stapA, firstArrival: SEND_START + TRANSIT_NS, firstKeyArrival, hook };
}

for (const codec of ["vp8", "h264"] as const) {
  test(`${codec}: offline round trip of two loops + 1 frame samples every frame, the first too`, () => {
    const s = stream(codec);
    const r = s.pipeline.finish();
    const d = r.oneWayDelay;
    assert.equal(r.codec, codec);
    assert.deepEqual(r.oneWayDelayBlocker, { kind: "none" });
    assert.equal(d.frameEnd, "marker");
    // the viewer's first frame too: no packet before it, its first packet proves its head (VP8's S
    // bit; this H.264 clip's keyframe STAP-A of SPS/PPS at the viewer's first packet)
    assert.equal(d.completeFrames, 241); // 2N + 1 sent
    assert.equal(d.samples, 241);
    assert.equal(d.incompleteFrames, 0);
    assert.deepEqual(
      [d.invalid, d.unmatchedFrames, d.excludedFrames, d.duplicateFrames, d.lateCompletedFrames],
      [0, 0, 0, 0, 0],
    );
    assert.equal(d.keyframeSamples, 9); // k = 0, 30, 60, …, 240
    assert.equal(d.deltaFrameSamples, 232);
    assert.deepEqual(s.hook, { n: 241, key: 9 });

    const all = DelayHistogram.decode(r.delayHist);
    const key = DelayHistogram.decode(r.delayKeyHist);
    const delta = DelayHistogram.decode(r.delayDeltaHist);
    assert.equal(all.count, 241);
    assert.equal(key.count + delta.count, all.count);
    // the histogram of all frames (built from the keyframe and delta-frame ones) is the one
    // a histogram fed every delay holds
    const direct = new DelayHistogram();
    for (const ns of s.delaysNs) direct.recordNs(ns);
    assert.deepEqual(all.encode(), direct.encode());
    const sum = all.summaryMs();
    assert.equal(sum.min, Math.min(...s.delaysNs) / 1e6);
    assert.equal(sum.max, Math.max(...s.delaysNs) / 1e6);
    assert.ok(Math.abs(sum.mean - s.delaysNs.reduce((a, b) => a + b, 0) / s.delaysNs.length / 1e6) < 1e-9);
    assert.ok(Math.abs(sum.p50 - 2) < 0.1, `p50 ${sum.p50} ms`);
    assert.ok(key.summaryMs().min > delta.summaryMs().min, "keyframes span more packets");

    assert.equal(r.rtp.received, s.packets);
    assert.equal(r.rtp.lost, 0);
    assert.equal(r.rtp.keyframes, 9);
    assert.equal(r.rtp.keyframeIntervalMeanS, 1);
    assert.equal(s.pipeline.firstRtpNs, s.firstArrival - POST_NS);
    assert.equal(s.pipeline.firstKeyframeNs, s.firstKeyArrival - POST_NS);
    assert.equal(s.pipeline.joined, true);

    assert.deepEqual(r.packetTransit, { negotiated: true, stamped: s.packets, invalid: 0 });
    const transit = DelayHistogram.decode(r.transitHist).summaryMs();
    assert.equal(transit.n, s.packets);
    assert.ok(
      Math.abs(transit.min - 2) < 0.001 && Math.abs(transit.max - 2) < 0.001,
      JSON.stringify(transit),
    );
    if (codec === "h264") assert.equal(s.stapA, 9); // one per keyframe
  });
}

test("deferred matching (split runs): a send log that learns of each frame late still matches every frame", () => {
  for (const codec of ["vp8", "h264"] as const) {
    const base = stream(codec).pipeline.finish();
    const deferred = stream(codec, { lateLog: true, logWaitNs: 300 * MS }).pipeline.finish();
    // the same outcome, frame for frame: counters and histograms alike
    assert.deepEqual(deferred.oneWayDelay, base.oneWayDelay, codec);
    assert.deepEqual(deferred.delayHist, base.delayHist, codec);
    assert.deepEqual(deferred.delayKeyHist, base.delayKeyHist, codec);
    assert.equal(deferred.oneWayDelay.samples, 241);
    // without the deferral the same late log matches the previous loop's send or nothing
    const undeferred = stream(codec, { lateLog: true }).pipeline.finish();
    assert.notDeepEqual(undeferred.delayHist, base.delayHist, codec);
  }
});

test("deferred matching: a frame waits for the log to pass its arrival, up to 3 s, and never matches an older loop", () => {
  const base = stream("vp8").pipeline.finish();
  // 15 frames (500 ms) behind: within the wait, every frame matches as in process
  const behind = stream("vp8", { lateLog: true, logLagFrames: 15, logWaitNs: 3000 * MS }).pipeline.finish();
  assert.deepEqual(behind.oneWayDelay, base.oneWayDelay);
  assert.deepEqual(behind.delayHist, base.delayHist);
  // 100 frames (3.3 s) behind: a frame the log has not passed after 3 s is invalid without an
  // anchor to tell its loop, and no frame is matched to a send a loop (4 s) before its own; the
  // frames still waiting when the viewer finishes (after the log's tail came) match
  const far = stream("vp8", { lateLog: true, logLagFrames: 100, logWaitNs: 3000 * MS }).pipeline.finish();
  const d = far.oneWayDelay;
  assert.ok(d.invalid > 100 && d.samples > 50, JSON.stringify(d));
  assert.equal(d.samples + d.invalid, d.completeFrames);
  const maxMs = DelayHistogram.decode(far.delayHist).summaryMs().max;
  assert.ok(maxMs <= DelayHistogram.decode(base.delayHist).summaryMs().max, `max ${maxMs} ms`);
});

test("the exclusion window applies after classification, from the first packet", () => {
  const s = stream("vp8", { excludeFirstNs: 1e9 });
  const d = s.pipeline.finish().oneWayDelay;
  // frames k = 0..29 started less than 1 s after frame 0's first packet; k = 30 exactly 1 s
  assert.equal(d.completeFrames, 241);
  assert.equal(d.excludedFrames, 30);
  assert.equal(d.samples, 211);
  assert.equal(d.keyframeSamples, 8);
  assert.equal(d.deltaFrameSamples, 203);
  assert.equal(d.invalid + d.unmatchedFrames, 0); // the anchor advanced as without a window
  assert.equal(s.hook.n, 211);
});

test("a window longer than the stream excludes every complete frame", () => {
  const d = stream("h264", { excludeFirstNs: 30e9 }).pipeline.finish().oneWayDelay;
  assert.equal(d.excludedFrames, d.completeFrames);
  assert.equal(d.samples, 0);
});

test("a markerless stream ends frames by timestamp", () => {
  const s = stream("vp8", { markers: false });
  const r = s.pipeline.finish();
  assert.equal(r.oneWayDelay.frameEnd, "timestamp");
  // the last frame waits for a next packet; the first completes by its S bit
  assert.equal(r.oneWayDelay.completeFrames, 240);
  assert.equal(r.oneWayDelay.samples, 240);
  assert.equal(r.oneWayDelay.incompleteFrames, 0);
  // no marker: the in-order rule never sees a complete keyframe, but the reassembler ends the
  // keyframe by the next timestamp: the viewer joined. The render model, as libwebrtc's packet
  // buffer, ends no frame without a marker: it shows nothing (definitions.md#decodable-frames)
  assert.equal(s.pipeline.joined, true);
  assert.ok(s.pipeline.firstKeyframeNs > 0);
  assert.equal(r.render.framesShown, 0);
});

test("a codec without a fingerprint gets the codec blocker and no reassembly", () => {
  const s = stream("vp8", { trackCodec: "opus" });
  const r = s.pipeline.finish();
  assert.equal(r.codec, "opus");
  assert.deepEqual(r.oneWayDelayBlocker, { kind: "codec", codec: "opus" });
  assert.equal(r.oneWayDelay.completeFrames, 0);
  assert.equal(r.oneWayDelay.frameEnd, "");
  assert.equal(r.rtp.received, s.packets);
  assert.equal(r.rtp.keyframes, 0); // no keyframe-start test for opus
  assert.equal(r.delayHist.n, 0);
});

test("without a send log: the no_send_log blocker, RTP and transit still measured", () => {
  const s = stream("h264", { sendLog: false });
  const r = s.pipeline.finish();
  assert.deepEqual(r.oneWayDelayBlocker, { kind: "no_send_log" });
  assert.equal(r.oneWayDelay.completeFrames, 0);
  assert.equal(r.rtp.received, s.packets);
  assert.equal(r.packetTransit.stamped, s.packets);
  assert.equal(s.pipeline.joined, true);
});

function bare(negotiated: boolean): ViewerPipeline {
  return new ViewerPipeline({
    codec: "vp8",
    stallNs: 500 * MS,
    excludeFirstNs: 0,
    postNs: POST_NS,
    wallMinusMonoNs: WALL_MINUS_MONO,
    hasher: null,
    table: null,
    sendLog: null,
    absCaptureNegotiated: negotiated,
  });
}

test("packet transit: stamped, invalid when negative or over 60 s, nothing when not negotiated", () => {
  const p = bare(true);
  const arrival = POST_NS + 10 * MS;
  const wall = arrival + WALL_MINUS_MONO;
  p.onPacket(1, 0, false, new Uint8Array(10), arrival, wall - 5 * MS); // 5 ms
  p.onPacket(2, 0, false, new Uint8Array(20), arrival, wall + 1 * MS); // negative
  p.onPacket(3, 0, false, new Uint8Array(30), arrival, wall - 61e9); // implausible
  p.onPacket(4, 0, false, new Uint8Array(40), arrival, -1); // no stamp
  const r = p.finish();
  assert.deepEqual(r.packetTransit, { negotiated: true, stamped: 3, invalid: 2 });
  assert.equal(r.transitHist.n, 1);
  assert.ok(Math.abs(r.transitHist.minNs - 5 * MS) < 1000);
  assert.equal(r.rtp.received, 4);

  const q = bare(false);
  q.onPacket(1, 0, false, new Uint8Array(1), arrival, wall - 5 * MS);
  assert.deepEqual(q.finish().packetTransit, { negotiated: false, stamped: 0, invalid: 0 });
});

test("abs-capture-time: NTP UQ32.32 ↔ Unix ns", () => {
  // 2208988800 s after 1900 is the Unix epoch; a fraction of 2^31 is half a second
  assert.equal(absCaptureToUnixNs(Uint8Array.of(0x83, 0xaa, 0x7e, 0x80, 0x80, 0, 0, 0)), 5e8);
  assert.equal(absCaptureToUnixNs(Uint8Array.of(0x83, 0xaa, 0x7e, 0x80, 0, 0, 0)), -1);
  const withOffset = new Uint8Array(16);
  unixNsToAbsCapture(1234567890123, withOffset);
  assert.equal(absCaptureToUnixNs(withOffset), 1234567890123);
  const out = new Uint8Array(8);
  for (const ns of [0, 1, 999_999_999, 1.7e18 + 123_456_768, 1.76e18]) {
    unixNsToAbsCapture(ns, out);
    assert.ok(Math.abs(absCaptureToUnixNs(out) - ns) <= 256, `round trip of ${ns}`);
  }
});

/** The clip indices a publisher answering keyframe requests sends: requests at the given k. */
function jumpingIndices(codec: Codec, requestsAt: readonly number[]): (k: number) => number {
  const clip = loadClip(codec);
  const kf = new KeyframeRequests(clip.keyframes, true);
  const seq: number[] = [];
  for (let k = 0, i = 0; k <= 2 * clip.frames.length; k++) {
    seq.push(i);
    kf.sent(i);
    if (requestsAt.includes(k)) kf.request("pli");
    i = kf.next(i, SEND_START + (k * 1e9) / clip.fps);
  }
  assert.ok(kf.keyframesOnRequest >= 3, `${kf.keyframesOnRequest} keyframes on request`);
  return (k) => seq[k]!;
}

for (const codec of ["vp8", "h264"] as const) {
  test(`${codec}: a clip cut short by keyframes on request samples every frame, in process and from a log that falls behind`, () => {
    const clipIndex = jumpingIndices(codec, [5, 40, 41, 100, 170]);
    for (const split of [false, true]) {
      const s = stream(
        codec,
        split ? { clipIndex, lateLog: true, logLagFrames: 20, logWaitNs: 3000 * MS } : { clipIndex },
      );
      const r = s.pipeline.finish();
      const d = r.oneWayDelay;
      assert.equal(d.invalid + d.unmatchedFrames, 0, `split ${split}`);
      assert.deepEqual([d.samples, d.completeFrames], [241, 241], `split ${split}`);
      assert.ok(
        d.keyframeSamples > 9,
        `${d.keyframeSamples} keyframe samples: more than the clip's own 8 (+1)`,
      );
      const want = new DelayHistogram();
      for (const ns of s.delaysNs) want.recordNs(ns);
      assert.deepEqual(r.delayHist, want.encode(), `split ${split}: every frame's delay is its own send's`);
    }
  });
}
