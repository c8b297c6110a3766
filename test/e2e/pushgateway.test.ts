// `--push-gateway` (src/main/observe/push.ts, docs/definitions.md#pushgateway) against a real
// Prometheus Pushgateway (Debian's prometheus-pushgateway), started here on 127.0.0.1 and stopped
// by its PID: a run pushes every interval while it lasts and its final values at the end, under
// its job and instance labels, with the bearer token from the variable --push-token-env names (a
// front on 127.0.0.1 checks the header and passes the request on); the series are then read back
// from the gateway and equal the report's figures. Without the binary the tests are skipped, unless
// WHIPBENCH_PUSHGATEWAY_REQUIRED=1 (CI) makes that a failure.
import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { CapacityReport } from "../../src/core/capacity/types.ts";
import { DEFAULT_CEILING } from "../../src/core/report/ceiling.ts";
import { capacityCommand } from "../../src/main/capacity/capacity-command.ts";
import { Relay } from "../../src/main/relay/relay.ts";
import { cli, freePort, listDir, readReportPair, tempDir } from "./cli-harness.ts";

const BINARY = "prometheus-pushgateway";
const REQUIRED = process.env["WHIPBENCH_PUSHGATEWAY_REQUIRED"] === "1";
const TOKEN = "PUSHTOKEN-5f1c";
const TOKEN_VAR = "WHIPBENCH_PUSH_TEST_TOKEN";

function missing(): string | null {
  const r = spawnSync(BINARY, ["--version"], { encoding: "utf8" });
  return r.error ? `${BINARY} is not on PATH (apt-get install prometheus-pushgateway)` : null;
}

const skip = missing();
const tmp = tempDir("pushgateway");
let gateway: ChildProcess | null = null;
let gatewayUrl = "";

interface Seen {
  method: string;
  path: string;
  authorization: string;
  body: string;
}

/** A front that records each request and passes it on to the gateway. */
async function front(seen: Seen[]): Promise<{ url: string; server: Server }> {
  const target = new URL(gatewayUrl);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      seen.push({
        method: req.method ?? "",
        path: req.url ?? "",
        authorization: req.headers.authorization ?? "",
        body: body.toString("utf8"),
      });
      const headers = { ...req.headers };
      delete headers.authorization;
      const up = request(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers },
        (r) => {
          res.writeHead(r.statusCode ?? 502, r.headers);
          r.pipe(res);
        },
      );
      up.on("error", () => res.writeHead(502).end());
      up.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

before(async () => {
  if (skip !== null) return;
  const port = await freePort();
  gatewayUrl = `http://127.0.0.1:${port}`;
  gateway = spawn(BINARY, [`--web.listen-address=127.0.0.1:${port}`], { stdio: "ignore" });
  for (let i = 0; i < 100; i++) {
    const ready = await fetch(`${gatewayUrl}/-/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("the Pushgateway did not become ready in 10 s");
});

after(() => {
  if (gateway?.pid !== undefined) process.kill(gateway.pid, "SIGTERM");
  tmp.remove();
});

/** `name{instance="…",job="…"} value` of the gateway's exposition, as numbers by name. */
function series(text: string, job: string, instance: string): Map<string, number> {
  const out = new Map<string, number>();
  const labels = `{instance="${instance}",job="${job}"}`;
  for (const line of text.split("\n")) {
    const i = line.indexOf(labels);
    if (i > 0 && !line.startsWith("#")) out.set(line.slice(0, i), Number(line.slice(i + labels.length)));
  }
  return out;
}

test("a run pushes while it lasts and at its end; the gateway holds the report's figures", async (t) => {
  if (skip !== null) {
    if (REQUIRED) assert.fail(`WHIPBENCH_PUSHGATEWAY_REQUIRED=1 but ${skip}`);
    return t.skip(skip);
  }
  const seen: Seen[] = [];
  const f = await front(seen);
  const out = join(tmp.dir, "run");
  let r: Awaited<ReturnType<typeof cli>>;
  try {
    r = await cli(
      ["run", "-n", "2", "--ramp", "0s", "--hold", "4s", "--workers", "0", "--no-html", "--out", out].concat([
        "--push-gateway",
        `${f.url}/`,
        "--push-interval",
        "1s",
        "--push-job",
        "whipbench-ci",
        "--push-instance",
        "wb-test",
        "--push-token-env",
        TOKEN_VAR,
      ]),
      { env: { [TOKEN_VAR]: TOKEN }, timeoutMs: 60_000 },
    );
  } finally {
    f.server.close();
  }
  assert.equal(r.code, 0, r.stderr);
  const puts = seen.filter((s) => s.method === "PUT");
  // ~8 s of publisher warm-up, ramp and hold at one push a second, then the final one
  assert.ok(puts.length >= 4, `${puts.length} pushes: ${r.stderr}`);
  for (const p of puts) {
    assert.equal(p.path, "/metrics/job/whipbench-ci/instance/wb-test");
    assert.equal(p.authorization, `Bearer ${TOKEN}`);
  }
  assert.match(puts[0]!.body, /^whipbench_viewers_target 2$/m, "a push while the run lasts");
  assert.match(r.stderr, /pushed the final metrics to the Pushgateway at 127\.0\.0\.1:\d+ \(\d+ pushes\)/);

  const text = await (await fetch(`${gatewayUrl}/metrics`)).text();
  const got = series(text, "whipbench-ci", "wb-test");
  const { report, jsonText, markdown } = readReportPair(out);
  const agg = report["aggregate"] as { joined: number };
  const pub = report["publisher"] as { framesSent: number; packetsSent: number };
  assert.equal(got.get("whipbench_viewers_target"), 2);
  assert.equal(got.get("whipbench_viewers_joined_total"), agg.joined);
  assert.equal(got.get("whipbench_publisher_frames_sent_total"), pub.framesSent, "the final values");
  assert.equal(got.get("whipbench_publisher_rtp_packets_sent_total"), pub.packetsSent);
  assert.ok((got.get("push_time_seconds") ?? 0) > 0, "the gateway's own stamp of the push");
  for (const text of [r.stdout, r.stderr, jsonText, markdown])
    assert.ok(!text.includes(TOKEN), "the token printed");
});

test("a gateway that cannot be reached: one line on stderr, the run and its verdict unchanged", async (t) => {
  if (skip !== null) {
    if (REQUIRED) assert.fail(`WHIPBENCH_PUSHGATEWAY_REQUIRED=1 but ${skip}`);
    return t.skip(skip);
  }
  const dead = await freePort();
  const out = join(tmp.dir, "dead");
  const r = await cli(
    ["run", "-n", "1", "--ramp", "0s", "--hold", "2s", "--workers", "0", "--no-html", "--out", out].concat([
      "--push-gateway",
      `http://127.0.0.1:${dead}/`,
      "--push-interval",
      "1s",
    ]),
    { timeoutMs: 60_000 },
  );
  assert.equal(r.code, 0, r.stderr);
  const failures = r.stderr.split("\n").filter((l) => l.includes("push to the Pushgateway"));
  assert.equal(failures.length, 1, r.stderr);
  assert.match(failures[0]!, new RegExp(`at 127\\.0\\.0\\.1:${dead} failed: connection refused$`));
  assert.doesNotMatch(r.stderr, /pushed the final metrics/);
});

test("a capacity search pushes each step's metrics while it lasts, with the step it runs", async (t) => {
  if (skip !== null) {
    if (REQUIRED) assert.fail(`WHIPBENCH_PUSHGATEWAY_REQUIRED=1 but ${skip}`);
    return t.skip(skip);
  }
  const relay = new Relay({ ice: { loopbackOnly: true, includeLoopback: false } });
  const base = await relay.listen();
  const seen: Seen[] = [];
  const f = await front(seen);
  const out = join(tmp.dir, "capacity");
  const file = join(tmp.dir, "capacity.json");
  // two steps that pass (2, then 4 = max ends the search), each held 6 s
  writeFileSync(
    file,
    JSON.stringify({
      whip: `${base}/s/whip`,
      whep: `${base}/s/whep`,
      viewers: 1,
      rampSeconds: 1,
      holdSeconds: 1,
      warmupSeconds: 0.5,
      loopbackOnly: true,
      // a busy machine's join takes longer than the default allows; the subject is the push
      joinTimeoutSeconds: 20,
      thresholds: { loss: "< 50%" },
      capacity: { start: 2, max: 4, growth: 2, resolution: 1, stepSeconds: 6, settleSeconds: 1 },
    }),
  );
  // the subject is the push, not the client's guard: its thresholds out of reach on a busy machine
  const loose = {
    ...DEFAULT_CEILING,
    eventLoopUtilisation: 2, // above any thread's (at most 1): the rule is ≥
    eventLoopDelayP99Ms: 10_000,
    receiveLagFloorMs: 10_000,
    keepUpWaitP50Ms: 10_000,
    publisherSendLagP99Ms: 10_000,
    receiveLagShareOfDelay: 10_000,
    threadStampedShare: 1,
  };
  process.env[TOKEN_VAR] = TOKEN;
  let code: number;
  try {
    code = await capacityCommand(
      file,
      {
        out,
        workers: 0,
        quiet: true,
        html: false,
        pushGateway: `${f.url}/`,
        pushInterval: 1e9,
        pushJob: "whipbench-capacity",
        pushInstance: "cap-test",
        pushTokenEnv: TOKEN_VAR,
      },
      { ceiling: loose, stdout: () => {} },
    );
  } finally {
    delete process.env[TOKEN_VAR];
    f.server.close();
    await relay.close();
  }
  const json = listDir(out).find((n) => n.startsWith("whipbench-capacity-") && n.endsWith(".json"));
  const report = JSON.parse(readFileSync(join(out, json ?? ""), "utf8")) as CapacityReport;
  assert.equal(code, 0, `${report.result.summary} ${JSON.stringify(report.result.clientEvidence ?? [])}`);
  assert.deepEqual(
    report.steps.map((s) => [s.viewers, s.outcome]),
    [
      [2, "pass"],
      [4, "pass"],
    ],
  );
  const puts = seen.filter((s) => s.method === "PUT");
  for (const p of puts) {
    assert.equal(p.path, "/metrics/job/whipbench-capacity/instance/cap-test");
    assert.equal(p.authorization, `Bearer ${TOKEN}`);
  }
  // each step pushed while it ran (a 1 s interval, each step ≥ 7 s), under its own viewer target
  const during = (step: number, viewers: number) =>
    puts.filter(
      (p) =>
        p.body.includes(`\nwhipbench_capacity_step ${step}\n`) &&
        p.body.includes(`\nwhipbench_capacity_step_viewers ${viewers}\n`) &&
        p.body.includes(`\nwhipbench_viewers_target ${viewers}\n`),
    ).length;
  assert.ok(during(1, 2) >= 2, `step 1: ${during(1, 2)} pushes`);
  assert.ok(during(2, 4) >= 2, `step 2: ${during(2, 4)} pushes`);

  // what the gateway holds at the end: the last step's final figures and both steps counted
  const text = await (await fetch(`${gatewayUrl}/metrics`)).text();
  const got = series(text, "whipbench-capacity", "cap-test");
  const last = JSON.parse(readFileSync(join(out, report.steps[1]?.report ?? ""), "utf8")) as {
    aggregate: { joined: number };
  };
  assert.equal(got.get("whipbench_capacity_step"), 2);
  assert.equal(got.get("whipbench_capacity_step_viewers"), 4);
  assert.equal(got.get("whipbench_viewers_target"), 4);
  assert.equal(got.get("whipbench_viewers_joined_total"), last.aggregate.joined);
  const ended = (outcome: string) => {
    const m = new RegExp(
      `^whipbench_capacity_steps_total\\{instance="cap-test",job="whipbench-capacity",outcome="${outcome}"\\} (\\d+)$`,
      "m",
    ).exec(text);
    return m === null ? undefined : Number(m[1]);
  };
  assert.equal(ended("pass"), 2);
  assert.equal(ended("fail"), 0);
  assert.ok((got.get("whipbench_publisher_frames_sent_total") ?? 0) > 0, "the publisher's counters");
});

test("capacity: a push flag without --push-gateway is exit 2 naming it", async () => {
  const file = join(tmp.dir, "capacity-flags.json");
  writeFileSync(
    file,
    JSON.stringify({
      whep: "http://127.0.0.1:1/s/whep",
      viewers: 1,
      holdSeconds: 1,
      thresholds: { loss: "< 1%" },
    }),
  );
  const r = await cli(["capacity", file, "--push-instance", "x", "--out", join(tmp.dir, "cap-flags")]);
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stderr.split("\n").at(-2), "whipbench capacity: --push-instance needs --push-gateway");
});
