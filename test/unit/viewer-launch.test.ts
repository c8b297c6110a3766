// A shard's viewer launch (src/workers/viewer/viewer-launch.ts, docs/definitions.md#churn-schedule):
// viewers start in order of their instants, one wait at a time; a viewer's own stop fires at its
// instant or with the shard's, and leaves nothing on the shard's signal once released.
import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { test } from "node:test";
import { monoNs } from "../../src/core/clock/clock.ts";
import { emptyRecord } from "../../src/core/viewer-record.ts";
import { launchViewers, viewerStop } from "../../src/workers/viewer/viewer-launch.ts";

test("a viewer's stop fires at its instant, and releasing it leaves no listener on the shard's stop", async () => {
  const shard = new AbortController();
  const at = monoNs() + 20e6;
  const stops = Array.from({ length: 50 }, () => viewerStop(shard.signal, at));
  assert.equal(getEventListeners(shard.signal, "abort").length, 50);
  await new Promise<void>((resolve) => stops[0]?.signal.addEventListener("abort", () => resolve()));
  // not before its instant (measured from the instant itself: on a busy machine making the 50 stops
  // took part of the 20 ms, and a wait measured from after them read < 15 ms); atMonoNs re-arms
  // until the instant has passed, so never early
  const early = at - monoNs();
  assert.ok(early <= 0, `fired ${early / 1e6} ms before its instant`);
  for (const s of stops) s.release();
  assert.equal(getEventListeners(shard.signal, "abort").length, 0);
  assert.equal(shard.signal.aborted, false);
  // the shard's stop reaches a viewer whose own instant is still ahead
  const later = viewerStop(shard.signal, monoNs() + 60e9);
  shard.abort();
  assert.equal(later.signal.aborted, true);
  later.release();
  // no own instant: the shard's signal itself
  const plain = new AbortController();
  assert.equal(viewerStop(plain.signal, undefined).signal, plain.signal);
});

test("viewers start in order of their instants; those the stop overtakes are not started", async () => {
  const stop = new AbortController();
  const now = monoNs();
  const started: number[] = [];
  const viewers = [
    { id: 2, startMonoNs: now + 30e6 },
    { id: 0, startMonoNs: now },
    { id: 1, startMonoNs: now + 10e6 },
    { id: 3, startMonoNs: now + 10e9 },
  ];
  setTimeout(() => stop.abort(), 80);
  const records = await launchViewers(
    viewers,
    stop.signal,
    async (v) => {
      started.push(v.id);
      assert.ok(monoNs() >= v.startMonoNs - 1e6, `viewer ${v.id} started early`);
      return emptyRecord(v.id, false);
    },
    (v) => ({ ...emptyRecord(v.id, false), errorKind: "not_started" }),
  );
  assert.deepEqual(started, [0, 1, 2]);
  assert.deepEqual(
    records.map((r) => [r.id, r.errorKind ?? ""]),
    [
      [0, ""],
      [1, ""],
      [2, ""],
      [3, "not_started"],
    ],
  );
  assert.equal(getEventListeners(stop.signal, "abort").length, 0);
});
