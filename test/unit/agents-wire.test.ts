// The agent ↔ coordinator wire (issue 16): frames, the hello checks, and the shapes the
// coordinator accepts from an agent.
import assert from "node:assert/strict";
import { test } from "node:test";
import { syntheticRecord } from "../../bench/sim-agents.ts";
import { DelayHistogram } from "../../src/core/stats/summaries.ts";
import { emptyRecord } from "../../src/core/viewer-record.ts";
import { agentScenario } from "../../src/main/agents/agent-share.ts";
import { checkHello } from "../../src/main/agents/handshake.ts";
import { profileOk, recordOk, tickOk } from "../../src/main/agents/shapes.ts";
import { MAX_LIVE_SAMPLES, mergeTicks } from "../../src/main/agents/tick-merge.ts";
import {
  encodeFrame,
  FrameReader,
  MAX_FRAME_BYTES,
  type Message,
  PROTOCOL_VERSION,
} from "../../src/main/agents/wire.ts";

function reader(): { r: FrameReader; got: Message[]; bad: string[] } {
  const got: Message[] = [];
  const bad: string[] = [];
  return {
    r: new FrameReader(
      (m) => got.push(m),
      (why) => bad.push(why),
    ),
    got,
    bad,
  };
}

function frame(body: string | Buffer): Buffer {
  const b = typeof body === "string" ? Buffer.from(body) : body;
  const head = Buffer.alloc(4);
  head.writeUInt32BE(b.length, 0);
  return Buffer.concat([head, b]);
}

test("frames: whole messages out of any split of the byte stream, bigints as strings", () => {
  const { r, got, bad } = reader();
  const bytes = Buffer.concat([
    encodeFrame({ type: "a", n: 1 }),
    encodeFrame({ type: "b", seed: 2n ** 63n - 1n }),
  ]);
  for (let i = 0; i < bytes.length; i += 3) r.push(bytes.subarray(i, i + 3));
  assert.deepEqual(got, [
    { type: "a", n: 1 },
    { type: "b", seed: "9223372036854775807" },
  ]);
  assert.deepEqual(bad, []);
});

test("frames: oversized, non-JSON and non-message frames are malformed once, and nothing after them is read", () => {
  for (const [bytes, want] of [
    [Buffer.from([0xff, 0xff, 0xff, 0xff]), /over the .*-byte limit/],
    [frame("{not json"), /not JSON/],
    [frame("[1,2]"), /not a message object/],
    [frame('{"type":3}'), /not a message object/],
    [frame("null"), /not a message object/],
  ] as const) {
    const { r, got, bad } = reader();
    r.push(Buffer.concat([bytes, encodeFrame({ type: "after" })]));
    assert.equal(bad.length, 1, String(want));
    assert.match(bad[0] ?? "", want);
    assert.deepEqual(got, []);
  }
  // the limit itself: a frame just over it is refused before its body arrives
  const { r, bad } = reader();
  const head = Buffer.alloc(4);
  head.writeUInt32BE(MAX_FRAME_BYTES + 1, 0);
  r.push(head);
  assert.equal(bad.length, 1);
  assert.throws(() => encodeFrame({ type: "x", pad: "y".repeat(MAX_FRAME_BYTES) }), /over the wire's limit/);
  // a lower limit (a coordinator's, before an agent's hello) holds the same way
  const low = reader();
  low.r.maxBytes = 64;
  low.r.push(encodeFrame({ type: "hello", pad: "z".repeat(64) }));
  assert.match(low.bad[0] ?? "", /over the 64-byte limit/);
});

const hello = (over: Record<string, unknown> = {}): Message => ({
  type: "hello",
  protocol: PROTOCOL_VERSION,
  version: "1.2.3",
  name: "agent-0",
  workers: 2,
  token: "t0ken",
  ...over,
});

test("hello: version skew is refused naming both versions; the token is required and must match", () => {
  assert.equal(checkHello(hello(), "1.2.3", "t0ken").ok, true);
  assert.equal(checkHello(hello({ token: undefined }), "1.2.3", undefined).ok, true);
  const skew = checkHello(hello({ version: "1.2.4" }), "1.2.3", "t0ken");
  assert.equal(skew.ok, false);
  assert.match(!skew.ok ? skew.reason : "", /coordinator is whipbench 1\.2\.3.*agent whipbench 1\.2\.4/);
  const wire = checkHello(hello({ protocol: 99 }), "1.2.3", "t0ken");
  assert.match(!wire.ok ? wire.reason : "", new RegExp(`wire ${PROTOCOL_VERSION}\\).*wire 99\\)`));
  // an agent of the wire before this one (same whipbench version string: a build without its commit)
  const older = checkHello(hello({ protocol: PROTOCOL_VERSION - 1 }), "1.2.3", "t0ken");
  assert.equal(older.ok, false, "an agent of an older wire is refused, not misread");
  assert.match(
    !older.ok ? older.reason : "",
    new RegExp(
      `whipbench 1\\.2\\.3 \\(wire ${PROTOCOL_VERSION}\\).*whipbench 1\\.2\\.3 \\(wire ${PROTOCOL_VERSION - 1}\\)`,
    ),
  );
  for (const [over, want] of [
    [{ token: undefined }, /a token is required/],
    [{ token: "" }, /a token is required/],
    [{ token: "wrong" }, /does not match/],
    [{ name: "../etc" }, /agent name/],
    [{ name: "x".repeat(64) }, /agent name/],
    [{ workers: 0 }, /workers/],
    [{ type: "ready" }, /first message must be a hello/],
  ] as const) {
    const v = checkHello(hello(over), "1.2.3", "t0ken");
    assert.equal(v.ok, false, JSON.stringify(over));
    const reason = !v.ok ? v.reason : "";
    assert.match(reason, want);
    assert.ok(!reason.includes("t0ken") && !reason.includes("wrong"), "a refusal never echoes a token");
  }
});

test("shapes: a real record, tick and profile pass; a wrong type, an unknown key or a foreign id does not", () => {
  const ids = new Set([3]);
  const rec = syntheticRecord(3, [1e6, 2e6]);
  assert.equal(recordOk(JSON.parse(JSON.stringify(rec)), ids), true);
  assert.equal(recordOk(emptyRecord(3, false), ids), true);
  assert.equal(recordOk(rec, new Set([4])), false, "a viewer that is not the agent's");
  assert.equal(recordOk({ ...rec, joined: "yes" }, ids), false);
  assert.equal(recordOk({ ...rec, command: "rm -rf /" }, ids), false);
  assert.equal(recordOk({ ...rec, delayHist: { ...rec.delayHist, hdr: "!!not base64!!" } }, ids), false);
  assert.equal(recordOk({ ...rec, rtp: { ...rec.rtp, lost: "1" } }, ids), false);
  assert.equal(recordOk({ ...rec, oneWayDelayBlocker: { kind: "other" } }, ids), false);
  // what a viewer of a churn or cohort run carries: its stop, its cohort and its link's counts
  const counts = { datagrams: 9, delayed: 9, droppedLoss: 1, droppedQueue: 0 };
  const lived = { ...rec, stopMonoNs: 5e9, cohort: "far", link: { down: counts, up: counts } };
  assert.equal(recordOk(JSON.parse(JSON.stringify(lived)), ids), true);
  // an audio run's viewer carries its audio track's record
  const hist = new DelayHistogram();
  hist.recordNs(2e6);
  const audio = {
    rtp: rec.rtp,
    firstAudioNs: 1.8e8,
    matched: true,
    samples: 1,
    invalid: 0,
    unmatchedPackets: 0,
    duplicatePackets: 0,
    excludedPackets: 0,
    delayHist: hist.encode(),
    avOffsetNs: [-1.3e6, 0.4e6],
  };
  assert.equal(recordOk(JSON.parse(JSON.stringify({ ...rec, audio })), ids), true);
  assert.equal(recordOk({ ...rec, audio: { ...audio, samples: "1" } }, ids), false);
  assert.equal(
    recordOk({ ...rec, audio: { ...audio, delayHist: { ...audio.delayHist, hdr: "!!" } } }, ids),
    false,
  );
  assert.equal(recordOk({ ...lived, link: { down: counts } }, ids), false);
  assert.equal(recordOk({ ...lived, stopMonoNs: "soon" }, ids), false);
  const tick = {
    shard: 0,
    second: 2,
    final: false,
    packets: 1,
    bytes: 1,
    transportFeedbackSent: 10,
    rtxReceived: 1,
    started: 0,
    joined: 0,
    failed: 0,
    active: 1,
    delaySamples: [1],
    stampSamples: [],
    transitSamples: [],
    freezes: 1,
    frozenNs: [2, 2e8],
    thread: { cpuSeconds: 0, eventLoopUtilisation: 0, eventLoopDelayMs: { p50: 0, p99: 0, max: 0 } },
  };
  assert.equal(tickOk(tick), true);
  assert.equal(tickOk({ ...tick, frozenNs: ["2"] }), false);
  const { freezes: _f, ...noFreezes } = tick;
  assert.equal(tickOk(noFreezes), false);
  const cohort = {
    cohort: "far",
    started: 1,
    joined: 1,
    failed: 0,
    active: 1,
    delaySamples: [2],
    freezes: 1,
    frozenNs: [2, 2e8],
  };
  assert.equal(tickOk({ ...tick, cohorts: [cohort] }), true);
  assert.equal(tickOk({ ...tick, cohorts: [{ ...cohort, active: "1" }] }), false);
  assert.equal(tickOk({ ...tick, second: -1 }), false);
  assert.equal(tickOk({ ...tick, delaySamples: ["1"] }), false);
  assert.equal(tickOk({ ...tick, thread: { ...tick.thread, extra: 1 } }), false);
  const profile = {
    ...tick.thread,
    shard: 0,
    thread: "worker",
    viewers: 1,
    packets: 1,
    receiveLagHist: rec.delayHist,
    intakeDropped: 0,
    stamps: { source: "kernel", kernelStamped: 1, threadStamped: 0 },
    repairedFrames: 0,
  };
  assert.equal(profileOk(profile), true);
  assert.equal(profileOk({ ...profile, stamps: { ...profile.stamps, source: "wall" } }), false);
  assert.equal(profileOk({ ...profile, stamps: undefined }), false);
  assert.equal(profileOk({ ...profile, thread: "publisher" }), false);
  // a mixed thread's thread-stamped lag travels with its stamps, checked like any delay figure
  const mixed = {
    source: "mixed",
    kernelStamped: 1,
    threadStamped: 1,
    threadLagMs: { p50: 1, p99: 2, max: 3 },
  };
  assert.equal(profileOk({ ...profile, stamps: mixed }), true);
  assert.equal(profileOk({ ...profile, stamps: { ...mixed, threadLagMs: { p50: "1" } } }), false);
});

test("an agent's worker ticks merge into one: counters summed, the worst thread, samples thinned", () => {
  const t = (active: number, p99: number, n: number) => ({
    shard: 0,
    second: 4,
    final: false,
    packets: 10,
    bytes: 100,
    started: 1,
    joined: 1,
    failed: 0,
    active,
    delaySamples: Array.from({ length: n }, (_, i) => i + 0.4),
    stampSamples: [],
    transitSamples: [],
    freezes: active,
    frozenNs: [3, 1e8 * active, 4, 5e8],
    transportFeedbackSent: 10 * active,
    rtxReceived: active,
    thread: { cpuSeconds: 0.5, eventLoopUtilisation: p99 / 10, eventLoopDelayMs: { p50: 1, p99, max: p99 } },
  });
  const m = mergeTicks([t(3, 2, 10), t(4, 7, MAX_LIVE_SAMPLES)]);
  assert.equal(m?.active, 7);
  assert.equal(m?.packets, 20);
  assert.equal(m?.thread.cpuSeconds, 1);
  assert.equal(m?.thread.eventLoopDelayMs.p99, 7);
  assert.equal(m?.delaySamples.length, MAX_LIVE_SAMPLES);
  // freezes add up; frozen viewer-time adds up by the second it fell in, exactly
  assert.equal(m?.freezes, 7);
  assert.deepEqual(m?.frozenNs, [3, 7e8, 4, 1e9]);
  assert.equal(mergeTicks([]), null);
});

test("the agent runs only viewers of the scenario it is sent: no publisher, metrics, thresholds or foreign bearer", () => {
  const s = agentScenario({
    name: "x",
    WHIP: "http://h/whip",
    whep: "http://h/whep",
    viewers: 3,
    rampSeconds: 1,
    holdSeconds: 2,
    Metrics: "0.0.0.0:9100",
    thresholds: [{ metric: "oneWayDelay.p99", op: "<", value: 20 }],
    BEARERENV: "AWS_SECRET_ACCESS_KEY",
    workers: 64,
    rampOffsetSeed: "9223372036854775807",
  });
  assert.equal(s.whip, undefined);
  assert.equal(s.metrics, undefined);
  assert.equal(s.thresholds, undefined);
  assert.equal(s.bearerEnv, undefined);
  assert.equal(s.workers, undefined);
  assert.equal(s.rampOffsetSeed, 2n ** 63n - 1n);
  assert.equal(s.whep, "http://h/whep");
  assert.throws(
    () => agentScenario({ whep: "http://h/e", viewers: 1, holdSeconds: 1, command: "sh" }),
    /unknown key "command"/,
  );
  assert.throws(() => agentScenario({ whip: "http://h/w", viewers: 1, holdSeconds: 1 }), /whep/);
  assert.throws(() => agentScenario([1]), /not an object/);
});
