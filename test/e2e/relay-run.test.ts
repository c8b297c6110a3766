// End-to-end runs through the built-in relay: the reference tool's end-to-end checklist.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Report } from "../../src/core/report/types.ts";
import { rampOffsetsNs } from "../../src/core/stats/splitmix.ts";
import type { Relay } from "../../src/main/relay/relay.ts";
import {
  assertComparableUnlessClientBound,
  BEARER_SECRET,
  fingerprintBlock,
  QUERY_SECRET,
  runThroughRelay,
} from "./harness.ts";

function assertNoSecret(text: string): void {
  for (const s of [QUERY_SECRET, BEARER_SECRET, "token=", "/whep", "/whip?", "/s/whep"]) {
    assert.ok(!text.includes(s), `found ${JSON.stringify(s)}`);
  }
}

/** The relay sent every leg's video on its native fan-out where it can run here (native.ts). */
function assertNativeLegs(relay: Relay, legs: number): void {
  if (relay.send.path.path !== "native") return;
  assert.equal(relay.send.nativeLegs, legs, `legs kept on werift: ${relay.send.lastFallback}`);
  assert.equal(relay.send.weriftLegs, 0);
  const written = relay.send.threads === null ? relay.send.fanout?.written : relay.send.threadsWrote?.written;
  assert.ok((written ?? 0) > 0);
}

test("VP8 round trip, 4 viewers: valid, every definition holds, no secret anywhere", async () => {
  const { report: r, json, markdown, logLines, relay } = await runThroughRelay();
  assertNativeLegs(relay, 4);
  const a = r.aggregate;
  assert.equal(a.verdict, "valid: 4 of 4 viewers joined");
  assert.equal(a.valid, true);
  assert.ok(r.publisher?.stamped && r.publisher.framesSent >= 60);
  assert.equal(a.packetTransit.available, true);
  assert.equal(a.packetTransit.viewers, 4);
  assert.ok(a.packetTransit.ms && a.packetTransit.ms.p50 > 0 && a.packetTransit.ms.p99 <= 1000);
  assert.ok(r.timeline && r.timeline.length > 0);
  assert.equal(r.topology, "single-process");
  assert.equal(r.clock.method, "monotonic");
  assert.equal(r.clock.uncertaintyMs, 0);
  const slots = [0, 250, 500, 750];
  for (const v of r.viewers ?? []) {
    assert.equal(v.codec, "vp8");
    assert.ok(v.rtp.received > 0);
    assert.equal(v.rtp.lost, 0);
    assert.ok((v.firstKeyframeMs ?? 0) >= (v.firstRtpMs ?? Infinity));
    // the clip's 1 s GOP, cut short where a viewer's PLI brought a keyframe forward
    assert.ok(v.rtp.keyframeIntervalMinS > 0 && v.rtp.keyframeIntervalMaxS <= 1);
    // the POST as it happened: its slot plus the viewer's ICE gathering (test/e2e/start-times.test.ts)
    const late = v.startOffsetMs - slots[v.id]!;
    assert.ok(late >= 0 && late < 100, `viewer ${v.id} started ${late} ms after its slot`);
    assert.equal(v.rampOffsetMs, undefined);
    assert.equal(v.whepFlow, "answer");
    assert.deepEqual(
      v.oneWayDelay.map((b) => b.source),
      ["fingerprint", "stamp"],
    );
    assert.equal(
      v.oneWayDelay[1]!.available,
      true,
      "the relay forwards abs-capture-time: the stamp source works",
    );
    const b = v.oneWayDelay[0]!;
    assert.equal(b.available, true);
    assert.equal(b.frameEnd, "marker");
    assert.equal(b.keyframes.samples + b.deltaFrames.samples, b.samples);
    assert.ok(b.excludedFrames > 0, "a 1 s window excludes frames");
    assert.ok(b.lateCompletedFrames <= b.completeFrames);
    assert.equal(b.completeFrames, b.samples + b.invalid + b.unmatchedFrames + b.excludedFrames);
  }
  const f = fingerprintBlock(r);
  assert.equal(f.available, true);
  assert.equal(f.viewers, 4);
  assert.deepEqual(f.viewersByFrameEnd, { marker: 4 });
  assert.ok(f.ms && f.ms.p50 > 0 && f.ms.p50 < 1000);
  assert.equal(f.invalid, 0);
  assert.equal(f.unmatchedFrames, 0);
  assert.equal(f.loopFrames, 120);
  assert.equal(f.duplicateFrames, 0);
  assert.ok((f.loopMinMs ?? 0) > 3000);
  assert.ok(f.keyframes.samples > 0 && f.deltaFrames.samples > 0);
  assert.equal(f.keyframes.samples + f.deltaFrames.samples, f.samples);
  assertComparableUnlessClientBound(r, f);
  assert.equal(f.uncertaintyMs, 0);
  assertNoSecret(json);
  assertNoSecret(markdown);
  assertNoSecret(logLines.join("\n"));
  assert.ok(!(r.server.whepHost ?? "").includes("/"));
  assert.ok(!r.scenario.whep.includes("?"));
});

test("ramp offsets reach the report (seed 11, bound 0.5 s, 3 viewers)", async () => {
  const { report: r } = await runThroughRelay(
    {},
    { viewers: 3, rampOffsetSeed: 11n, rampOffsetMaxSeconds: 0.5 },
  );
  assert.equal(r.scenario.rampOffsetSeed, 11n);
  assert.equal(r.scenario.rampOffsetMaxSeconds, 0.5);
  const offsets = rampOffsetsNs(11n, 500e6, 3);
  for (const v of r.viewers ?? []) {
    assert.equal(v.rampOffsetMs, offsets[v.id]! / 1e6);
    const late = v.startOffsetMs - (Math.floor((1e9 * v.id) / 3) + offsets[v.id]!) / 1e6;
    assert.ok(late >= 0 && late < 100, `viewer ${v.id} started ${late} ms after its offset slot`);
  }
});

test("H.264 round trip, 2 viewers, excludeFirstSeconds 0 recorded", async () => {
  const { report: r, json } = await runThroughRelay(
    {},
    { codec: "h264", viewers: 2, excludeFirstSeconds: 0 },
  );
  assert.equal(r.aggregate.valid, true);
  assert.match(json, /"excludeFirstSeconds": 0/);
  for (const v of r.viewers ?? []) {
    assert.equal(v.codec, "h264");
    assert.equal(v.rtp.lost, 0);
    assert.equal(v.packetTransit.available, true);
    assert.equal(v.oneWayDelay[0]!.excludedFrames, 0);
  }
  const f = fingerprintBlock(r);
  assert.equal(f.available, true);
  assert.equal(f.unmatchedFrames, 0);
  assert.equal(f.invalid, 0);
});

test("stripped extension: valid, packet transit unavailable with its reason", async () => {
  const { report: r, markdown } = await runThroughRelay({ stripExtensions: true }, { viewers: 2 });
  assert.equal(r.aggregate.valid, true);
  assert.equal(r.aggregate.packetTransit.available, false);
  assert.match(r.aggregate.packetTransit.reason ?? "", /no stamps arrived/);
  assert.match(markdown, /\*\*Packet transit: unavailable\*\*/);
  assert.equal(fingerprintBlock(r).available, true);
});

test("viewer limit 8 of 10: no verdict, http_503 counted, no Aggregate section", async () => {
  const { report: r, markdown } = await runThroughRelay({ maxViewers: 8 }, { viewers: 10, rampSeconds: 0.5 });
  assert.equal(r.aggregate.valid, false);
  assert.equal(r.aggregate.joined, 8);
  assert.equal(r.aggregate.failed, 2);
  assert.equal(r.errors["http_503"], 2);
  assert.ok(r.aggregate.verdict.startsWith("no verdict: 2 of 10 viewers (20%) failed to join"));
  assert.ok(!markdown.includes("## Aggregate"));
});

test("DropEvery 50: loss and incomplete frames, no unmatched, NACKs sent, none late", async () => {
  const { report: r } = await runThroughRelay({ dropEvery: 50 }, { viewers: 2 });
  for (const v of (r.viewers ?? []).filter((x) => x.joined)) {
    const loss = v.rtp.lossPercent ?? Number.NaN; // a joined viewer received packets: never null
    assert.ok(loss >= 1 && loss <= 3, `loss ${v.rtp.lossPercent}`);
    assert.ok(v.nacksSent > 0);
  }
  const f = fingerprintBlock(r);
  assert.ok(f.incompleteFrames > 0);
  assert.equal(f.available, true);
  assert.ok(f.samples > 0 && f.samples <= f.completeFrames);
  assert.equal(f.unmatchedFrames, 0);
  assert.equal(f.lateCompletedFrames, 0);
});

for (const send of ["native", "werift"] as const)
  test(`LoseEvery 50 (${send} send path): repaired by NACK, nothing lost, frames completed late`, async () => {
    const { report: r, relay } = await runThroughRelay({ loseEvery: 50, send }, { viewers: 2 });
    if (send === "native") {
      assertNativeLegs(relay, 2);
      if (relay.send.path.path === "native") assert.ok((relay.send.fanout?.resent ?? 0) > 0);
    } else assert.equal(relay.send.fanout, null);
    loseEveryRepaired(r);
  });

function loseEveryRepaired(r: Report): void {
  let nacks = 0;
  for (const v of (r.viewers ?? []).filter((x) => x.joined)) {
    assert.equal(v.rtp.lost, 0);
    assert.equal(v.rtp.tooLate, 0);
    assert.ok(v.nacksSent > 0);
    nacks += v.nacksSent;
  }
  const f = fingerprintBlock(r);
  assert.ok(f.lateCompletedFrames > 0);
  assert.equal(f.incompleteFrames, 0);
  assert.equal(r.aggregate.nacksSent, nacks);
  assert.equal(r.aggregate.packetsLost, 0);
}

test("a sample window longer than the run: pooled unavailable, every frame excluded", async () => {
  const { report: r } = await runThroughRelay({}, { viewers: 2, excludeFirstSeconds: 30 });
  const f = fingerprintBlock(r);
  assert.equal(f.available, false);
  assert.equal(f.ms, undefined);
  assert.equal(f.samples, 0);
  assert.ok(f.completeFrames > 0);
  assert.equal(f.excludedFrames, f.completeFrames);
  for (const v of r.viewers ?? []) assert.match(v.oneWayDelay[0]!.reason ?? "", /excluded/);
});

test("markerless relay: frame end falls back to timestamps and frames still match", async () => {
  const { report: r } = await runThroughRelay({ clearMarker: true }, { viewers: 2 });
  for (const v of r.viewers ?? []) {
    const b = v.oneWayDelay[0]!;
    assert.equal(b.frameEnd, "timestamp");
    assert.equal(b.available, true);
    assert.ok(b.samples > 0);
    assert.equal(b.invalid, 0);
    assert.equal(b.unmatchedFrames, 0);
  }
});

test("WHEP counter-offer (406 + PATCH): viewers join and record the flow", async () => {
  const { report: r } = await runThroughRelay({ counterOffer: true }, { viewers: 2 });
  assert.equal(r.aggregate.valid, true);
  for (const v of r.viewers ?? []) {
    assert.equal(v.whepFlow, "counter-offer");
    assert.equal(v.joined, true);
  }
  assert.equal(fingerprintBlock(r).available, true);
});

test("relay threads (--workers 2): legs' video sent from two threads, nothing lost, every viewer valid", async () => {
  const { report: r, relay } = await runThroughRelay({ threads: 2 }, { viewers: 4 });
  if (relay.send.path.path === "native") {
    assert.match(relay.send.describe(), /native in 2 relay thread\(s\)/);
    assertNativeLegs(relay, 4);
    assert.equal(relay.send.threads?.legCount, 0, "every leg ended with its viewer");
  }
  assert.equal(r.aggregate.verdict, "valid: 4 of 4 viewers joined");
  assert.equal(r.aggregate.packetsLost, 0);
  for (const v of r.viewers ?? []) {
    assert.ok(v.rtp.received > 30);
    assert.equal(v.oneWayDelay[1]!.available, true, "abs-capture-time reaches the viewers from the threads");
  }
});
