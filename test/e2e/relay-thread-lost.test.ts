// A relay thread that stops unasked (src/main/relay/threads.ts): the relay counts it, says so in
// one line and ends its legs' sessions as a server dropping them (their SRTP state died with the
// thread); the run goes on, its report is written, and each viewer's media stopped when the
// thread did: its end gap spans the rest of the run (the thread fails 3 s after the relay
// started, the run lasts about 9 s). The viewers' own connections fail later, once werift's
// consent check notices (docs/definitions.md#error-kinds, `dropped`): not within this run.
import assert from "node:assert/strict";
import { test } from "node:test";
import { runThroughRelay } from "./harness.ts";

test("a relay thread that fails: counted, one line, its legs ended, the viewers' media stops, the report written", async () => {
  const lines: string[] = [];
  const { report: r, relay } = await runThroughRelay(
    {
      threads: 1,
      onThreadLost: (line) => lines.push(line),
      test: { relayThreadEntry: new URL("./faults/failing-relay-thread.ts", import.meta.url) },
    },
    { viewers: 2, rampSeconds: 0.5, holdSeconds: 8 },
  );
  if (relay.send.threads === null) {
    // no native send path here (relay.send.describe() says why): nothing ran on a thread
    assert.equal(lines.length, 0);
    return;
  }
  assert.equal(relay.send.threads.lostThreads, 1);
  assert.deepEqual(lines, [
    "relay thread 1 failed: injected relay thread failure; its 2 viewer leg(s) ended",
  ]);
  assert.equal(relay.send.threads.legCount, 0);
  const viewers = r.viewers ?? [];
  assert.equal(viewers.length, 2);
  for (const v of viewers) {
    assert.equal(v.joined, true, `viewer ${v.id}: ${v.error}`);
    assert.ok(v.rtp.received > 0);
    const render = v.render;
    assert.ok(render?.available === true, `viewer ${v.id}: no render block`);
    assert.ok((render.endGapMs ?? 0) >= 3000, `viewer ${v.id}: end gap ${render.endGapMs} ms`);
  }
});
