// An emulated downlink holds what is not media (STUN, DTLS) and hands it to werift as libuv would:
// one datagram per macrotask (src/workers/receive/link.ts), even when several fall due at once. Why:
// werift's DTLS server given the client's flight 5 twice in one synchronous run derives its keys
// again over the wrong transcript and the client never connects (test/unit/arena-handoff.test.ts);
// a fixed delay makes the two copies of a flight sent back to back fall due together.
import assert from "node:assert/strict";
import { test } from "node:test";
import { monoNs } from "../../src/core/clock/clock.ts";
import type { Cohort } from "../../src/core/link/types.ts";
import { ViewerLink } from "../../src/workers/receive/link.ts";
import { pairWithTwiceFlight5 } from "./werift-pair.ts";

test("a delayed downlink that holds flight 5 twice: viewer and server connect", async () => {
  const cohort: Cohort = { name: "far", down: { delayNs: 30e6 }, up: {}, steps: [], seed: 1 };
  const link = new ViewerLink(cohort, 0, monoNs());
  let attached = 0;
  try {
    const both = await pairWithTwiceFlight5((pc, before) => {
      if (!before) attached = link.attach(pc);
    });
    assert.equal(attached, 1, "the link wraps the viewer's one UDP transport");
    assert.deepEqual(both, [true, true], "viewer and server connected");
    assert.ok(link.record().down.delayed > 0, "the handshake crossed the delayed link");
  } finally {
    link.close();
  }
});
