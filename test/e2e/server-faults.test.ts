// Server faults (issue 7, docs/reliability.md "Server faults"): the real publisher and viewers
// against a misbehaving server, built from the built-in relay's fault knobs and a small HTTP
// front (test/e2e/faults/responder.ts) that forwards to it or misbehaves per request. Each
// failing viewer gets a counted error kind, the other viewers go on, the verdict rule decides
// and the report files are written (each run goes through `execute`, as the CLI does).
//
// Dropping a joined viewer and failing the publisher mid-run are only seen when ICE consent
// (RFC 7675) expires, 30 s after the last answer in werift: that run lasts about 35 s. It starts
// first and the short runs go on beside it once its media phase is over.
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { before, test } from "node:test";
import type { Report, ViewerReport } from "../../src/core/report/types.ts";
import { Relay, type RelayOptions } from "../../src/main/relay/relay.ts";
import { FaultServer } from "./faults/responder.ts";
import { failedWith, faultScenario, runAndWrite, type WrittenRun } from "./faults/run.ts";

const ICE = { loopbackOnly: true, includeLoopback: false };

/** A relay with these knobs, and the base URL it listens on; closed by the returned function. */
async function relayWith(o: Omit<RelayOptions, "ice"> = {}): Promise<{ relay: Relay; base: string }> {
  const relay = new Relay({ ice: ICE, ...o });
  return { relay, base: await relay.listen() };
}

function only(list: ViewerReport[], what: string): ViewerReport {
  assert.equal(list.length, 1, `exactly one viewer ${what}: ${list.map((v) => v.errorKind).join(", ")}`);
  return list[0]!;
}

/** The viewers that joined and received media without loss: the ones that "went on". */
function assertWentOn(r: Report, n: number): void {
  const ok = (r.viewers ?? []).filter((v) => v.joined && v.errorKind === undefined);
  assert.equal(ok.length, n, `healthy viewers: ${JSON.stringify(r.errors)}`);
  for (const v of ok) {
    assert.ok(v.rtp.received > 50, `viewer ${v.id} received ${v.rtp.received}`);
    assert.equal(v.rtp.lost, 0);
    assert.ok(v.oneWayDelay[0]!.samples > 0);
  }
}

function assertWritten(w: WrittenRun): void {
  assert.deepEqual(
    w.files.map((f) => f.replace(/^.*\./, "")),
    ["json", "md"],
  );
  assert.equal(w.stdout[0], w.report.aggregate.verdict);
  assert.ok(w.markdown.includes(w.report.aggregate.verdict));
}

// --- the long run: dropped viewer, stall, duplicates, a wild jump, the publisher failing ---

let long: Promise<{ w: WrittenRun; relay: Relay }>;
let startedAt = 0;

before(() => {
  startedAt = performance.now();
  long = (async () => {
    const { relay, base } = await relayWith({
      test: {
        legFaults: {
          1: { closeViewerAfterMs: 500 },
          2: { stopForwardingAfterMs: 1000, stopForwardingForMs: 700 },
          3: { rewriteSeq: "duplicate" },
          4: { rewriteSeq: "jump" },
        },
        closePublisherAfterMs: 3000,
      },
    });
    try {
      const s = faultScenario(`${base}/long/whip`, `${base}/long/whep`, {
        viewers: 5,
        rampSeconds: 0.5,
        // the publisher's connection fails at most 30 s after the relay closed it (3.2 s in)
        holdSeconds: 34,
        joinTimeoutSeconds: 3,
      });
      return { w: await runAndWrite("run", s), relay };
    } finally {
      await relay.close();
    }
  })();
  long.catch(() => {}); // awaited by its test
});

/** Waits until the long run's media phase (its first ~4 s) is over, so the short runs do not load it. */
async function afterLongMedia(): Promise<void> {
  const wait = startedAt + 4500 - performance.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
}

test("timeouts: no answer, ICE that never connects, DTLS that fails, media that never comes, reordering", async () => {
  await afterLongMedia();
  const { relay, base } = await relayWith({
    test: { legFaults: { 3: { withholdMedia: true }, 4: { rewriteSeq: "reorder" } } },
  });
  const front = new FaultServer({
    target: base,
    // relay legs: 1 dead candidates, 2 bad fingerprint, 3 withheld media, 4 reordered, 5 clean
    whep: [{ kind: "never-answer" }, { kind: "dead-candidates" }, { kind: "bad-fingerprint" }],
  });
  const fb = await front.listen();
  let w: WrittenRun;
  try {
    w = await runAndWrite(
      "run",
      faultScenario(`${base}/t/whip`, `${fb}/t/whep`, { viewers: 6, rampSeconds: 1.25, holdSeconds: 3 }),
    );
  } finally {
    await front.close();
    await relay.close();
  }
  const r = w.report;
  const h = new URL(fb).host;
  assert.deepEqual(front.stats.applied.slice(0, 3), ["never-answer", "dead-candidates", "bad-fingerprint"]);
  // every pair of packets swapped: the reassembler still completes and matches every frame (late),
  // and the join rule reads the keyframes it completes (docs/definitions.md#first-complete-keyframe),
  // so the reordered viewer joins wherever the pairs fall against a keyframe's first packet
  const reordered = (r.viewers ?? []).find((v) => (v.oneWayDelay[0]?.lateCompletedFrames ?? 0) > 0);
  assert.ok(reordered, "the reordered viewer completed frames late");
  assert.equal(reordered.joined, true, reordered.error);
  assert.deepEqual(r.errors, { ice_failed: 1, ice_timeout: 1, no_media: 1, transport: 1 });
  // the join timeout bounds the POST too, and says so
  assert.equal(only(failedWith(r, "transport"), "unanswered").error, `POST to ${h}: timed out`);
  const ice = only(failedWith(r, "ice_timeout"), "with dead candidates");
  assert.equal(ice.error, "the connection was not established within the 2s join timeout");
  assert.equal(ice.iceConnectedMs, undefined);
  assert.equal(
    only(failedWith(r, "ice_failed"), "with a wrong fingerprint").error,
    "the connection failed before the first keyframe (ICE or DTLS)",
  );
  const noMedia = only(failedWith(r, "no_media"), "never sent media");
  assert.ok(noMedia.iceConnectedMs !== undefined, "connected");
  assert.equal(noMedia.rtp.received, 0);
  assert.ok((relay.legFault(3)?.offered ?? 0) > 0 && relay.legFault(3)?.sent === 0);
  assert.ok(reordered.rtp.received > 50 && reordered.rtp.lost <= 1, JSON.stringify(reordered.rtp));
  const rb = reordered.oneWayDelay[0]!;
  assert.ok(rb.completeFrames > 20, `${rb.completeFrames} frames completed`);
  assert.equal(rb.unmatchedFrames, 0);
  assert.equal(rb.invalid, 0);
  // the reordered viewer joined too: the clean one is the other healthy viewer
  const healthy = (r.viewers ?? []).filter((v) => v.joined && v.errorKind === undefined);
  assert.equal(healthy.length, 2, `healthy viewers: ${JSON.stringify(r.errors)}`);
  const clean = healthy.find((v) => v !== reordered);
  assert.ok(clean && clean.rtp.lost === 0 && clean.oneWayDelay[0]!.samples > 0);
  assert.equal(
    r.aggregate.verdict,
    "no verdict: 4 of 6 viewers (66.7%) failed to join, above the 10% the rule allows",
  );
  assert.equal(w.code, 3);
  assertWritten(w);
});

test("HTTP faults: 403, 500, not SDP, no video, no common codec, garbage, 200 with an endless body, reset, no Location", async () => {
  await afterLongMedia();
  const { relay, base } = await relayWith();
  const front = new FaultServer({
    target: base,
    whep: [
      { kind: "status", status: 403 },
      { kind: "status", status: 500 },
      { kind: "not-sdp" },
      { kind: "no-video" },
      { kind: "no-common-codec" },
      { kind: "garbage-lines" },
      { kind: "huge-body" },
      { kind: "reset" },
      { kind: "no-location" },
      { kind: "proxy" },
    ],
  });
  const fb = await front.listen();
  let w: WrittenRun;
  try {
    w = await runAndWrite(
      "run",
      faultScenario(`${base}/h/whip`, `${fb}/h/whep`, { viewers: 10, holdSeconds: 2.5 }),
    );
  } finally {
    await front.close();
    await relay.close();
  }
  const r = w.report;
  const h = new URL(fb).host;
  assert.deepEqual(r.errors, { bad_answer: 5, http_403: 1, http_500: 1, transport: 1 });
  assert.equal(only(failedWith(r, "http_403"), "403").error, `POST to ${h}: HTTP 403`);
  assert.equal(only(failedWith(r, "http_500"), "500").error, `POST to ${h}: HTTP 500`);
  const bad = failedWith(r, "bad_answer").map((v) => v.error ?? "");
  assert.ok(bad.includes(`the answer from ${h} is not SDP`), bad.join("; "));
  assert.ok(bad.includes(`the answer from ${h} is too large`), "the endless body is cut at 1 MiB");
  // werift's own words for the SDP it refuses: no common codec, and a line it cannot parse
  assert.equal(bad.filter((e) => /^the WHEP answer was refused: .*codec/i.test(e)).length, 1, bad.join("; "));
  assert.equal(bad.filter((e) => e.startsWith("the WHEP answer was refused: ")).length, 2, bad.join("; "));
  // an audio section where the offer had video: refused at once, not left to the join timeout
  assert.ok(bad.includes("the WHEP answer has no video"), bad.join("; "));
  // the front destroys the socket (a FIN, no status line), as SRS does on a negotiation error
  assert.equal(
    only(failedWith(r, "transport"), "reset").error,
    `POST to ${h}: the server closed the connection without a response`,
  );
  // the endless body: the client stopped reading at its 1 MiB bound (beyond it only what the
  // socket buffers held)
  assert.equal(front.stats.hugeClosedByClient, 1);
  assert.ok(front.stats.hugeBytesWritten < 16 * 2 ** 20, `${front.stats.hugeBytesWritten} bytes written`);
  // 201 without Location is not a fault (docs/definitions.md#whip-and-whep-http-exchange: nothing to delete): that viewer joins and sends
  // no DELETE; the 4 relay answers that carried one (no video, no codec, garbage, proxy) are deleted
  assertWentOn(r, 2);
  assert.equal(front.stats.deletes, 4);
  assert.equal(
    r.aggregate.verdict,
    "no verdict: 8 of 10 viewers (80%) failed to join, above the 10% the rule allows",
  );
  assert.equal(w.code, 3);
  assertWritten(w);
  for (const v of r.viewers ?? []) assert.ok(!(v.error ?? "").includes("/h/"), "no path in a message");
});

test("connection refused: every viewer fails with `transport`, the view still writes its report", async () => {
  await afterLongMedia();
  const port = await closedTcpPort();
  const w = await runAndWrite(
    "view",
    faultScenario(null, `http://127.0.0.1:${port}/r/whep?key=k`, { rampSeconds: 0.5, holdSeconds: 1 }),
  );
  const r = w.report;
  assert.deepEqual(r.errors, { transport: 2 });
  for (const v of r.viewers ?? []) assert.equal(v.error, `POST to 127.0.0.1:${port}: connection refused`);
  assert.equal(r.aggregate.verdict, "no verdict: none of the 2 viewers joined");
  assert.equal(w.code, 3);
  assertWritten(w);
});

test("after joining: dropped by the server, a paused stream, duplicates, a wild jump, the publisher failing mid-run", async () => {
  const { w, relay } = await long;
  const r = w.report;
  assert.deepEqual(r.errors, { dropped: 1, publisher_disconnected: 1 });
  const viewers = r.viewers ?? [];
  assert.equal(viewers.length, 5);
  for (const v of viewers) assert.equal(v.joined, true, `viewer ${v.id}: ${v.error}`);

  // leg 1: closed by the relay 0.5 s after it connected; the viewer sees its connection fail
  const dropped = only(failedWith(r, "dropped"), "dropped");
  assert.equal(dropped.droppedAfterJoin, true);
  assert.equal(dropped.error, "the connection failed after the viewer had joined");
  assert.equal(r.aggregate.droppedAfterJoin, 1);

  // leg 2: forwarding paused for 0.7 s and resumed: one stall of about that length, the
  // packets the relay skipped counted lost
  const stalled = viewers.filter((v) => v.rtp.stalls > 0);
  assert.equal(stalled.length, 1, `viewers with stalls: ${stalled.map((v) => v.id)}`);
  const st = stalled[0]!.rtp;
  assert.equal(st.stalls, 1);
  assert.ok(st.longestGapMs >= 650 && st.longestGapMs < 1200, `longest gap ${st.longestGapMs} ms`);
  assert.ok(st.lost > 0 && st.lost === st.expected - st.received, JSON.stringify(st));
  assert.equal(r.aggregate.stalls, 1);

  // leg 3: every packet sent twice; each sequence number is counted once (the SRTP replay
  // window, or the RTP statistics as a duplicate), frames are neither lost nor doubled
  const dup = relay.legFault(3)!;
  assert.ok(dup.sent === 2 * dup.offered && dup.offered > 50, `${dup.sent} sent of ${dup.offered}`);
  const clean = viewers.filter((v) => v.errorKind === undefined && v.rtp.stalls === 0);
  const byReceived = clean.filter((v) => v.rtp.lost === 0);
  assert.ok(byReceived.length >= 2, "the duplicated and the clean leg lost nothing");
  for (const v of byReceived) {
    assert.equal(v.rtp.received, v.rtp.expected, `viewer ${v.id}: every sequence number once`);
    assert.ok(v.rtp.received <= dup.offered + 10, `viewer ${v.id} received ${v.rtp.received}`);
    const b = v.oneWayDelay[0]!;
    assert.equal(b.unmatchedFrames, 0);
    assert.equal(b.invalid, 0);
    assert.ok(b.completeFrames <= (r.publisher?.framesSent ?? 0));
  }

  // leg 4: from its 50th packet every sequence number +30000 and every timestamp +2^31: the
  // skipped numbers count as lost (docs/definitions.md#rtp-statistics has no restart rule), every frame still completes and
  // matches the send log, every figure stays finite
  const jumped = viewers.filter((v) => v.rtp.lost >= 30000);
  assert.equal(
    jumped.length,
    1,
    `one viewer saw the jump; lost/expected per viewer: ${viewers.map((v) => `${v.id}:${v.rtp.lost}/${v.rtp.expected}`).join(" ")}; leg 4 ${JSON.stringify(relay.legFault(4))}`,
  );
  const jr = jumped[0]!;
  assert.equal(jr.rtp.lost, jr.rtp.expected - jr.rtp.received);
  assert.ok(jr.rtp.lost < 30050, `lost ${jr.rtp.lost}`);
  assert.ok(Number.isFinite(jr.rtp.jitterMs) && Number.isFinite(jr.rtp.keyframeIntervalMeanS));
  assert.ok(jr.oneWayDelay[0]!.samples > 10);
  assert.equal(jr.oneWayDelay[0]!.unmatchedFrames, 0);

  // the publisher: closed by the relay 3 s after it connected; it stops when its connection fails
  const p = r.publisher!;
  assert.equal(p.disconnectedLate, true);
  assert.equal(p.errorKind, "disconnected");
  assert.equal(p.error, "the server connection dropped while publishing");
  assert.ok(p.framesSent > 60);
  assert.ok(p.sendingSeconds > 20, "it streamed on until ICE consent expired");
  // a publisher that failed after streaming does not by itself invalidate the run (docs/definitions.md#verdict)
  assert.equal(r.aggregate.verdict, "valid: 5 of 5 viewers joined");
  assert.equal(w.code, 0);
  assertWritten(w);
});

/** A TCP port on 127.0.0.1 that nobody listens on (bound a moment ago, then released). */
function closedTcpPort(): Promise<number> {
  const s = createServer();
  return new Promise((resolve) =>
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    }),
  );
}
