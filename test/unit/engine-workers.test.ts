import assert from "node:assert/strict";
import { cpus } from "node:os";
import { test } from "node:test";
import { defaultWorkers, oversubscribedNote } from "../../src/main/run/engine.ts";

test("the default keeps a core for the main thread, and never says so about itself", () => {
  assert.equal(defaultWorkers(), Math.max(1, cpus().length - 1));
  assert.equal(oversubscribedNote(defaultWorkers(), cpus().length), null);
});

test("more worker threads than the cores beside the main thread get a note naming both", () => {
  assert.equal(oversubscribedNote(0, 2), null);
  assert.equal(oversubscribedNote(1, 2), null);
  assert.equal(oversubscribedNote(1, 1), null); // one core: one worker is the default
  assert.equal(oversubscribedNote(15, 16), null);
  assert.equal(
    oversubscribedNote(8, 2),
    "note: 8 worker threads for 1 core beside the main thread's (2 in all): threads share cores; client.ceiling says whether the client kept up",
  );
  assert.match(oversubscribedNote(16, 16) ?? "", /^note: 16 worker threads for 15 cores beside /);
});
