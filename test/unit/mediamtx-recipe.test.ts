// The MediaMTX recipe (bench/servers/mediamtx), without a MediaMTX binary (none here, and nothing
// in CI depends on one): the config binds and advertises 127.0.0.1 only with WebRTC alone on; start.sh
// refuses clearly without an executable MEDIAMTX_BIN and otherwise execs it with that config (a
// stand-in binary that prints its arguments); the scenarios are the reference tool's three with
// loopbackOnly; the matrix example runs the recipe's start and health commands.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { accessSync, constants, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { parseMatrix } from "../../src/core/matrix/parse.ts";
import { parseScenario } from "../../src/core/scenario-file/scenario.ts";

const root = new URL("../../", import.meta.url);
const recipe = new URL("bench/servers/mediamtx/", root);
const read = (u: URL) => readFileSync(u, "utf8");
const START = fileURLToPath(new URL("start.sh", recipe));

test("the config: WebRTC only, bound to and advertising 127.0.0.1, no ICE-TCP, any path from loopback", () => {
  const c = parse(read(new URL("mediamtx.yml", recipe))) as Record<string, unknown>;
  assert.equal(c["webrtc"], true);
  for (const off of ["rtsp", "rtmp", "hls", "srt", "api", "metrics", "pprof", "playback"])
    assert.equal(c[off], false, off);
  assert.equal(c["webrtcAddress"], "127.0.0.1:8889");
  assert.equal(c["webrtcLocalUDPAddress"], "127.0.0.1:8189");
  assert.equal(c["webrtcLocalTCPAddress"], "");
  assert.equal(c["webrtcIPsFromInterfaces"], false);
  assert.deepEqual(c["webrtcAdditionalHosts"], ["127.0.0.1"]);
  assert.deepEqual(c["webrtcICEServers2"], []);
  // every listener the file names is on 127.0.0.1 (or off)
  for (const [k, v] of Object.entries(c))
    if (k.endsWith("Address") && v !== "") assert.match(String(v), /^127\.0\.0\.1:\d+$/, k);
  assert.equal(c["authMethod"], "internal");
  const users = c["authInternalUsers"] as {
    user: string;
    pass: unknown;
    ips: string[];
    permissions: unknown[];
  }[];
  assert.equal(users.length, 1);
  assert.equal(users[0]?.user, "any");
  assert.deepEqual(users[0]?.ips, ["127.0.0.1"]);
  assert.deepEqual(users[0]?.permissions, [
    { action: "publish", path: null },
    { action: "read", path: null },
  ]);
  assert.ok("all_others" in (c["paths"] as object), "any path takes a publisher");
});

function start(env: Record<string, string | undefined>) {
  const e = { ...process.env, ...env };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete e[k];
  return spawnSync("bash", [START], { env: e, encoding: "utf8", timeout: 10_000 });
}

test("start.sh: a clear refusal without an executable MEDIAMTX_BIN; else it runs that binary with the config", () => {
  const dir = mkdtempSync(join(tmpdir(), "mediamtx-recipe-"));
  try {
    const unset = start({ MEDIAMTX_BIN: undefined });
    assert.equal(unset.status, 1);
    assert.match(
      unset.stderr,
      /^mediamtx-recipe: error: MEDIAMTX_BIN is not set: set it to a MediaMTX binary/,
    );
    const missing = start({ MEDIAMTX_BIN: join(dir, "no-such-mediamtx") });
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /^mediamtx-recipe: error: MEDIAMTX_BIN is not an executable file: /);
    const plain = join(dir, "not-executable");
    writeFileSync(plain, "", { mode: 0o644 });
    assert.equal(start({ MEDIAMTX_BIN: plain }).status, 1);
    assert.equal(start({ MEDIAMTX_BIN: dir }).status, 1, "a folder");
    // a stand-in for the binary: start.sh hands it the recipe's config, in the foreground
    const fake = join(dir, "mediamtx");
    writeFileSync(fake, '#!/bin/sh\necho "mediamtx $*"\nexit 7\n', { mode: 0o755 });
    const ran = start({ MEDIAMTX_BIN: fake });
    assert.equal(ran.status, 7, "its exit status is the binary's");
    assert.equal(ran.stdout, `mediamtx ${fileURLToPath(new URL("mediamtx.yml", recipe))}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the scenarios: the reference tool's three, loopbackOnly instead of includeLoopback", () => {
  const want = [
    ["mediamtx-local-10", "vp8", 10],
    ["mediamtx-local-50", "vp8", 50],
    ["mediamtx-local-50-h264", "h264", 50],
  ] as const;
  for (const [name, codec, viewers] of want) {
    const text = read(new URL(`scenarios/${name}.json`, recipe));
    const s = parseScenario(text);
    assert.equal(s.name, name);
    assert.equal(s.codec, codec);
    assert.equal(s.viewers, viewers);
    assert.equal(s.whip, "http://127.0.0.1:8889/bench/whip");
    assert.equal(s.whep, "http://127.0.0.1:8889/bench/whep");
    assert.equal(s.loopbackOnly, true);
    assert.ok(!("includeLoopback" in (JSON.parse(text) as object)), `${name}: includeLoopback`);
  }
});

test("the matrix example runs MediaMTX by the recipe's start and health commands", () => {
  const file = new URL("examples/matrix-relays.json", root);
  const m = parseMatrix(read(file));
  const mtx = m.servers.find((s) => s.name === "mediamtx");
  assert.ok(mtx, m.servers.map((s) => s.name).join());
  assert.equal(mtx.whep, "http://127.0.0.1:8889/matrix/whep");
  assert.equal(mtx.whip, "http://127.0.0.1:8889/matrix/whip");
  assert.equal(mtx.start, "../bench/servers/mediamtx/start.sh");
  assert.equal(mtx.health, "../bench/servers/mediamtx/status.sh");
  for (const cmd of [mtx.start, mtx.health]) accessSync(new URL(cmd ?? "", file), constants.X_OK);
});
