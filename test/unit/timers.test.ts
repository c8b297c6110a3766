// Timers for absolute monotonic instants, including ones past setTimeout's 24.8-day limit.
import assert from "node:assert/strict";
import { test } from "node:test";
import { monoNs } from "../../src/core/clock/clock.ts";
import { atMonoNs } from "../../src/workers/timers.ts";

test("a near instant fires; a 30-day instant does not fire at once", async () => {
  let near = 0;
  const start = monoNs();
  await new Promise<void>((resolve) => {
    atMonoNs(start + 30e6, () => {
      near = monoNs() - start;
      resolve();
    });
  });
  assert.ok(near >= 29e6 && near < 500e6, `fired after ${near} ns`);
  let far = false;
  const t = atMonoNs(monoNs() + 30 * 86_400e9, () => {
    far = true;
  });
  await new Promise((r) => setTimeout(r, 50));
  t.cancel();
  assert.equal(far, false, "setTimeout alone would have fired after 1 ms");
});
