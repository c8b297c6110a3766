// The audio track through the built-in relay (docs/definitions.md#audio-track): an audio+video run
// reports both tracks with the A/V offset, and werift's, the lean and the arena receive paths give
// the same audio figures on one stream (the relay's burst: the same packets on every leg);
// `publish --clip` publishes a user's Ogg/Opus file.
import assert from "node:assert/strict";
import { test } from "node:test";
import { receivePathEngine } from "../../bench/receive-path-engine.ts";
import { embeddedAudioClipPath } from "../../src/core/clip/clip.ts";
import type { ViewerReport } from "../../src/core/report/types.ts";
import { Relay } from "../../src/main/relay/relay.ts";
import { inThreadEngine } from "../../src/main/run/engine.ts";
import { audioFigures } from "./audio-figures.ts";
import { cli } from "./cli-harness.ts";
import { runThroughRelay } from "./harness.ts";
import { checkReportKeys } from "./report-keys.ts";

/** Loopback bound of the A/V offset: the two tracks cross the same sockets, so within 20 ms. */
const OFFSET_BOUND_MS = 20;

test("an audio+video run reports both tracks, zero audio loss and the A/V offset near 0", async () => {
  const {
    report: r,
    markdown,
    json,
  } = await runThroughRelay({}, { audio: true, viewers: 3, holdSeconds: 4 });
  assert.deepEqual(checkReportKeys(JSON.parse(json) as unknown).problems, []);
  assert.equal(r.scenario.audio, true);
  const sent = r.publisher?.audio;
  assert.ok(sent !== undefined && sent.packetsSent > 150, `audio packets sent ${sent?.packetsSent}`);
  const a = r.aggregate.audio;
  assert.ok(a?.available, a?.reason);
  assert.equal(a.viewers, 3);
  assert.equal(a.packetsLost, 0);
  assert.equal(a.lossPercentTotal, 0);
  assert.ok(a.oneWayDelay?.available, a.oneWayDelay?.reason);
  assert.equal(a.oneWayDelay.invalid + a.oneWayDelay.unmatchedPackets + a.oneWayDelay.duplicatePackets, 0);
  assert.ok(a.avOffset?.available && a.avOffset.ms !== undefined, a.avOffset?.reason);
  assert.ok(Math.abs(a.avOffset.ms.p50) < OFFSET_BOUND_MS, `A/V offset p50 ${a.avOffset.ms.p50} ms`);
  for (const v of r.viewers ?? []) {
    const b = v.audio;
    assert.ok(b?.available, `viewer ${v.id}: ${b?.reason}`);
    // 50 packets a second over the time it received audio, all of them matched
    assert.ok(b.packetsReceived >= 100, `viewer ${v.id} received ${b.packetsReceived} audio packets`);
    assert.equal(b.packetsLost, 0);
    assert.equal(b.packetsExpected, b.packetsReceived);
    const d = b.oneWayDelay;
    assert.equal(d.samples + d.excludedPackets, b.packetsReceived, `viewer ${v.id}: every packet matched`);
    assert.ok(d.ms !== undefined && d.ms.p50 > 0 && d.ms.p50 < 50, `audio delay p50 ${d.ms?.p50} ms`);
    assert.ok(b.firstAudioMs !== undefined && b.firstAudioMs > 0 && b.firstAudioMs < 5000);
    assert.ok(b.jitterMs !== null && b.jitterMs >= 0 && b.jitterMs < 30, `jitter ${b.jitterMs} ms`);
    assert.ok(b.avOffset.available && b.avOffset.seconds >= 2, `viewer ${v.id}: ${b.avOffset.seconds} s`);
    // the video track is reported as without audio
    assert.ok(v.oneWayDelay[0]?.available, v.oneWayDelay[0]?.reason);
    assert.equal(v.rtp.lost, 0);
  }
  assert.match(markdown, /^## Audio$/m);
  assert.match(markdown, /\| A\/V offset, per viewer-second \| \d+ \|/);
});

function figures(v: ViewerReport) {
  return { ...audioFigures(v), videoReceived: v.rtp.received, videoDuplicates: v.rtp.duplicates };
}

test("werift, lean and arena paths give the same audio figures on one stream", async () => {
  const PACKETS = 120;
  const PATHS = ["werift", "lean", "arena"] as const;
  const { report: r } = await runThroughRelay(
    { test: { burst: { legs: 3, packets: PACKETS } } },
    { viewers: 3, rampSeconds: 0, holdSeconds: 5, excludeFirstSeconds: 0, audio: true },
    receivePathEngine(inThreadEngine(), PATHS),
  );
  const viewers = r.viewers ?? [];
  assert.equal(viewers.length, 3);
  assert.deepEqual(
    (r.client.workers ?? []).map((w) => w.receivePath),
    PATHS,
  );
  const ref = figures(viewers[0]!);
  for (const v of viewers) assert.deepEqual(figures(v), ref, `viewer ${v.id} (${PATHS[v.id % 3]})`);
  assert.equal(ref.received, PACKETS, "the burst's audio packets reached every leg");
  assert.equal(ref.lost, 0);
  assert.equal(ref.samples, PACKETS, "every packet matched to its send");
  const p50s = viewers.map((v) => v.audio?.oneWayDelay.ms?.p50 ?? Number.NaN);
  for (const p of p50s)
    assert.ok(Number.isFinite(p) && Math.abs(p - p50s[0]!) < 5, `audio delay p50s ${p50s}`);
});

test("publish --clip takes an Ogg/Opus file as the audio track beside the embedded video", async () => {
  const relay = new Relay({ ice: { loopbackOnly: true, includeLoopback: false } });
  const base = await relay.listen();
  try {
    const r = await cli(
      [
        "publish",
        "--whip",
        `${base}/s/whip`,
        "--clip",
        embeddedAudioClipPath(),
        "--duration",
        "2s",
        "--loopback-only",
      ],
      { timeoutMs: 30_000 },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /with an Opus audio track \(201 packets of 20 ms\)/);
    const sent = Number(/; audio (\d+) packets/.exec(r.stdout)?.[1] ?? "0");
    // 2 s at 50 packets a second, give or take the first and last
    assert.ok(sent >= 90 && sent <= 102, `audio packets sent ${sent}: ${r.stdout}`);
  } finally {
    await relay.close();
  }
});
