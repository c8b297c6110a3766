// The built-in relay's per-leg link (docs/definitions.md#relay-link) through real werift peers on
// 127.0.0.1: every datagram a leg is sent crosses it — STUN and DTLS of the handshake as well as
// SRTP and RTCP — on the native fan-out and on werift's own sender alike.
import assert from "node:assert/strict";
import { test } from "node:test";
import { fingerprintBlock, runThroughRelay } from "./harness.ts";

const MS = 1e6;
const LINK = { loss: 0, delayNs: 0, jitterNs: 0, duplicate: 0, afterNs: 0, seed: 1 };

test("a delayed link: the handshake's STUN and DTLS and the media are all delayed; the viewers' delay shows it", async () => {
  const r = await runThroughRelay({ link: { ...LINK, delayNs: 40 * MS } }, { viewers: 2 });
  assert.equal(r.report.aggregate.joined, 2);
  assert.equal(r.relay.send.path.path === "native" ? r.relay.send.nativeLegs : 2, 2);
  for (const n of [1, 2]) {
    const c = r.relay.linkCounts(n);
    assert.ok(c !== undefined);
    assert.ok(c.stun > 0 && c.dtls > 0 && c.media > 0, JSON.stringify(c));
    assert.equal(c.delayed, c.datagrams, "every datagram held 40 ms");
    assert.equal(c.lost + c.duplicated + c.overflow, 0);
  }
  // frame delay is measured from the publisher's send: it includes the relay's 40 ms
  const p50 = fingerprintBlock(r.report).ms?.p50 ?? 0;
  assert.ok(p50 >= 40, `one-way delay p50 ${p50} ms`);
});

test("a link that loses everything: the leg's STUN is lost, it never joins, and no media was sent", async () => {
  const r = await runThroughRelay(
    { link: { ...LINK, loss: 1 } },
    { viewers: 1, joinTimeoutSeconds: 3, holdSeconds: 2, rampSeconds: 0.1 },
  );
  assert.equal(r.report.aggregate.joined, 0);
  const c = r.relay.linkCounts(1);
  assert.ok(c !== undefined);
  assert.ok(c.lostStun > 0, JSON.stringify(c));
  assert.equal(c.lost, c.datagrams);
  assert.equal(c.media, 0);
});

test("duplication after the handshake on werift's sender: the viewers count the copies", async () => {
  const r = await runThroughRelay(
    { send: "werift", link: { ...LINK, duplicate: 0.2, afterNs: 1500 * MS, seed: 7 } },
    { viewers: 1 },
  );
  assert.equal(r.report.aggregate.joined, 1);
  const c = r.relay.linkCounts(1);
  assert.ok(c !== undefined && c.duplicated > 0 && c.media > 0, JSON.stringify(c));
  const dup = r.report.viewers?.[0]?.rtp.duplicates ?? 0;
  assert.ok(dup > 0, `viewer counted ${dup} duplicates`);
});

test("20 ms ± 5 ms reordering jitter on the media: every viewer joins, as its render model shows frames", async () => {
  const r = await runThroughRelay(
    { link: { ...LINK, delayNs: 20 * MS, jitterNs: 5 * MS, mediaOnly: true, seed: 11 } },
    { viewers: 3, holdSeconds: 4 },
  );
  for (const n of [1, 2, 3]) {
    const c = r.relay.linkCounts(n);
    assert.ok(c !== undefined && c.media > 100 && c.stun === 0 && c.dtls === 0, JSON.stringify(c));
  }
  for (const v of r.report.viewers ?? []) {
    assert.equal(v.errorKind, undefined, v.error);
    assert.equal(v.joined, true);
    assert.ok(v.render.available && (v.render.framesShown ?? 0) > 30, JSON.stringify(v.render));
  }
});

test("reordering on every datagram: a viewer that did not join failed its own handshake, and the server is not blamed", async () => {
  const r = await runThroughRelay(
    { link: { ...LINK, delayNs: 20 * MS, jitterNs: 5 * MS, seed: 11 } },
    { viewers: 3, joinTimeoutSeconds: 5, holdSeconds: 6 },
  );
  const failed = (r.report.viewers ?? []).filter((v) => !v.joined);
  for (const v of failed) assert.equal(v.errorKind, "client_handshake", v.error);
  for (const n of [1, 2, 3])
    assert.ok((r.relay.linkCounts(n)?.dtls ?? 0) > 0, "the relay's DTLS crossed the link");
  if (failed.length > 0 && !r.report.aggregate.valid)
    assert.match(
      r.report.aggregate.verdict,
      /own handshakes? failed: the client's failure, not the server's$/,
    );
});
