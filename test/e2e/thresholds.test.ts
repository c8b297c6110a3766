// Thresholds through the real CLI and the built-in relay (issue 14): a run whose thresholds pass
// exits 0, one with a failed threshold exits 99 and writes JUnit and a CI summary, an abortOnFail
// threshold stops a run early against a relay made to drop packets, and a bad threshold is exit 2.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Relay } from "../../src/main/relay/relay.ts";
import { cli, listDir, readReportPair, tempDir } from "./cli-harness.ts";

const tmp = tempDir("thresholds");
after(() => tmp.remove());

function scenarioFile(name: string, body: Record<string, unknown>): string {
  const path = join(tmp.dir, name);
  writeFileSync(path, JSON.stringify(body, null, 2));
  return path;
}

function short(base: string, stream: string, over: Record<string, unknown>): Record<string, unknown> {
  return {
    name: stream,
    whip: `${base}/${stream}/whip`,
    whep: `${base}/${stream}/whep`,
    viewers: 2,
    rampSeconds: 0,
    holdSeconds: 4,
    warmupSeconds: 0.3,
    joinTimeoutSeconds: 5,
    excludeFirstSeconds: 0,
    loopbackOnly: true,
    ...over,
  };
}

interface Judged {
  figure: string;
  condition: string;
  observed?: number;
  unavailable?: string;
  pass: boolean;
  stoppedRun?: { atS: number; liveObserved: number };
}

describe("thresholds (CLI, built-in relay)", () => {
  let relay: Relay;
  let dropping: Relay;
  let base = "";
  let dropBase = "";
  before(async () => {
    relay = new Relay({ ice: { loopbackOnly: true, includeLoopback: false } });
    base = await relay.listen("127.0.0.1", 0);
    dropping = new Relay({ ice: { loopbackOnly: true, includeLoopback: false }, dropEvery: 50 });
    dropBase = await dropping.listen("127.0.0.1", 0);
  });
  after(async () => {
    await relay.close();
    await dropping.close();
  });

  test("all thresholds pass: exit 0, thresholds[] in the report", async () => {
    const out = join(tmp.dir, "pass");
    const file = scenarioFile(
      "pass.json",
      short(base, "pass", {
        thresholds: { "oneWayDelay.p95": "< 5s", failedViewers: "== 0", "join.p95": "< 10s", loss: "< 50%" },
      }),
    );
    const r = await cli(["run", file, "--out", out, "--quiet", "--no-html"], { timeoutMs: 40_000 });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout.split("\n")[0] ?? "", /^valid, 4 of 4 thresholds passed: 2 of 2 viewers joined$/);
    const pair = readReportPair(out);
    const list = pair.report.thresholds as Judged[];
    assert.deepEqual(
      list.map((x) => [x.figure, x.pass]),
      [
        ["oneWayDelay.p95", true],
        ["failedViewers", true],
        ["join.p95", true],
        ["loss", true],
      ],
    );
    assert.equal(typeof list[0]?.observed, "number");
    assert.match(pair.markdown, /## Thresholds/);
  });

  test("a failed threshold: exit 99, JUnit and summary written, the HTML has the section", async () => {
    const out = join(tmp.dir, "fail");
    const junit = join(tmp.dir, "junit.xml");
    const summary = join(tmp.dir, "summary.md");
    const file = scenarioFile(
      "fail.json",
      short(base, "fail", {
        thresholds: { "oneWayDelay.p95": "< 5s", "failedViewers.percent": "> 50%", "receiveLag.p99": "< 1s" },
      }),
    );
    const r = await cli(["run", file, "--out", out, "--quiet", "--junit", junit, "--summary-md", summary], {
      timeoutMs: 40_000,
    });
    assert.equal(r.code, 99, r.stderr);
    assert.match(r.stdout.split("\n")[0] ?? "", /^valid, 1 of 3 thresholds failed: 2 of 2 viewers joined$/);
    assert.match(r.stdout, new RegExp(`wrote ${junit.replace(/[.]/g, "\\.")}`));
    const xml = readFileSync(junit, "utf8");
    assert.match(
      xml,
      /<testcase classname="whipbench.thresholds" name="failedViewers.percent &gt; 50%" time="0">\n\s+<failure type="threshold" message="observed 0.000%, wanted &gt; 50%">/,
    );
    assert.match(
      readFileSync(summary, "utf8"),
      /\| \*\*FAIL\*\* \| `failedViewers.percent` \| `> 50%` \| 0\.000% \|/,
    );
    const pair = readReportPair(out);
    assert.match(pair.html, /<section id="thresholds" class="card"><h2>Thresholds<\/h2>/);
    // the viewer threads stamp every datagram, so the client's receive lag is a measured figure
    const lag = (pair.report.thresholds as Judged[]).find((x) => x.figure === "receiveLag.p99");
    assert.equal(typeof lag?.observed, "number", JSON.stringify(lag));
    assert.equal(lag?.pass, true);
  });

  test("abortOnFail stops a run early against a dropping relay; the report says which and when", async () => {
    const out = join(tmp.dir, "abort");
    const file = scenarioFile(
      "abort.json",
      short(dropBase, "abort", {
        holdSeconds: 30,
        thresholds: {
          "oneWayDelay.p50": { condition: "< 0.001ms", abortOnFail: true, delayAbortEval: "3s" },
          failedViewers: "== 0",
        },
      }),
    );
    const t0 = Date.now();
    const r = await cli(["run", file, "--out", out, "--no-html"], { timeoutMs: 40_000 });
    const wallS = (Date.now() - t0) / 1000;
    assert.equal(r.code, 99, r.stderr);
    assert.ok(wallS < 20, `stopped early: ${wallS} s for a 30 s hold`);
    assert.match(r.stderr, /threshold oneWayDelay\.p50 < 0\.001ms failed live at \d+ s: stopping the run/);
    const pair = readReportPair(out);
    assert.equal(pair.report.interrupted, undefined, "a threshold stop is not an interrupt");
    const [stopper, other] = pair.report.thresholds as Judged[];
    assert.equal(stopper?.pass, false);
    assert.ok((stopper?.stoppedRun?.atS ?? 0) >= 3, "not judged before delayAbortEval");
    assert.ok((stopper?.stoppedRun?.liveObserved ?? 0) > 0.001);
    assert.equal(other?.pass, true);
    assert.match(
      (pair.report.aggregate as { verdict: string }).verdict,
      /^valid, 1 of 2 thresholds failed; stopped at \d+ s by oneWayDelay\.p50 < 0\.001ms \(live [\d.]+ ms\): 2 of 2 viewers joined$/,
    );
    assert.ok(
      (pair.report.method as string[]).some((m) =>
        m.startsWith("abortOnFail thresholds are also judged live"),
      ),
    );
  });

  test("a bad threshold is exit 2 naming the key, before any run", async () => {
    const out = join(tmp.dir, "bad");
    const file = scenarioFile("bad.json", short(base, "bad", { thresholds: { "oneWayDelay.p95": "< 40" } }));
    const r = await cli(["run", file, "--out", out], { timeoutMs: 20_000 });
    assert.equal(r.code, 2);
    assert.equal(
      r.stderr,
      'whipbench run: scenario: thresholds["oneWayDelay.p95"]: condition "< 40" needs a time (ms or s, e.g. 40ms)\n',
    );
    assert.deepEqual(listDir(out), []);
  });
});
