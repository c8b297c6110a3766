// Viewers join the built-in relay over links that reorder and lose the handshake's datagrams
// (docs/definitions.md#dtls-handshake): the relay answers `active` and is the DTLS client, each
// viewer the DTLS server, and a cohort's emulated link (docs/definitions.md#link-emulator) acts on
// every datagram of the viewer's socket, STUN and DTLS included. A viewer that connected finished
// its handshake. With werift's own handshake the reordering cohort's viewers do not get there in
// the same time; with the mends every viewer does (on a loaded 2-core machine a viewer of this
// one-thread run connected 2.5–4 s after its start, whence the long hold). (Whether a viewer whose media reorders
// then counts as joined is the join rule's business: issue 39's keyframe item, not this test's.)
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseCohorts } from "../../src/core/link/parse.ts";
import type { Report } from "../../src/core/report/types.ts";
import { mends } from "../../src/net/werift/dtls-order.ts";
import { runThroughRelay } from "./harness.ts";

const jitter = { delay: "20ms", jitter: "5ms", distribution: "normal", reorder: true };

type Viewer = NonNullable<Report["viewers"]>[number];

/**
 * Whether the viewer's ICE and DTLS finished: it joined, or failed after connecting (no RTP, no
 * complete keyframe: docs/definitions.md#error-kinds), not with the connection never established.
 */
function connected(v: Viewer): boolean {
  if (v.joined) return true;
  if (v.errorKind === "no_media" || v.errorKind === "no_keyframe") return true;
  return v.errorKind === "run_ended" && !(v.error ?? "").includes("connection was not established");
}

function handshaken(r: Report, cohort: string): number {
  return (r.viewers ?? []).filter((v) => v.cohort === cohort && connected(v)).length;
}

test("through the relay: 20 ms ± 5 ms reordering and 10 % loss both ways, every viewer's handshake finishes", async () => {
  const cohorts = parseCohorts([
    { name: "jitter", viewers: 4, down: jitter, up: jitter, seed: 5 },
    { name: "lossy", viewers: 4, down: { loss: "10%" }, up: { loss: "10%" }, seed: 6 },
  ]);
  const { report: r } = await runThroughRelay(
    {},
    { viewers: 8, rampSeconds: 1, holdSeconds: 6, joinTimeoutSeconds: 10, cohorts },
  );
  const viewers = r.viewers ?? [];
  assert.equal(viewers.length, 8);
  for (const v of viewers) {
    assert.ok(connected(v), `viewer ${v.id} (${v.cohort}): ${v.errorKind ?? ""} ${v.error ?? ""}`);
  }
  assert.equal(handshaken(r, "jitter") + handshaken(r, "lossy"), 8);
  const lossy = viewers.filter((v) => v.cohort === "lossy");
  for (const v of lossy) assert.ok(v.joined, `viewer ${v.id} (lossy): ${v.errorKind ?? ""} ${v.error ?? ""}`);
  assert.ok(
    lossy.some((v) => (v.link?.down.droppedLoss ?? 0) > 0 && (v.link?.up.droppedLoss ?? 0) > 0),
    "the lossy links dropped datagrams both ways",
  );
});

test("through the relay with werift's own handshake: the reordering cohort's handshakes do not finish", async () => {
  const cohorts = parseCohorts([{ name: "jitter", viewers: 4, down: jitter, up: jitter, seed: 5 }]);
  mends.on = false;
  try {
    const { report: r } = await runThroughRelay(
      {},
      { viewers: 4, rampSeconds: 0.5, holdSeconds: 6, joinTimeoutSeconds: 10, cohorts },
    );
    const done = handshaken(r, "jitter");
    assert.ok(done <= 1, `${done} of 4 handshakes finished without the mends`);
  } finally {
    mends.on = true;
  }
});
