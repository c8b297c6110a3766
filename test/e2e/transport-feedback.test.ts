// The feedback a browser sends, through the built-in relay (docs/definitions.md#viewer-profile):
// with the browser profile a viewer negotiates transport-cc and rtx with the relay, the relay
// counts the transport feedback each leg sends it (about ten messages a second), and a loss
// beneath the relay's NACK responder (LoseEvery) is repaired on RTX, restored before loss is
// counted; with the minimal profile none of it is negotiated and the repair comes on the media SSRC.
import assert from "node:assert/strict";
import { test } from "node:test";
import { buildReport } from "../../src/core/report/build.ts";
import type { Report } from "../../src/core/report/types.ts";
import type { ReceivePath, ViewerProfile } from "../../src/core/scenario/defaults.ts";
import { normaliseScenario, validateScenario } from "../../src/core/scenario-file/scenario.ts";
import { memoryLogger } from "../../src/main/observe/log.ts";
import { Relay } from "../../src/main/relay/relay.ts";
import { inThreadEngine } from "../../src/main/run/engine.ts";
import { run } from "../../src/main/run/runner.ts";
import { BEARER_SECRET, shortScenario } from "./harness.ts";

/** A run through a relay that loses every 50th first transmission; the relay's per-leg counts each second. */
async function lossyRun(
  send: "native" | "werift",
  viewerProfile: ViewerProfile,
  receivePath: ReceivePath = "arena",
): Promise<{ report: Report; legs: number[][]; relay: Relay }> {
  const relay = new Relay({
    ice: { loopbackOnly: true, includeLoopback: false },
    token: BEARER_SECRET,
    loseEvery: 50,
    send,
  });
  const base = await relay.listen();
  const legs: number[][] = [];
  try {
    const s = normaliseScenario(shortScenario(base, { viewers: 2, viewerProfile, receivePath }));
    validateScenario(s);
    const input = await run({
      command: "run",
      scenario: s,
      bearer: BEARER_SECRET,
      engine: inThreadEngine(),
      log: memoryLogger(),
      interrupt: new AbortController().signal,
      onShardTick: () => legs.push(relay.legFeedback("s")),
    });
    return { report: buildReport(input), legs, relay };
  } finally {
    await relay.close();
  }
}

for (const send of ["native", "werift"] as const)
  test(`browser profile (${send} send path): transport feedback about every 50 ms, reaching the relay; a loss repaired on RTX`, async () => {
    const { report: r, legs, relay } = await lossyRun(send, "browser");
    if (send === "native" && relay.send.path.path === "native") {
      // the native fan-out (or its threads) sent both legs: transport-wide numbers and RTX written by us
      assert.equal(relay.send.nativeLegs, 2, `legs kept on werift: ${relay.send.lastFallback}`);
      assert.ok(
        (relay.send.fanout?.resent ?? relay.send.threadsWrote?.resent ?? 0) > 0 ||
          relay.send.threads !== null,
      );
    } else if (send === "werift") assert.equal(relay.send.fanout, null);
    const joined = (r.viewers ?? []).filter((v) => v.joined);
    assert.equal(joined.length, 2);
    let feedback = 0;
    let rtx = 0;
    for (const v of joined) {
      const perSecond = v.transportFeedbackSent / v.rtp.receivingSeconds;
      console.log(
        `${send} viewer ${v.id}: ${v.transportFeedbackSent} transport feedback messages in ${v.rtp.receivingSeconds.toFixed(2)} s (${perSecond.toFixed(1)}/s), ${v.rtxReceived} RTX packets, ${v.nacksSent} NACKs, lost ${v.rtp.lost}`,
      );
      assert.ok(perSecond >= 14 && perSecond <= 26, `${perSecond}/s`);
      assert.ok(v.rtxReceived > 0, "the losses came back on RTX");
      assert.ok(v.nacksSent > 0);
      assert.equal(v.rtp.lost, 0, "every loss repaired, counted under its original number");
      assert.equal(v.rtp.tooLate, 0);
      feedback += v.transportFeedbackSent;
      rtx += v.rtxReceived;
    }
    assert.equal(r.aggregate.transportFeedbackSent, feedback);
    assert.equal(r.aggregate.rtxReceived, rtx);
    assert.equal(r.aggregate.packetsLost, 0);
    // the relay's own count of what each leg sent it, at the busiest tick
    const last = legs.filter((l) => l.length === 2).at(-1) ?? [];
    console.log(`${send} relay: transport feedback per leg at the last full tick ${JSON.stringify(last)}`);
    assert.equal(last.length, 2, "both legs seen open at a tick");
    for (const n of last) assert.ok(n > 10, `the relay received ${n} messages on a leg`);
    assert.match(r.method.join("\n"), /Viewer profile: browser/);
  });

for (const receivePath of ["lean", "werift"] as const)
  test(`browser profile on the ${receivePath} receive path: the same feedback and the same repair`, async () => {
    const { report: r } = await lossyRun("native", "browser", receivePath);
    const joined = (r.viewers ?? []).filter((v) => v.joined);
    assert.equal(joined.length, 2);
    for (const v of joined) {
      const perSecond = v.transportFeedbackSent / v.rtp.receivingSeconds;
      console.log(
        `${receivePath}: viewer ${v.id} ${perSecond.toFixed(1)} feedback/s, ${v.rtxReceived} RTX, lost ${v.rtp.lost}`,
      );
      assert.ok(perSecond >= 14 && perSecond <= 26, `${perSecond}/s`);
      assert.ok(v.rtxReceived > 0);
      assert.equal(v.rtp.lost, 0);
    }
    assert.equal(r.client.workers?.[0]?.receivePath, receivePath);
  });

test("minimal profile: no transport-cc, no rtx; the repair comes on the media SSRC", async () => {
  const { report: r, legs } = await lossyRun("native", "minimal");
  const joined = (r.viewers ?? []).filter((v) => v.joined);
  assert.equal(joined.length, 2);
  for (const v of joined) {
    assert.equal(v.transportFeedbackSent, 0);
    assert.equal(v.rtxReceived, 0);
    assert.ok(v.nacksSent > 0);
    assert.equal(v.rtp.lost, 0);
  }
  assert.ok(
    legs.every((l) => l.every((n) => n === 0)),
    "the relay received no transport feedback",
  );
  assert.equal(r.scenario.viewerProfile, "minimal");
});
