// Whose failure (docs/definitions.md#error-kinds `client_handshake`, docs/definitions.md#verdict):
// a join that failed because the viewer's own handshake gave up while the server's datagrams
// arrived is the client's, and the verdict says so without blaming the server; where the server
// sent nothing of the step that did not finish, the failure stays the server's.
import assert from "node:assert/strict";
import { test } from "node:test";
import { decideVerdict } from "../../src/core/report/verdict.ts";
import { clientHandshake, joinFailure } from "../../src/workers/viewer/viewer-errors.ts";

const BASE = {
  failedBeforeJoin: false,
  runEnded: false,
  connected: false,
  gotRtp: false,
  joinTimeoutNs: 10e9,
};

test("DTLS records arrived after ICE connected and the connection failed: client_handshake", () => {
  const f = joinFailure({
    ...BASE,
    failedBeforeJoin: true,
    handshake: { iceConnected: true, stunResponses: 3, dtlsDatagrams: 6, dtlsDone: false },
  });
  assert.equal(f.kind, "client_handshake");
  assert.equal(
    f.message,
    "the connection failed: the viewer's own DTLS handshake did not finish though 6 DTLS datagrams from the server arrived (the client's failure, not the server's)",
  );
  // the same at the join timeout
  const t = joinFailure({
    ...BASE,
    handshake: { iceConnected: true, stunResponses: 1, dtlsDatagrams: 2, dtlsDone: false },
  });
  assert.equal(t.kind, "client_handshake");
  assert.match(t.message, /^not connected within the 10s join timeout: /);
  // one of a kind is singular
  const one = { iceConnected: true, stunResponses: 1, dtlsDatagrams: 1, dtlsDone: false };
  assert.match(clientHandshake(one) ?? "", / though 1 DTLS datagram from the server arrived$/);
  const ice = { iceConnected: false, stunResponses: 1, dtlsDatagrams: 0, dtlsDone: false };
  assert.match(clientHandshake(ice) ?? "", / though 1 STUN response from the server arrived$/);
});

test("the server sent nothing of the step that did not finish: the old kinds, the server's", () => {
  // ICE connected, no DTLS from the server (a server that never starts DTLS)
  const silent = { iceConnected: true, stunResponses: 4, dtlsDatagrams: 0, dtlsDone: false };
  assert.equal(clientHandshake(silent), null);
  assert.equal(joinFailure({ ...BASE, failedBeforeJoin: true, handshake: silent }).kind, "ice_failed");
  assert.equal(joinFailure({ ...BASE, handshake: silent }).kind, "ice_timeout");
  // ICE never connected and no STUN response came back
  assert.equal(
    joinFailure({
      ...BASE,
      handshake: { iceConnected: false, stunResponses: 0, dtlsDatagrams: 0, dtlsDone: false },
    }).kind,
    "ice_timeout",
  );
  // ICE did not connect though responses arrived: ours
  assert.equal(
    joinFailure({
      ...BASE,
      handshake: { iceConnected: false, stunResponses: 2, dtlsDatagrams: 0, dtlsDone: false },
    }).kind,
    "client_handshake",
  );
  // connected: the handshake finished, whatever came after is not the handshake's
  const connected = {
    ...BASE,
    connected: true,
    gotRtp: true,
    handshake: { iceConnected: true, stunResponses: 1, dtlsDatagrams: 9, dtlsDone: true },
  };
  assert.equal(joinFailure(connected).kind, "no_keyframe");
  // our handshake finished and the connection failed after it (the server's certificate did not
  // match its fingerprint): the server's
  const wrongPrint = { iceConnected: true, stunResponses: 2, dtlsDatagrams: 5, dtlsDone: true };
  assert.equal(joinFailure({ ...BASE, failedBeforeJoin: true, handshake: wrongPrint }).kind, "ice_failed");
  // the run ended first: nobody's failure
  assert.equal(joinFailure({ ...BASE, runEnded: true, handshake: silent }).kind, "run_ended");
});

test("verdict: the client's own handshakes are named and the server is not blamed; the server's failures still are", () => {
  const v = (failed: number, own: number, viewers = 20) =>
    decideVerdict({ viewers, joined: viewers - failed, failed, clientHandshake: own, interrupted: false });
  assert.deepEqual(v(12, 12), {
    valid: false,
    verdict: "no verdict: 12 viewers' own handshakes failed: the client's failure, not the server's",
  });
  assert.equal(
    v(20, 20).verdict,
    "no verdict: 20 viewers' own handshakes failed: the client's failure, not the server's",
  );
  // 2 of the server's own (10 %) beside 3 of ours: still the client's
  assert.equal(
    v(5, 3).verdict,
    "no verdict: 3 viewers' own handshakes failed: the client's failure, not the server's",
  );
  assert.equal(
    v(1, 1, 4).verdict,
    "no verdict: 1 viewer's own handshake failed: the client's failure, not the server's",
  );
  // the server's failures alone break the rule: the rule's own text
  assert.equal(
    v(6, 1).verdict,
    "no verdict: 6 of 20 viewers (30%) failed to join, above the 10% the rule allows",
  );
  assert.equal(v(20, 5).verdict, "no verdict: none of the 20 viewers joined");
  // within the rule: valid, as before
  assert.deepEqual(v(2, 2), { valid: true, verdict: "valid: 18 of 20 viewers joined" });
});
