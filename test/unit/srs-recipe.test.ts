// The SRS recipe (bench/servers/srs) and the matrix example that names it: the scenario is a valid
// H.264 scenario on SRS's WHIP and WHEP endpoints, the config sets what the README says matters,
// the matrix example's servers all run its H.264 scenarios (SRS takes nothing else) and its
// commands exist, and nothing in the recipe builds SRS from source.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { test } from "node:test";
import { parseMatrix } from "../../src/core/matrix/parse.ts";
import { parseScenario } from "../../src/core/scenario-file/scenario.ts";

const root = new URL("../../", import.meta.url);
const recipe = new URL("bench/servers/srs/", root);
const read = (u: URL) => readFileSync(u, "utf8");

test("the SRS scenario: H.264 on the API's WHIP and WHEP endpoints, on loopback", () => {
  const s = parseScenario(read(new URL("scenarios/srs-h264-10.json", recipe)));
  assert.equal(s.codec, "h264");
  assert.match(s.whip ?? "", /^http:\/\/127\.0\.0\.1:1985\/rtc\/v1\/whip\/\?app=live&stream=\w+$/);
  assert.match(s.whep, /^http:\/\/127\.0\.0\.1:1985\/rtc\/v1\/whep\/\?app=live&stream=\w+$/);
  assert.equal(new URL(s.whip ?? "").searchParams.get("stream"), new URL(s.whep).searchParams.get("stream"));
  assert.equal(s.loopbackOnly, true);
});

test("the SRS config: the API on 127.0.0.1:1985, one 127.0.0.1 candidate, WebRTC on, no bridging", () => {
  const conf = read(new URL("whipbench.conf", recipe));
  for (const line of [
    /http_api \{\s+enabled\s+on;\s+listen\s+127\.0\.0\.1:1985;/,
    /candidate\s+127\.0\.0\.1;/,
    /use_auto_detect_network_ip off;/,
    /api_as_candidates off;/,
    /rtc \{\s+enabled\s+on;\s+rtmp_to_rtc off;\s+rtc_to_rtmp off;/,
    /^daemon\s+off;$/m,
  ])
    assert.match(conf, line);
});

test("nothing in the recipe builds SRS: it runs an image or a binary the user has", () => {
  for (const f of readdirSync(recipe)) {
    const u = new URL(f, recipe);
    if (statSync(u).isDirectory()) continue;
    assert.doesNotMatch(read(u), /\bgit clone\b|\.\/configure\b|\bmake\b -j/, f);
  }
  assert.match(read(new URL("start.sh", recipe)), /ossrs\/srs:6/);
});

test("the matrix example: SRS beside the relay and Janus, H.264 scenarios, its commands there", () => {
  const file = new URL("examples/matrix-relays.json", root);
  const m = parseMatrix(read(file));
  const names = m.servers.map((s) => s.name);
  assert.ok(
    names.includes("srs 6") && names.includes("relay") && names.includes("janus 1.1.2"),
    names.join(),
  );
  for (const sc of m.scenarios) assert.equal(sc.scenario?.["codec"], "h264", sc.name);
  const srs = m.servers.find((s) => s.name === "srs 6");
  assert.match(srs?.whip ?? "", /\/rtc\/v1\/whip\//);
  for (const server of m.servers)
    for (const cmd of [server.start, server.health, server.stop]) {
      const script = /^(\.\.\/\S+\.sh)$/.exec(cmd ?? "")?.[1];
      if (script !== undefined) assert.ok(existsSync(new URL(script, file)), `${server.name}: ${script}`);
    }
});
