// `run`'s flags for the main scenario keys (src/main/cli/scenario-flags.ts,
// docs/definitions.md#run-flags) through the real CLI: over the built-in relay's default scenario,
// over a scenario file's keys (its endpoints too), the report's scenario the one that ran; each bad
// value exits 2 with one line naming the flag; `capacity` takes only the keys a search leaves.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { Relay } from "../../src/main/relay/relay.ts";
import { cli, readReportPair, tempDir } from "./cli-harness.ts";

const tmp = tempDir("cli-key-flags");
after(() => tmp.remove());

type Scenario = Record<string, unknown>;

test("run without a scenario: the flags over the built-in relay's default, recorded in the report", async () => {
  const out = join(tmp.dir, "default");
  const r = await cli(
    ["run", "-n", "3", "--ramp", "500ms", "--hold", "2s", "--codec", "h264", "--audio"].concat([
      "--workers",
      "0",
      "--no-html",
      "--out",
      out,
    ]),
    { timeoutMs: 60_000 },
  );
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /no scenario given: 3 H264 viewers with audio through the built-in relay/);
  const { report } = readReportPair(out);
  const s = report["scenario"] as Scenario;
  assert.deepEqual(
    [s["name"], s["viewers"], s["rampSeconds"], s["holdSeconds"], s["codec"], s["audio"]],
    ["built-in-relay", 3, 0.5, 2, "h264", true],
  );
  assert.equal(
    (report["publisher"] as { codec: string }).codec,
    "h264",
    "the publisher sent what --codec asked",
  );
  assert.equal((report["aggregate"] as { joined: number }).joined, 3);
});

test("run with a scenario file: the flags replace its keys, its endpoints too, and a line says which", async () => {
  const relay = new Relay({ ice: { loopbackOnly: true, includeLoopback: false } });
  const base = await relay.listen("127.0.0.1", 0);
  const file = join(tmp.dir, "scenario.json");
  // the file's endpoints lead nowhere: only the flags' reach the relay
  const scenario = {
    name: "from-file",
    whip: "http://127.0.0.1:9/s/whip",
    whep: "http://127.0.0.1:9/s/whep",
    viewers: 50,
    rampSeconds: 30,
    holdSeconds: 600,
    audio: true,
    loopbackOnly: true,
  };
  writeFileSync(file, JSON.stringify(scenario));
  const out = join(tmp.dir, "file");
  try {
    const r = await cli(
      [
        "run",
        file,
        "--whip",
        `${base}/f/whip`,
        "--whep",
        `${base}/f/whep`,
        "--viewers",
        "2",
        "--ramp",
        "0s",
        "--hold",
        "1500ms",
        "--no-audio",
        "--workers",
        "0",
        "--no-html",
        "--out",
        out,
      ],
      { timeoutMs: 60_000 },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stderr,
      /scenario keys set by flags: whip, whep, viewers, rampSeconds, holdSeconds, audio\n/,
    );
    const { report } = readReportPair(out);
    const s = report["scenario"] as Scenario;
    assert.deepEqual(
      [s["name"], s["viewers"], s["rampSeconds"], s["holdSeconds"], s["codec"], s["audio"]],
      ["from-file", 2, 0, 1.5, "vp8", undefined],
    );
    assert.equal((report["aggregate"] as { joined: number }).joined, 2);
  } finally {
    await relay.close();
  }
});

test("run without a scenario, with --whip and --whep: the default against that server, no relay", async () => {
  const relay = new Relay({ ice: { loopbackOnly: true, includeLoopback: false } });
  const base = await relay.listen("127.0.0.1", 0);
  const out = join(tmp.dir, "endpoints");
  try {
    const r = await cli(
      ["run", "--whip", `${base}/e/whip`, "--whep", `${base}/e/whep`, "-n", "1", "--hold", "1s"].concat([
        "--workers",
        "0",
        "--no-html",
        "--out",
        out,
      ]),
      { timeoutMs: 60_000 },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /no scenario given: 1 VP8 viewers, publishing to --whip, viewing --whep\n/);
    const s = readReportPair(out).report["scenario"] as Scenario;
    // the relay's name and its loopback-only ICE are not the given server's
    assert.deepEqual(
      [s["name"], s["loopbackOnly"], s["viewers"], s["holdSeconds"]],
      [undefined, undefined, 1, 1],
    );
    assert.match(String(s["whip"]), /^127\.0\.0\.1:\d+$/);
  } finally {
    await relay.close();
  }
});

test("bad values of the key flags and the push flags: exit 2, one line naming the flag, no URL echoed", async () => {
  const file = join(tmp.dir, "bad.json");
  writeFileSync(file, JSON.stringify({ whep: "http://127.0.0.1:9/s/whep", viewers: 2, holdSeconds: 1 }));
  const out = join(tmp.dir, "bad-out");
  const cases: [string[], RegExp][] = [
    [["run", "-n", "0"], /^whipbench run: -n\/--viewers: want an integer from 1 to 10000$/],
    [["run", "--viewers", "many"], /^whipbench run: -n\/--viewers: want an integer$/],
    [["run", "-n", "10001"], /^whipbench run: -n\/--viewers: want an integer from 1 to 10000$/],
    [["run", "--ramp", "5"], /^whipbench run: --ramp: want a duration such as 300ms, 10s or 1m30s$/],
    [["run", "--ramp=-1s"], /^whipbench run: --ramp: want a duration such as 300ms, 10s or 1m30s$/],
    [["run", "--hold", "0s"], /^whipbench run: --hold: must be positive$/],
    [["run", file, "--codec", "av1"], /^whipbench run: .*--codec.*av1/],
    [["run", file, "--whip", "ftp://u:SECRET@h/x"], /^whipbench run: --whip must be an http\(s\) URL$/],
    [
      ["run", "--whep", "http://127.0.0.1:9/whep"],
      /^whipbench run: --whip and --whep: without a scenario file give both/,
    ],
    [
      ["run", file, "--push-gateway", "ftp://u:SECRET@h/"],
      /^whipbench run: --push-gateway must be an http\(s\) URL$/,
    ],
    [
      ["run", file, "--push-gateway", "http://127.0.0.1:9/", "--push-interval", "100ms"],
      /^whipbench run: --push-interval: at least 1s$/,
    ],
    [
      ["run", file, "--push-gateway", "http://127.0.0.1:9/", "--push-token-env", "WHIPBENCH_KEY_FLAGS_UNSET"],
      /^whipbench run: --push-token-env WHIPBENCH_KEY_FLAGS_UNSET: the variable is empty or unset$/,
    ],
    [
      ["view", "--whep", "http://127.0.0.1:9/w", "--push-instance", "x"],
      /^whipbench view: --push-instance needs --push-gateway$/,
    ],
    [["capacity", file, "--ramp", "soon"], /^whipbench capacity: --ramp: want a duration/],
    [["capacity", file, "-n", "5"], /^whipbench capacity: unknown option '-n'/],
    [["capacity", file, "--hold", "5s"], /^whipbench capacity: unknown option '--hold'/],
  ];
  for (const [args, want] of cases) {
    const r = await cli([...args, "--out", out], { timeoutMs: 20_000 });
    const label = `${args.join(" ")}: ${r.stderr}`;
    assert.equal(r.code, 2, label);
    assert.equal(r.stdout, "", label);
    // commander's own "unknown option" may add a "Did you mean" line
    if (!want.source.includes("unknown option"))
      assert.equal(r.stderr.split("\n").length, 2, `one line: ${label}`);
    assert.match(r.stderr.split("\n")[0] ?? "", want, label);
    assert.ok(!r.stderr.includes("SECRET"), label);
  }
});
