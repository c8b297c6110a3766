// `whipbench view` (docs/definitions.md#view) through the CLI against the built-in relay, with the clip published by
// src/main/publisher/publisher.ts in this process (no send log): a valid split report whose one-way delay
// is unavailable for want of a send log and never comparable. Then the docs/definitions.md#report key paths of a `view`
// and of a `run` report against the spec's key lists.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { loadClip } from "../../src/core/clip/clip.ts";
import { takeWallAnchor } from "../../src/core/clock/clock.ts";
import { Publisher, type PublisherResult } from "../../src/main/publisher/publisher.ts";
import { Relay } from "../../src/main/relay/relay.ts";
import type { IceOptions } from "../../src/net/rtc.ts";
import { type CliResult, cli, readReportPair, tempDir, wroteLines } from "./cli-harness.ts";
import { runThroughRelay } from "./harness.ts";
import { checkReportKeys } from "./report-keys.ts";

const ICE: IceOptions = { loopbackOnly: true, includeLoopback: false };
const KEY = "VIEWKEY";
const TOKEN = "VIEWBEARER";
const TOKEN_VAR = "WHIPBENCH_VIEW_TEST_BEARER";
const NO_SEND_LOG =
  "no send log: the send log lives in the `run` process that publishes the clip, and this process published nothing";

const tmp = tempDir("view");
after(() => tmp.remove());

let viewRun: CliResult;
let view: ReturnType<typeof readReportPair>;
let published: PublisherResult;

before(async () => {
  const relay = new Relay({ ice: ICE, token: TOKEN });
  const base = await relay.listen();
  const publisher = new Publisher({
    whip: `${base}/live/whip?key=${KEY}`,
    bearer: TOKEN,
    // H.264, not the scenario default: the view reports the codec its viewers negotiated
    clip: loadClip("h264"),
    ice: ICE,
    noStamp: false,
    sendLog: null,
    anchor: takeWallAnchor(),
  });
  const stop = new AbortController();
  try {
    await publisher.connect();
    const streaming = publisher.stream(stop.signal);
    await relay.ready("live");
    const out = join(tmp.dir, "out");
    viewRun = await cli(
      [
        "view",
        "--whep",
        `${base}/live/whep?key=${KEY}`,
        "-n",
        "2",
        "--ramp",
        "500ms",
        "--duration",
        "2s",
        "--join-timeout",
        "5s",
        "--name",
        "view test",
        "--bearer-env",
        TOKEN_VAR,
        "--loopback-only",
        "--out",
        out,
      ],
      { env: { [TOKEN_VAR]: TOKEN }, timeoutMs: 30_000 },
    );
    stop.abort();
    published = await streaming;
    assert.equal(viewRun.code, 0, `view exit 0; stderr:\n${viewRun.stderr}\nstdout:\n${viewRun.stdout}`);
    view = readReportPair(out);
  } finally {
    stop.abort();
    await publisher.close();
    await relay.close();
  }
});

test("view: valid split report, no send log, clock not measured, never comparable", () => {
  assert.ok(published.framesSent > 60, `publisher sent ${published.framesSent} frames`);
  assert.equal(published.errorKind, undefined);
  const r = view.report as {
    command: string;
    topology: string;
    clock: Record<string, unknown>;
    scenario: Record<string, unknown>;
    publisher?: unknown;
    server: Record<string, unknown>;
    aggregate: {
      valid: boolean;
      verdict: string;
      oneWayDelay: Record<string, unknown>[];
    };
    viewers: { joined: boolean; codec?: string; oneWayDelay: Record<string, unknown>[] }[];
  };
  assert.equal(r.command, "view");
  assert.equal(r.aggregate.verdict, "valid: 2 of 2 viewers joined");
  assert.equal(r.aggregate.valid, true);
  assert.equal(r.topology, "split");
  assert.deepEqual(r.clock, { method: "none", stepDetected: false });
  for (const k of ['"offsetMs"', '"uncertaintyMs"', '"comparable": true', '"whipHost"']) {
    assert.ok(!view.jsonText.includes(k), `a view report has no ${k}`);
  }
  assert.equal(r.publisher, undefined);
  assert.equal(r.scenario["whip"], undefined);
  assert.equal(r.scenario["codec"], "h264", "the codec the viewers negotiated, not the default vp8");
  assert.equal(r.scenario["name"], "view test");
  assert.equal(r.scenario["bearerEnv"], TOKEN_VAR);
  assert.equal(r.scenario["warmupSeconds"], undefined, "no warmup without a publisher");
  assert.match(String(r.server["whepHost"]), /^127\.0\.0\.1:\d+$/);

  const pooled = r.aggregate.oneWayDelay[0]!;
  assert.equal(pooled["source"], "fingerprint");
  assert.equal(pooled["available"], false);
  assert.equal(pooled["reason"], NO_SEND_LOG);
  assert.equal(pooled["ms"], undefined);
  assert.equal(pooled["samples"], 0);
  assert.equal(pooled["loopFrames"], 0);
  assert.equal(pooled["comparable"], false);
  // docs/definitions.md#comparability: an unavailable block's reason comes first; the clock's is on the clock row
  assert.equal(pooled["notComparableReason"], "no figure: the block is unavailable");
  for (const v of r.viewers) {
    assert.equal(v.joined, true);
    assert.equal(v.codec, "h264");
    const b = v.oneWayDelay[0]!;
    assert.equal(b["available"], false);
    assert.equal(b["reason"], NO_SEND_LOG);
    assert.equal(b["completeFrames"], 0, "no reassembly without a send log");
    assert.equal(b["comparable"], false);
  }

  assert.ok(view.markdown.includes("| clock | none — publisher clock not measured |"), view.markdown);
  assert.ok(view.markdown.includes("| topology | split |"));
  assert.match(view.markdown, /, codec h264 \|$/m, "the header names the negotiated codec");
  assert.match(view.markdown, /^# view test$/m);

  const lines = viewRun.stdout.trimEnd().split("\n");
  assert.deepEqual(lines.slice(4), wroteLines(join(tmp.dir, "out"), view), viewRun.stdout);
  assert.equal(lines[0], "valid: 2 of 2 viewers joined");
  assert.equal(lines[1], `one-way delay unavailable: ${NO_SEND_LOG}`);
  assert.match(
    lines[2]!,
    /^join \(first keyframe\) p50 \d+ ms, p95 \d+ ms; loss \d+\.\d{3}%; packet transit /,
  );
  // a view judges what its viewers saw as a run does: no send log is needed
  assert.match(lines[3]!, /^frozen share p50 \d+\.\d\d%, p95 \d+\.\d\d%; \d+ freezes/);
  assert.match(view.jsonName, /^whipbench-\d{8}T\d{6}Z-view-test\.json$/);

  for (const text of [view.jsonText, view.markdown, viewRun.stdout, viewRun.stderr]) {
    for (const secret of [KEY, TOKEN, "key=", "/whep", "/live"]) assert.ok(!text.includes(secret), secret);
  }
  // the HTML inlines a minified chart library whose code holds `e.key=`
  for (const secret of [KEY, TOKEN, "?key=", "/whep", "/live/"])
    assert.ok(!view.html.includes(secret), secret);
});

test("key paths of a view report are the report keys of docs/definitions.md#report (plus documented additions)", () => {
  const { problems, paths } = checkReportKeys(view.report);
  assert.deepEqual(problems, []);
  for (const p of ["publisher", "server.whipHost", "clock.offsetMs", "clock.uncertaintyMs", "interrupted"]) {
    assert.ok(!paths.has(p), `a view report has no ${p}`);
  }
  for (const p of ["timeline", "client.resources", "viewers[].oneWayDelay[].reason", "viewers[].whepFlow"]) {
    assert.ok(paths.has(p), `a view report has ${p}`);
  }
});

test("key paths of a run report are the report keys of docs/definitions.md#report (plus documented additions)", async () => {
  const { report, json } = await runThroughRelay(
    {},
    { viewers: 2, holdSeconds: 2, rampOffsetSeed: 5n, rampOffsetMaxSeconds: 0.2 },
  );
  assert.equal(report.aggregate.valid, true);
  const { problems, paths } = checkReportKeys(JSON.parse(json));
  assert.deepEqual(problems, []);
  for (const p of [
    "publisher",
    "server.whipHost",
    "scenario.whip",
    "scenario.warmupSeconds",
    "scenario.rampOffsetSeed",
    "scenario.rampOffsetMaxSeconds",
    "clock.offsetMs",
    "clock.uncertaintyMs",
    "timeline",
    "viewers[].rampOffsetMs",
    "viewers[].oneWayDelay[].ms",
    "viewers[].oneWayDelay[].frameEnd",
    "aggregate.oneWayDelay[].ms",
    "aggregate.oneWayDelay[].viewersByFrameEnd.*",
    "aggregate.packetTransit.ms",
  ]) {
    assert.ok(paths.has(p), `a run report has ${p}`);
  }
  assert.ok(!paths.has("interrupted"));
});

test("the key checker catches an unknown key, a missing key and a key out of order", () => {
  const good = JSON.parse(view.jsonText) as Record<string, unknown>;
  assert.deepEqual(checkReportKeys(good).problems, []);
  const bad = JSON.parse(view.jsonText) as {
    aggregate: Record<string, unknown>;
    viewers: Record<string, unknown>[];
  };
  bad.viewers[1]!["latencyMs"] = 1;
  delete bad.viewers[0]!["nacksSent"];
  const { valid, ...rest } = bad.aggregate;
  bad.aggregate = { ...rest, valid };
  assert.deepEqual(checkReportKeys(bad).problems.sort(), [
    "aggregate.valid: out of schema order",
    "viewers[0]: missing nacksSent",
    "viewers[1].latencyMs: not a report key (docs/definitions.md#report) nor a documented addition",
  ]);
});
