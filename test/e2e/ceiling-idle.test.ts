// The ceiling guard on an idle client, in a process of its own: earlier runs in the same process
// (dead workers' peers, their relay's teardown) leave work behind that a single idle viewer's
// receive lag sees, and that is not what this test is about.
import assert from "node:assert/strict";
import { test } from "node:test";
import { poolEngine } from "../../src/main/run/pool-engine.ts";
import { fingerprintBlock, runThroughRelay } from "./harness.ts";

test("the ceiling guard stays quiet on an idle client", async () => {
  // one viewer: no other viewer's handshake holds its datagrams (a real wait, which the receive
  // lag sees and which does count against a run with a short ramp)
  const over = { viewers: 1, holdSeconds: 8 };
  const { report: r } = await runThroughRelay({}, over, poolEngine({ workers: 1 }));
  assert.equal(r.client.ceiling?.nearCeiling, false, (r.client.ceiling?.evidence ?? []).join("; "));
  assert.equal(fingerprintBlock(r).comparable, true);
});
