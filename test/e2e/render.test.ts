// What the viewers would have seen (docs/definitions.md#viewer-experience) through the built-in
// relay, VP8 and H.264: packets dropped for good (`dropEvery`, never repaired) freeze the picture until the next
// keyframe while no stall is counted, a clean run has no freeze; and with a long-GOP clip (one
// keyframe in 10 s, built from the embedded clip at test time) browser-rule viewers ask for
// keyframes mid-stream while join-rule viewers do not (docs/definitions.md#keyframe-requests).
import assert from "node:assert/strict";
import { test } from "node:test";
import { loadClip } from "../../src/core/clip/clip.ts";
import type { Clip } from "../../src/core/clip/model.ts";
import { takeWallAnchor } from "../../src/core/clock/clock.ts";
import { buildReport } from "../../src/core/report/build.ts";
import type { Report, ViewerReport } from "../../src/core/report/types.ts";
import type { KeyframeRequestMode } from "../../src/core/scenario/defaults.ts";
import { normaliseScenario, validateScenario } from "../../src/core/scenario-file/scenario.ts";
import { memoryLogger } from "../../src/main/observe/log.ts";
import { Publisher } from "../../src/main/publisher/publisher.ts";
import { Relay } from "../../src/main/relay/relay.ts";
import { inThreadEngine } from "../../src/main/run/engine.ts";
import { run } from "../../src/main/run/runner.ts";
import type { IceOptions } from "../../src/net/rtc.ts";
import { BEARER_SECRET, runThroughRelay, shortScenario } from "./harness.ts";

const ICE: IceOptions = { loopbackOnly: true, includeLoopback: false };

function joinedViewers(r: Report): ViewerReport[] {
  const vs = (r.viewers ?? []).filter((v) => v.joined);
  assert.ok(vs.length > 0, "a viewer joined");
  return vs;
}

function line(name: string, v: ViewerReport): string {
  const x = v.render;
  return `${name} viewer ${v.id}: shown ${x.framesShown}, not decodable ${x.framesNotDecodable}, late ${x.framesLate}, freezes ${x.freezes} (${x.frozenMs} ms, longest ${x.longestFreezeMs}), pauses ${x.pauses}, end gap ${x.endGapMs} ms, PLIs ${x.plisSent} (${x.plisAnswered} answered), stalls ${v.rtp.stalls}, lost ${v.rtp.lost}`;
}

for (const codec of ["vp8", "h264"] as const) {
  test(`${codec}: unrepaired drops freeze the picture; a clean run has no freeze`, async () => {
    const scenario = { codec, viewers: 2, holdSeconds: 5 };
    const clean = (await runThroughRelay({}, scenario)).report;
    const lossy = (await runThroughRelay({ dropEvery: 100 }, scenario)).report;
    for (const v of joinedViewers(clean)) {
      console.log(line("clean", v));
      // VP8 with a PictureID: the frame-id finder; H.264: the seq-num finder
      assert.equal(v.render.finder, codec === "vp8" ? "frame-id" : "seq-num");
      assert.ok(v.render.framesShown > 100, `${v.render.framesShown} frames shown`);
      assert.equal(v.render.freezes, 0);
      assert.equal(v.render.frozenMs, 0);
      // only the delta frames before its first keyframe (it joined mid-GOP) are not decodable
      assert.ok(v.render.framesNotDecodable < 30, `${v.render.framesNotDecodable} not decodable`);
      assert.equal(v.render.recoveries, 0);
    }
    for (const v of joinedViewers(lossy)) {
      console.log(line("dropEvery 100", v));
      assert.ok(v.rtp.lost > 0, "packets were lost for good");
      assert.ok(v.render.freezes > 0, `viewer ${v.id}: ${v.render.freezes} freezes`);
      assert.ok(v.render.frozenMs >= 150 * v.render.freezes);
      assert.ok(v.render.framesNotDecodable > 0);
      assert.equal(v.rtp.stalls, 0, "packets kept flowing: the stall rule is silent");
      assert.equal(v.render.recoveries >= v.render.freezes, true);
    }
  });
}

/** The embedded VP8 clip's frames with one keyframe in 300 (10 s at 30 fps). */
function longGopClip(): Clip {
  const c = loadClip("vp8");
  const deltas = c.frames.filter((_, i) => !c.keyframes[i]);
  const frames = [c.frames[0]!];
  for (let i = 0; frames.length < 300; i++) frames.push(deltas[i % deltas.length]!);
  return { ...c, frames, keyframes: frames.map((_, i) => i === 0), keyframeInterval: 0 };
}

test("a long GOP under unrepaired loss: browser viewers ask for keyframes mid-stream, join viewers do not", async () => {
  const relay = new Relay({ ice: ICE, token: BEARER_SECRET, dropEvery: 100 });
  const base = await relay.listen();
  const publisher = new Publisher({
    whip: `${base}/g/whip`,
    bearer: BEARER_SECRET,
    clip: longGopClip(),
    ice: ICE,
    noStamp: false,
    sendLog: null,
    anchor: takeWallAnchor(),
  });
  const stop = new AbortController();
  try {
    await publisher.connect();
    const streaming = publisher.stream(stop.signal);
    await relay.ready("g");
    const view = async (mode: KeyframeRequestMode): Promise<Report> => {
      const s = normaliseScenario({
        // one viewer: a keyframe one viewer's PLI brings reaches every viewer of the stream
        ...shortScenario(base, { viewers: 1, holdSeconds: 10, keyframeRequests: mode }),
        whip: "",
        whep: `${base}/g/whep`,
      });
      validateScenario(s);
      const input = await run({
        command: "view",
        scenario: s,
        bearer: BEARER_SECRET,
        engine: inThreadEngine(),
        log: memoryLogger(),
        interrupt: new AbortController().signal,
      });
      return buildReport(input);
    };
    const browser = await view("browser");
    const join = await view("join");
    stop.abort();
    await streaming;
    assert.equal(browser.scenario.keyframeRequests, "browser");
    assert.equal(join.scenario.keyframeRequests, "join");
    // the join rule's PLIs: with the first packet and every 500 ms until the first keyframe
    const atJoin = (v: ViewerReport) =>
      Math.floor(((v.firstKeyframeMs ?? 0) - (v.firstRtpMs ?? 0)) / 500) + 1;
    for (const v of joinedViewers(browser)) {
      console.log(line("long GOP, browser", v));
      assert.ok(v.rtp.lost > 0, "packets were lost for good");
      // PLIs 3 s after the last shown frame, answered by the publisher's keyframe on request
      assert.ok(v.render.plisSent >= 2, `${v.render.plisSent} PLIs`);
      assert.ok(v.render.plisSent > atJoin(v), `${v.render.plisSent} PLIs: more than a join asks`);
      assert.ok(v.render.plisAnswered >= 1, `${v.render.plisAnswered} answered`);
    }
    for (const v of joinedViewers(join)) {
      console.log(line("long GOP, join", v));
      assert.ok(v.rtp.lost > 0, "packets were lost for good");
      assert.ok(v.render.plisSent <= atJoin(v), `${v.render.plisSent} PLIs`);
      // it waits for the clip's own keyframe, 10 s on: the picture stays frozen
      assert.ok(v.render.freezes > 0 || (v.render.endGapMs ?? 0) > 3000, "the picture froze");
    }
  } finally {
    stop.abort();
    await publisher.close();
    await relay.close();
  }
});
