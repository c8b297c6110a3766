// Churn against the built-in relay (docs/definitions.md#churn): viewers leave with a WHEP DELETE
// at their lifetime's end and late joiners take their places; the report counts them, gives the
// late joiners' setup and join, and pools every viewer's samples over its own lifetime. A late
// joiner that fails to join counts against the no-verdict rule like any viewer.
import assert from "node:assert/strict";
import { test } from "node:test";
import { runThroughRelay } from "./harness.ts";
import { checkReportKeys } from "./report-keys.ts";

// three places, each viewer living exactly 3 s: starts at 0, ⅙ and ⅓ s, replacements at 3 s,
// 3⅙ and 3⅓ s; a third generation would outlive the 7.5 s run, so none starts
const churnScenario = {
  viewers: 3,
  rampSeconds: 0.5,
  holdSeconds: 7,
  joinTimeoutSeconds: 2,
  excludeFirstSeconds: 0,
  churn: { meanLifetimeSeconds: 3, minLifetimeSeconds: 3, seed: 1 },
};

test("a churn run reports its late joiners, their setup and join, and pools every lifetime", async () => {
  const { report: r, json, markdown, relay } = await runThroughRelay({}, churnScenario);
  assert.deepEqual(checkReportKeys(JSON.parse(json) as unknown).problems, []);
  const viewers = r.viewers ?? [];
  assert.deepEqual(
    viewers.map((v) => v.id),
    [0, 1, 2, 3, 4, 5],
  );
  assert.equal(r.aggregate.verdict, "valid: 6 of 6 viewers joined");
  assert.deepEqual(
    r.aggregate.churn && {
      ...r.aggregate.churn,
      lateSignallingMs: 0,
      lateIceConnectedMs: 0,
      lateJoinFirstKeyframeMs: 0,
    },
    {
      viewers: 6,
      lateJoiners: 3,
      joins: 6,
      lateJoins: 3,
      leaves: 6,
      lateSignallingMs: 0,
      lateIceConnectedMs: 0,
      lateJoinFirstKeyframeMs: 0,
    },
  );
  const churn = r.aggregate.churn;
  assert.ok(churn !== undefined);
  assert.equal(churn.lateJoinFirstKeyframeMs.n, 3);
  assert.ok(churn.lateJoinFirstKeyframeMs.p95 > 0 && churn.lateJoinFirstKeyframeMs.p95 < 2000);
  assert.equal(churn.lateSignallingMs.n, 3);
  // every session got its DELETE: the six viewers' at their lifetimes' ends, and the publisher's
  assert.equal(relay.deletes, 7, "six viewers and the publisher");
  assert.equal(relay.viewers("s"), 0);
  assert.equal(relay.whepPostsMonoNs.length, 6);
  for (const v of viewers) {
    const late = v.id >= 3;
    assert.equal(v.lateJoiner === true, late, `viewer ${v.id}`);
    assert.equal(v.left, true);
    const scheduledStart = (late ? 3000 : 0) + ((v.id % 3) * 500) / 3;
    assert.ok(
      v.startOffsetMs >= scheduledStart && v.startOffsetMs < scheduledStart + 300,
      `viewer ${v.id} started at ${v.startOffsetMs} ms`,
    );
    const stop = v.stopOffsetMs ?? -1;
    assert.ok(
      stop >= scheduledStart + 3000 && stop < scheduledStart + 3300,
      `viewer ${v.id} stopped at ${stop} ms`,
    );
    // its figures cover its own lifetime only
    assert.ok(
      v.rtp.receivingSeconds > 2 && v.rtp.receivingSeconds < 3.1,
      `viewer ${v.id} received for ${v.rtp.receivingSeconds} s`,
    );
  }
  // the pooled figures are every lifetime's samples, each counted once
  const pooled = r.aggregate.oneWayDelay[0];
  const perViewer = viewers.reduce((n, v) => n + (v.oneWayDelay[0]?.samples ?? 0), 0);
  assert.ok(pooled?.available, pooled?.reason);
  assert.equal(pooled.samples, perViewer);
  assert.equal(pooled.viewers, 6);
  assert.equal(
    r.aggregate.packetsReceived,
    viewers.reduce((n, v) => n + v.rtp.received, 0),
  );
  // never more viewers at once than there are places
  assert.ok(
    (r.timeline ?? []).every((e) => e.active <= 3),
    JSON.stringify(r.timeline?.map((e) => e.active)),
  );
  assert.match(markdown, /## Churn\n\n6 viewers in all; late joiners 3 \(3 joined\); joins 6; leaves 6/);
  assert.ok(r.method.some((m) => m.startsWith("Churn: ")));
  assert.deepEqual(r.scenario.churn, { meanLifetimeSeconds: 3, minLifetimeSeconds: 3, seed: 1 });
});

test("a late joiner that fails to join counts against the no-verdict rule", async () => {
  // the relay's fifth WHEP offer is the second late joiner's (viewer 4): it is forwarded nothing
  const { report: r } = await runThroughRelay(
    { test: { legFaults: { 5: { withholdMedia: true } } } },
    churnScenario,
  );
  const failed = (r.viewers ?? []).filter((v) => !v.joined);
  assert.deepEqual(
    failed.map((v) => [v.id, v.lateJoiner, v.errorKind]),
    [[4, true, "no_media"]],
  );
  assert.equal(r.aggregate.viewers, 6);
  assert.equal(r.aggregate.failed, 1);
  assert.equal(
    r.aggregate.verdict,
    "no verdict: 1 of 6 viewers (16.7%) failed to join, above the 10% the rule allows",
  );
  assert.equal(r.aggregate.churn?.lateJoins, 2);
});
