// The arena path's shared socket through the built-in relay (which gives each session its own
// port): with viewers starting one after another, the thread's first two probe with sockets of
// their own and the rest share one; every viewer, on either kind of socket, gives the same figures
// on one stream with drops (re-NACKed) and losses (repaired), as receive-path.test.ts holds the
// paths to, audio included. With viewerSockets "own" no viewer shares, and the report says why.
import assert from "node:assert/strict";
import { test } from "node:test";
import { receivePathEngine } from "../../bench/receive-path-engine.ts";
import { inThreadEngine } from "../../src/main/run/engine.ts";
import { runThroughRelay } from "./harness.ts";
import { figures, nacksAgree } from "./stream-figures.ts";

const PACKETS = 140;
const VIEWERS = 6;

async function runArena(viewerSockets?: "own") {
  const { report } = await runThroughRelay(
    { dropEvery: 29, loseEvery: 17, test: { burst: { legs: VIEWERS, packets: PACKETS } } },
    {
      viewers: VIEWERS,
      rampSeconds: 3,
      holdSeconds: 5.5,
      excludeFirstSeconds: 0,
      audio: true,
      receivePath: "arena",
      ...(viewerSockets !== undefined ? { viewerSockets } : {}),
    },
    receivePathEngine(inThreadEngine(), ["arena"]),
  );
  return report;
}

test("viewers on the shared socket and the probes on their own give the same figures", async (t) => {
  if (process.platform !== "linux") return t.skip("batched reads are Linux-only");
  const r = await runArena();
  const w = r.client.workers?.[0];
  assert.equal(w?.receivePath, "arena", w?.receivePathReason);
  assert.equal(w?.viewerSockets, "mixed", w?.viewerSocketsReason);
  assert.match(w?.viewerSocketsReason ?? "", /probe the server/);
  // counts present wherever what they count could happen, 0 or not (docs/definitions.md#receive-paths)
  assert.equal(typeof w?.unroutedDatagrams, "number", "unroutedDatagrams is written, 0 when none");
  assert.equal(typeof w?.intakeDropped, "number", "intakeDropped is written, 0 when none");
  const viewers = r.viewers ?? [];
  assert.equal(viewers.length, VIEWERS);
  const ref = figures(viewers[0]!);
  for (const v of viewers) assert.deepEqual(figures(v), ref, `viewer ${v.id}`);
  assert.equal(ref.joined, true);
  assert.ok(ref.expected >= PACKETS - 2 && ref.expected <= PACKETS, `expected ${ref.expected}`);
  assert.ok(ref.lost >= 4, `lost ${ref.lost}`);
  assert.equal(nacksAgree(viewers, ref.lost), null); // every drop asked for 10 times, tick-batched
  assert.ok(ref.lateCompletedFrames > 0, "losses repaired by NACK complete frames late");
  assert.equal(ref.invalid + ref.unmatchedFrames, 0);
  assert.equal(ref.stamped, ref.received);
  assert.deepEqual([ref.audio.available, ref.audio.received, ref.audio.lost], [true, PACKETS, 0]);
  assert.equal(r.scenario.viewerSockets, "shared", "the default, filled in");
});

test("viewerSockets own: a socket per viewer, and the report says why", async (t) => {
  if (process.platform !== "linux") return t.skip("batched reads are Linux-only");
  const r = await runArena("own");
  const w = r.client.workers?.[0];
  assert.equal(w?.viewerSockets, "own");
  assert.match(w?.viewerSocketsReason ?? "", /viewerSockets own/);
  assert.equal(w?.unroutedDatagrams, 0, "no shared socket, nothing unrouted: 0, not absent");
  assert.equal(r.scenario.viewerSockets, "own");
  for (const v of r.viewers ?? []) assert.equal(v.joined, true, `viewer ${v.id}`);
});
