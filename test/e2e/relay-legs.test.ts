// The built-in relay ends a viewer's session that never connects, as a server ends one whose ICE
// or DTLS times out (src/main/relay/leg-watch.ts): a viewer that never got its answer, or never
// sent its DELETE, must not keep a session and its socket for the relay's whole life (the 30-minute
// soak's descriptors grew by the sessions the relay never got a DELETE for).
import assert from "node:assert/strict";
import { test } from "node:test";
import { runThroughRelay } from "./harness.ts";

test("legs that never connect are ended by the relay before the viewers' own DELETE", async () => {
  // DTLS never starts on any WHEP leg: no viewer connects, each gives up at its join timeout. The
  // relay's limit runs from its answer, the viewer's timeout from before its offer: on a busy
  // machine the offer and answer alone can take seconds, so the timeout leaves them room
  const { report: r, relay } = await runThroughRelay(
    { test: { answerFault: { on: "whep", kind: "silent-dtls" }, legConnectMs: 400 } },
    { viewers: 3, rampSeconds: 0.5, holdSeconds: 1, joinTimeoutSeconds: 8 },
  );
  const viewers = r.viewers ?? [];
  assert.equal(viewers.length, 3);
  for (const v of viewers) assert.equal(v.joined, false, `viewer ${v.id} joined`);
  // the relay ended every viewer's session at 0.4 s: their DELETEs found none; the one DELETE
  // that found its session is the publisher's
  assert.equal(relay.deletes, 1, "a viewer's session outlived the relay's connect limit");
  assert.equal(relay.viewers("s"), 0);
});

test("a leg that connects is kept past the connect limit and ends with its viewer's DELETE", async () => {
  // the limit must be one a real leg connects within on a busy machine (its ICE and DTLS can take
  // more than 400 ms there), and the hold must outlast it by seconds, so the legs are live when it
  // fires
  const { report: r, relay } = await runThroughRelay(
    { test: { legConnectMs: 3000 } },
    { viewers: 2, rampSeconds: 0.5, holdSeconds: 5 },
  );
  const viewers = r.viewers ?? [];
  assert.equal(viewers.filter((v) => v.joined).length, 2);
  for (const v of viewers) assert.ok(v.rtp.received > 30, `viewer ${v.id}: ${v.rtp.received} packets`);
  assert.equal(relay.deletes, 3, "both viewers' DELETEs and the publisher's found their sessions");
});
