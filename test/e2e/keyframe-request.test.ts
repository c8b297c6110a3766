// Keyframes on request through the built-in relay: each viewer's PLI reaches the publisher, which
// cuts the clip's GOP short; with `keyframeOnRequest: false` the requests are counted and ignored.
// Both runs print their join time side by side; the fingerprint source still matches every frame
// of a clip that jumps, also under loss.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Report } from "../../src/core/report/types.ts";
import { fingerprintBlock, runThroughRelay } from "./harness.ts";

const SCENARIO = { viewers: 4, rampSeconds: 2, holdSeconds: 2 };

/** Each joined viewer's wait from its first RTP packet to its first complete keyframe, ms. */
function keyframeWaitsMs(r: Report): number[] {
  return (r.viewers ?? []).filter((v) => v.joined).map((v) => (v.firstKeyframeMs ?? 0) - (v.firstRtpMs ?? 0));
}

function joinLine(name: string, r: Report): string {
  const j = r.aggregate.joinFirstKeyframeMs;
  const p = r.publisher;
  return `${name}: join p50 ${j.p50.toFixed(0)} ms, p95 ${j.p95.toFixed(0)} ms; PLI ${p?.pliReceived}, FIR ${p?.firReceived}, keyframes on request ${p?.keyframesOnRequest}, requests per joining viewer ${p?.keyframeRequestsPerJoin?.toFixed(2)}`;
}

test("keyframes on request: every viewer's PLI is answered within the minimum interval; off, the GOP stays 1 s", async () => {
  const on = (await runThroughRelay({}, SCENARIO)).report;
  const off = (await runThroughRelay({}, { ...SCENARIO, keyframeOnRequest: false })).report;
  console.log(joinLine("keyframeOnRequest true ", on));
  console.log(joinLine("keyframeOnRequest false", off));
  for (const r of [on, off]) {
    assert.equal(r.aggregate.verdict, "valid: 4 of 4 viewers joined");
    const p = r.publisher!;
    assert.ok(p.pliReceived >= 4, `${p.pliReceived} PLIs: at least one per viewer reached the publisher`);
    assert.equal(p.firReceived, 0);
    assert.equal(p.keyframeRequestsPerJoin, p.pliReceived / 4);
    const fp = fingerprintBlock(r);
    assert.ok(fp.samples > 0 && fp.invalid === 0, `samples ${fp.samples}, invalid ${fp.invalid}`);
  }
  assert.equal(on.scenario.keyframeOnRequest, true);
  assert.equal(off.scenario.keyframeOnRequest, false);
  assert.ok(on.publisher!.keyframesOnRequest >= 1);
  assert.equal(off.publisher!.keyframesOnRequest, 0);
  // on: a keyframe follows a PLI within the 300 ms interval plus a frame and the round trip
  for (const w of keyframeWaitsMs(on)) assert.ok(w < 450, `a viewer waited ${w} ms for its keyframe`);
  assert.ok(
    (on.viewers ?? []).some((v) => v.rtp.keyframeIntervalMinS < 1),
    "a GOP was cut short",
  );
  for (const v of off.viewers ?? []) assert.equal(v.rtp.keyframeIntervalMinS, 1, "off: the clip's own GOP");
});

test("keyframes on request under loss: the matcher follows the jumping clip, NACKs repair, no invalid match", async () => {
  const r = (await runThroughRelay({ loseEvery: 40 }, SCENARIO)).report;
  assert.equal(r.aggregate.verdict, "valid: 4 of 4 viewers joined");
  assert.ok(r.publisher!.keyframesOnRequest >= 1);
  const fp = fingerprintBlock(r);
  assert.ok(fp.samples > 100, `${fp.samples} samples`);
  assert.equal(fp.invalid, 0);
  assert.ok(fp.ms !== undefined && fp.ms.p99 < 500, `p99 ${fp.ms?.p99} ms: no frame matched to another send`);
});
