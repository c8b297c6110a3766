import assert from "node:assert/strict";
import { cpus } from "node:os";
import { test } from "node:test";
import { defaultWorkers, oversubscribedNote, VIEWERS_PER_THREAD } from "../../src/main/run/engine.ts";

test("the default keeps a core for the main thread, and never says so about itself", () => {
  assert.equal(defaultWorkers(), Math.max(1, cpus().length - 1));
  assert.equal(oversubscribedNote(defaultWorkers(), cpus().length), null);
  for (const n of [1, 10, 300, 5000])
    assert.equal(oversubscribedNote(defaultWorkers(n), cpus().length), null);
});

test("the default fills a thread before it opens the next, at most one per core beside the main thread's", () => {
  assert.equal(VIEWERS_PER_THREAD, 200);
  // 10 viewers on 16 cores: one thread, not 15
  assert.equal(defaultWorkers(10, 16), 1);
  assert.equal(defaultWorkers(200, 16), 1);
  assert.equal(defaultWorkers(201, 16), 2);
  assert.equal(defaultWorkers(2000, 16), 10);
  assert.equal(defaultWorkers(5000, 16), 15);
  assert.equal(defaultWorkers(1000, 2), 1);
  assert.equal(defaultWorkers(0, 16), 1);
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
