// The ceiling guard on an idle client, in a process of its own: earlier runs in the same process
// (dead workers' peers, their relay's teardown) leave work behind that a single idle viewer's
// receive lag sees, and that is not what this test is about. Then the default run as a new user
// types it: no warning, since nothing limited the client.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Report } from "../../src/core/report/types.ts";
import { poolEngine } from "../../src/main/run/pool-engine.ts";
import { cli, readReportPair, tempDir } from "./cli-harness.ts";
import { fingerprintBlock, runThroughRelay } from "./harness.ts";

test("the ceiling guard stays quiet on an idle client", async () => {
  // one viewer: no other viewer's handshake holds its datagrams (a real wait, which the receive
  // lag sees and which does count against a run with a short ramp)
  const over = { viewers: 1, holdSeconds: 8 };
  const { report: r } = await runThroughRelay({}, over, poolEngine({ workers: 1 }));
  assert.equal(r.client.ceiling?.nearCeiling, false, (r.client.ceiling?.evidence ?? []).join("; "));
  assert.equal(fingerprintBlock(r).comparable, true);
});

test("the default run (10 viewers, built-in relay) does not warn: nothing limited the client", async () => {
  const tmp = tempDir("default-run");
  try {
    const res = await cli(["run", "--out", tmp.dir], { timeoutMs: 90_000 });
    assert.equal(res.code, 0, res.stderr);
    const progress = res.stderr.split("\n").filter((l) => l.includes("progress "));
    assert.ok(progress.length >= 3, res.stderr);
    assert.doesNotMatch(res.stderr, /WARNING/);
    const r = JSON.parse(readReportPair(tmp.dir).jsonText) as Report;
    assert.equal(r.client.ceiling?.nearCeiling, false, (r.client.ceiling?.evidence ?? []).join("; "));
    assert.equal(fingerprintBlock(r).comparable, true);
    if (process.platform === "linux") {
      assert.equal(r.client.stampSource, "kernel");
      // the no-scenario run's relay is in the process: its sockets' drops are counted apart
      assert.equal(typeof r.client.udpDrops?.relay, "number", JSON.stringify(r.client.udpDrops));
      assert.equal(r.client.udpDrops?.own, 0, JSON.stringify(r.client.udpDrops));
      // the progress line says which clock its receive lag is against
      for (const l of progress) assert.match(l, /receive lag p99 [\d.]+ ms \(kernel stamps\)/, l);
    }
  } finally {
    tmp.remove();
  }
});
