// Many hosts on loopback (issue 16): a coordinator (`run --agents 2`) and two `whipbench agent`
// processes against the built-in relay in this process. One report with client.hosts[] and
// every viewer accounted for; a wrong token refused; an agent killed mid-run takes only its own
// viewers (agent_lost); a coordinator killed mid-run makes the agents stop within seconds with
// local reports of their own viewers.
import assert from "node:assert/strict";
import { once } from "node:events";
import { writeFileSync } from "node:fs";
import { connect, createServer, type Socket } from "node:net";
import { join } from "node:path";
import { test } from "node:test";
import type { Report } from "../../src/core/report/types.ts";
import { agentsFixture } from "./agents-fixture.ts";
import { type CliRun, cli, freePort, jsonStrings, listDir, readReportPair } from "./cli-harness.ts";
import { checkReportKeys } from "./report-keys.ts";

const TOKEN = "agent-token-SECRET";
const env = { WB_AGENT_TOKEN: TOKEN, WB_WRONG_TOKEN: "not-the-token" };
const fx = agentsFixture("agents", env);

function scenario(name: string, viewers: number, holdSeconds: number): string {
  const file = join(fx.dir, `${name}.json`);
  const s = {
    name,
    whip: `${fx.base}/${name}/whip`,
    whep: `${fx.base}/${name}/whep`,
    viewers,
    rampSeconds: 1,
    holdSeconds,
    warmupSeconds: 0.5,
    joinTimeoutSeconds: 5,
    excludeFirstSeconds: 1,
    loopbackOnly: true,
  };
  writeFileSync(file, JSON.stringify(s));
  return file;
}

function coordinator(file: string, port: number, out: string, extra: string[] = []): CliRun {
  return fx.start([
    "run",
    file,
    "--agents",
    "2",
    "--coordinator-listen",
    `127.0.0.1:${port}`,
    "--token-env",
    "WB_AGENT_TOKEN",
    "--agent-wait",
    "30",
    "--out",
    out,
    "--no-html",
    ...extra,
  ]);
}

function agent(port: number, name: string, out: string, tokenEnv = "WB_AGENT_TOKEN"): CliRun {
  return fx.start([
    "agent",
    "--coordinator",
    `tcp://127.0.0.1:${port}`,
    "--workers",
    "1",
    "--token-env",
    tokenEnv,
    "--name",
    name,
    "--out",
    out,
  ]);
}

function dir(name: string): string {
  return join(fx.dir, name);
}

/** A coordinator and two agents named `names`, 2.5 s into their viewers. */
async function runningPair(
  name: string,
  holdSeconds: number,
  names: [string, string],
): Promise<{ c: CliRun; a: CliRun; b: CliRun; out: string }> {
  const port = await freePort();
  const out = dir(name);
  const c = coordinator(scenario(name, 4, holdSeconds), port, out);
  await c.waitForStderr("waiting up to");
  const a = agent(port, names[0], dir(names[0]));
  const b = agent(port, names[1], dir(names[1]));
  await Promise.all([a.waitForStderr("running 2 viewers"), b.waitForStderr("running 2 viewers")]);
  await new Promise((r) => setTimeout(r, 2500));
  return { c, a, b, out };
}

test("two agents: one report with client.hosts, every viewer accounted for; a wrong token is refused", async () => {
  const port = await freePort();
  const metricsPort = await freePort();
  const out = dir("ok");
  const c = coordinator(scenario("ok", 4, 3), port, out, ["--metrics", `127.0.0.1:${metricsPort}`]);
  await c.waitForStderr("waiting up to");
  // hostile bytes on the control port: each closes its own connection, is counted, and nothing more
  for (const bytes of [Buffer.from([0xff, 0xff, 0xff, 0xff]), Buffer.from("\u0000\u0000\u0000\u0003{x}")]) {
    const sock = connect({ host: "127.0.0.1", port });
    sock.on("error", () => {});
    sock.write(bytes);
    await once(sock, "close");
  }
  const wrong = await agent(port, "intruder", dir("intruder"), "WB_WRONG_TOKEN").done;
  assert.equal(wrong.code, 1, wrong.stderr);
  assert.match(wrong.stderr, /refused by the coordinator: the token does not match/);
  const a = agent(port, "alpha", dir("alpha"));
  const b = agent(port, "beta", dir("beta"));
  // the coordinator serves /metrics for the whole run, the agents' viewers included
  await Promise.all([a.waitForStderr("running 2 viewers"), b.waitForStderr("running 2 viewers")]);
  await new Promise((r) => setTimeout(r, 2000));
  const scrape = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  assert.match(scrape, /^whipbench_viewers_target 4$/m);
  assert.match(scrape, /^whipbench_viewers_started_total [1-4]$/m);
  const [rc, ra, rb] = await Promise.all([c.done, a.done, b.done]);
  assert.equal(rc.code, 0, rc.stderr);
  assert.equal(ra.code, 0, ra.stderr);
  assert.equal(rb.code, 0, rb.stderr);
  const pair = readReportPair(out);
  const r = pair.report as unknown as Report;
  assert.deepEqual(checkReportKeys(r).problems, []);
  assert.match(pair.markdown, /\| client hosts \| (alpha|beta): 2 viewers, 1 worker thread, .* ± /);
  assert.equal(r.viewers?.length, 4);
  assert.deepEqual(
    r.viewers?.map((v) => v.id),
    [0, 1, 2, 3],
  );
  assert.ok(r.viewers?.every((v) => v.joined));
  const hosts = r.client.hosts ?? [];
  assert.deepEqual(hosts.map((h) => h.name).sort(), ["alpha", "beta"]);
  assert.deepEqual(
    hosts.map((h) => h.viewers),
    [2, 2],
  );
  for (const h of hosts) {
    assert.equal(h.clock.method, "exchange");
    assert.ok((h.clock.uncertaintyMs ?? 0) > 0, `${h.name} uncertainty ${h.clock.uncertaintyMs}`);
  }
  assert.equal(r.clock.method, "exchange");
  const u = Math.max(...hosts.map((h) => h.clock.uncertaintyMs ?? 0));
  assert.equal(r.clock.uncertaintyMs, u);
  assert.equal(r.client.agentMessagesRejected, 2);
  const [fp] = r.aggregate.oneWayDelay;
  assert.equal(fp?.available, true, fp?.reason);
  // the largest rtt/2 of loopback exchanges: within 1 ms on a quiet machine, 1.5 and 2.5 ms in 2 of
  // 3 runs at load average 11–15 (the processes wait for a core); above 1 ms the delay must say it
  // may not be ranked (docs/definitions.md#comparability), at or below it must not blame the clock
  const clockReason = /clock uncertainty [\d.]+ ms is above the 1 ms a ranking allows/;
  if (u > 1) assert.match(fp.notComparableReason ?? "", clockReason);
  else assert.doesNotMatch(fp.notComparableReason ?? "", /clock uncertainty/);
  // the token and the control port never reach the report or the coordinator's lines
  for (const text of [JSON.stringify(r), rc.stderr, rc.stdout, ra.stderr]) assert.ok(!text.includes(TOKEN));
  assert.ok(!jsonStrings(r).includes(`:${port}`), `control port ${port} in the report`);
});

test("an agent killed mid-run takes only its own viewers (agent_lost); the report is written", async () => {
  const { c, a, b, out } = await runningPair("killagent", 6, ["stays", "dies"]);
  b.child.kill("SIGKILL");
  const [rc, ra] = await Promise.all([c.done, a.done]);
  assert.equal(ra.code, 0, ra.stderr);
  // half the viewers failed: no verdict under the 10 % rule, and the report is there
  assert.equal(rc.code, 3, rc.stderr);
  assert.match(rc.stderr, /agent dies lost/);
  const r = readReportPair(out).report as unknown as Report;
  assert.equal(r.viewers?.length, 4);
  const lost = r.viewers?.filter((v) => v.errorKind === "agent_lost") ?? [];
  const kept = r.viewers?.filter((v) => v.errorKind === undefined) ?? [];
  assert.equal(lost.length, 2);
  assert.equal(kept.length, 2);
  assert.ok(kept.every((v) => v.joined));
  assert.deepEqual(checkReportKeys(r).problems, []);
  const dead = r.client.hosts?.find((h) => h.name === "dies");
  assert.ok(dead?.lost, "the lost host says why");
  assert.equal(r.errors["agent_lost"], 2);
});

test("a coordinator killed mid-run: the agents stop within seconds and write local reports", async () => {
  const { c, a, b } = await runningPair("killcoord", 20, ["left1", "left2"]);
  c.child.kill("SIGKILL");
  const killedAt = performance.now();
  const [ra, rb] = await Promise.all([a.done, b.done]);
  const tookMs = performance.now() - killedAt;
  assert.ok(tookMs < 10_000, `the agents took ${Math.round(tookMs)} ms to stop`);
  for (const [res, name] of [
    [ra, "left1"],
    [rb, "left2"],
  ] as const) {
    assert.equal(res.code, 3, res.stderr);
    assert.match(res.stderr, /the coordinator is gone/);
    const files = listDir(dir(name));
    assert.ok(
      files.some((f) => f.endsWith("-local.json")),
      `${name}: ${files}`,
    );
    const r = readReportPair(dir(name)).report as unknown as Report;
    assert.equal(r.interrupted, true);
    assert.equal(r.viewers?.length, 2);
    assert.ok(r.viewers?.every((v) => v.joined));
  }
});

test("a coordinator interrupted mid-run stops its agents and still writes the whole report", async () => {
  const { c, a, b, out } = await runningPair("interrupt", 20, ["i1", "i2"]);
  const sentAt = performance.now();
  c.child.kill("SIGINT");
  const [rc, ra, rb] = await Promise.all([c.done, a.done, b.done]);
  assert.ok(performance.now() - sentAt < 15_000, "stopped well before the 20 s hold");
  assert.equal(rc.code, 3, rc.stderr);
  assert.equal(ra.code, 0, ra.stderr);
  assert.equal(rb.code, 0, rb.stderr);
  const r = readReportPair(out).report as unknown as Report;
  assert.equal(r.interrupted, true);
  assert.equal(r.viewers?.length, 4);
  assert.ok(r.viewers?.every((v) => v.joined && v.errorKind !== "agent_lost"));
  assert.deepEqual(
    r.client.hosts?.map((h) => h.lost),
    [undefined, undefined],
  );
});

test("not all agents within --agent-wait: stderr names who came, every viewer agent_missing, exit 3", async () => {
  const port = await freePort();
  const out = dir("missing");
  const file = scenario("missing", 3, 2);
  // the agent first, dialling (it retries every second until the coordinator listens): started
  // after the coordinator, a loaded machine's process start took the whole 3 s wait (here, at
  // load average 10: "only 0 of 2 agents connected")
  const a = agent(port, "solo", dir("solo"));
  await a.waitForStderr("is not reachable yet");
  const c = fx.start([
    ...["run", file, "--agents", "2", "--coordinator-listen", `127.0.0.1:${port}`],
    ...["--token-env", "WB_AGENT_TOKEN", "--agent-wait", "3", "--out", out, "--no-html"],
  ]);
  const [rc, ra] = await Promise.all([c.done, a.done]);
  assert.equal(rc.code, 3, rc.stderr);
  assert.match(rc.stderr, /only 1 of 2 agents connected within 3 s \(solo\); 1 missing/);
  assert.equal(ra.code, 3, ra.stderr);
  assert.match(ra.stderr, /the coordinator cancelled the run: only 1 of 2/);
  const r = readReportPair(out).report as unknown as Report;
  assert.equal(r.viewers?.length, 3);
  assert.ok(r.viewers?.every((v) => v.errorKind === "agent_missing"));
  assert.equal(r.aggregate.valid, false);
});

test("usage: coordinator flags need --agents, --agents needs a publishing scenario, agent needs --coordinator", async () => {
  const file = scenario("usage", 2, 1);
  const noWhip = join(fx.dir, "nowhip.json");
  writeFileSync(
    noWhip,
    JSON.stringify({ whep: `${fx.base}/x/whep`, viewers: 2, rampSeconds: 1, holdSeconds: 1 }),
  );
  for (const [args, want] of [
    [["run", file, "--token-env", "WB_AGENT_TOKEN"], /--token-env needs --agents/],
    [["run", file, "--agent-wait", "5"], /--agent-wait needs --agents/],
    [["run", noWhip, "--agents", "2"], /the scenario needs whip/],
    [
      ["run", file, "--agents", "2", "--token-env", "WB_UNSET_TOKEN"],
      /--token-env WB_UNSET_TOKEN: the variable is empty or unset/,
    ],
    [["run", file, "--agents", "0"], /--agents: want an integer from 1/],
    [["run", file, "--agents", "2", "--workers", "2"], /--workers: with --agents each agent has its own/],
    [["agent", "--workers", "1"], /--coordinator is required/],
    [["agent", "--coordinator", "nohost"], /--coordinator: .*want HOST:PORT/],
    [["agent", "--coordinator", "127.0.0.1:1", "--name", "bad/name"], /--name: want 1–63/],
  ] as const) {
    const res = await cli([...args], { env, timeoutMs: 20_000 });
    assert.equal(res.code, 2, `${args.join(" ")}: ${res.stderr}`);
    assert.match(res.stderr, want);
  }
});

/** A fake coordinator that answers an agent's hello with `reply` frames (raw bytes). */
async function fakeCoordinator(
  reply: (hello: Buffer) => Buffer[],
): Promise<{ port: number; close: () => void }> {
  const socks: Socket[] = [];
  const server = createServer((sock) => {
    socks.push(sock);
    sock.on("error", () => {});
    sock.once("data", (d: Buffer) => {
      for (const b of reply(d)) sock.write(b);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const a = server.address();
  return {
    port: typeof a === "object" && a !== null ? a.port : 0,
    close: () => {
      for (const s of socks) s.destroy();
      server.close();
    },
  };
}

test("an agent survives a hostile coordinator: an oversized frame, a scenario with a publisher and a foreign key", async () => {
  const { encodeFrame, PROTOCOL_VERSION } = await import("../../src/main/agents/wire.ts");
  const { version } = await import("../../src/main/process/version.ts");
  const welcome = {
    type: "welcome",
    protocol: PROTOCOL_VERSION,
    version: version(),
    index: 0,
    clockPort: 9,
    sendLogPort: 9,
  };
  const oversized = await fakeCoordinator(() => [Buffer.from([0xff, 0xff, 0xff, 0xf0])]);
  try {
    const r = await agent(oversized.port, "victim", dir("victim1")).done;
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, /the coordinator sent a malformed message \(a frame of \d+ bytes is over/);
  } finally {
    oversized.close();
  }
  const scenarioKey = await fakeCoordinator(() => [
    encodeFrame(welcome),
    encodeFrame({
      type: "prepare",
      scenario: { whip: "http://x/w", whep: "http://x/e", viewers: 1, holdSeconds: 1, exec: "sh" },
    }),
  ]);
  try {
    const r = await agent(scenarioKey.port, "victim", dir("victim2")).done;
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /cannot run this scenario: scenario: unknown key "exec"/);
    assert.ok(!r.stderr.includes("publishing"), "no publisher ran");
  } finally {
    scenarioKey.close();
  }
});
