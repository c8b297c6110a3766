// The command line as a user meets it (docs/definitions.md#command-line; the reference tool's "cmd" checks): the real bin/whipbench.js in a child
// process. Usage errors exit 2 with one line and write nothing; a full `run` through the
// built-in relay (living in this process) writes the report pair (and our HTML beside it, when
// on) with no secret in them or on the console and prints the docs/definitions.md#console-output lines; SIGINT ends a run with a report marked interrupted, and
// a second SIGINT exits at once.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fmtFixed } from "../../src/core/go-compat/fmt.ts";
import { renderLine } from "../../src/core/report/headline.ts";
import type { Aggregate } from "../../src/core/report/types.ts";
import { rampOffsetsNs } from "../../src/core/stats/splitmix.ts";
import { Relay } from "../../src/main/relay/relay.ts";
import {
  type CliResult,
  cli,
  listDir,
  readReportPair,
  startCli,
  tempDir,
  wroteLines,
} from "./cli-harness.ts";

const QUERY_KEY = "CLIKEY";
const BEARER = "BEARERCLI";
const BEARER_VAR = "WHIPBENCH_CLI_TEST_BEARER";
// "/whip" is a secret path only where it is not the start of a report file name
const SECRETS: (string | RegExp)[] = [QUERY_KEY, BEARER, "key=", "/whep", /\/whip(?!bench-)/];

const tmp = tempDir("cli");
after(() => tmp.remove());

/** Writes a scenario file into the test's temporary directory and returns its path. */
function scenarioFile(name: string, body: Record<string, unknown> | string): string {
  const path = join(tmp.dir, name);
  writeFileSync(path, typeof body === "string" ? body : JSON.stringify(body, null, 2));
  return path;
}

/** Exit 2, nothing on stdout, exactly one stderr line starting `whipbench <cmd>:`, no stack trace. */
function assertUsageError(r: CliResult, cmd: string, mention: string | RegExp): void {
  assert.equal(r.code, 2, `exit code; stderr: ${r.stderr}`);
  assert.equal(r.stdout, "");
  const lines = r.stderr.trimEnd().split("\n");
  assert.equal(lines.length, 1, `one line, got: ${r.stderr}`);
  assert.ok(lines[0]!.startsWith(`whipbench ${cmd}: `), lines[0]);
  assert.doesNotMatch(r.stderr, /^\s+at /m, "no stack trace");
  if (typeof mention === "string") assert.ok(r.stderr.includes(mention), `want ${mention} in: ${r.stderr}`);
  else assert.match(r.stderr, mention);
}

function assertNoSecret(where: string, text: string): void {
  // the HTML inlines a minified chart library whose code holds `e.key=`: there, a query
  // string is what `key=` would reveal
  const secrets = where === "HTML" ? SECRETS.map((s) => (s === "key=" ? /[?&]key=/ : s)) : SECRETS;
  for (const s of secrets) {
    const found = typeof s === "string" ? text.includes(s) : s.test(text);
    assert.ok(!found, `${where} contains ${String(s)}`);
  }
}

// A WHEP URL nothing listens on: usage errors must be caught before any request is made.
const NOWHERE = "http://127.0.0.1:9/s/whep";

describe("usage", () => {
  let noArgs: Promise<CliResult> | null = null;
  const withoutArguments = () => {
    noArgs ??= cli([]);
    return noArgs;
  };

  test("no arguments: usage text on stderr, exit 2", async () => {
    const r = await withoutArguments();
    assert.equal(r.code, 2);
    assert.equal(r.stdout, "");
    assert.match(r.stderr, /^Usage: whipbench /);
    for (const c of ["run", "view", "publish", "relay", "version"]) {
      assert.match(r.stderr, new RegExp(`^  ${c}\\b`, "m"), `lists ${c}`);
    }
  });

  test("no arguments: the usage ends with the etiquette rule (docs/definitions.md#command-line)", async () => {
    const r = await withoutArguments();
    assert.match(r.stderr, /written permission/);
    assert.match(r.stderr, /hosts only/);
  });

  test("unknown command: exit 2, names it, nothing on stdout", async () => {
    const r = await cli(["bogus"]);
    assert.equal(r.code, 2);
    assert.equal(r.stdout, "");
    assert.match(r.stderr, /unknown command/);
    assert.match(r.stderr, /bogus/);
    assert.doesNotMatch(r.stderr, /^\s+at /m);
  });

  test("version, --version and -v print `whipbench v…` and exit 0", async () => {
    const all = [["version"], ["--version"], ["-v"]];
    const results = await Promise.all(all.map((args) => cli(args)));
    for (const [i, args] of all.entries()) {
      const r = results[i]!;
      assert.equal(r.code, 0, args.join(" "));
      assert.match(r.stdout, /^whipbench v\d+\.\d+\.\d+\S*\n$/, args.join(" "));
      assert.equal(r.stderr, "");
    }
  });

  test("--help on the program and on every command exits 0 with that command's usage on stdout", async () => {
    const top = await cli(["--help"]);
    assert.equal(top.code, 0);
    assert.match(top.stdout, /^Usage: whipbench /);
    assert.match(top.stdout, /written permission/, "the top-level help carries the etiquette rule");
    const commands = ["run", "view", "publish", "relay", "version"];
    const results = await Promise.all(commands.map((c) => cli([c, "--help"])));
    for (const [i, c] of commands.entries()) {
      const r = results[i]!;
      assert.equal(r.code, 0, `${c} --help: ${r.stderr}`);
      assert.match(r.stdout, new RegExp(`^Usage: whipbench ${c} `), c);
    }
    const h = await cli(["run", "-h"]);
    assert.equal(h.code, 0);
    assert.match(h.stdout, /--ramp-offset-seed/);
  });

  test("view without --whep: exit 2, naming the flag", async () => {
    assertUsageError(await cli(["view", "-n", "1"]), "view", "--whep is required");
  });

  test("bad flag values name the flag: --ramp-offset-seed x, --workers -1, --ramp abc", async () => {
    const out = join(tmp.dir, "flags-out");
    const file = scenarioFile("flags.json", { whep: NOWHERE, viewers: 1, holdSeconds: 1 });
    const cases: [args: string[], cmd: string, flag: string][] = [
      [["run", file, "--out", out, "--ramp-offset-seed", "x"], "run", "--ramp-offset-seed: want an integer"],
      [["run", file, "--out", out, "--workers", "-1"], "run", "--workers"],
      [["view", "--whep", NOWHERE, "--out", out, "--ramp", "abc"], "view", "--ramp:"],
      [["view", "--whep", NOWHERE, "--out", out, "--ramp-offset-max", "soon"], "view", "--ramp-offset-max"],
      [["view", "--whep", NOWHERE, "--out", out, "-n", "many"], "view", "-n"],
      [["run", file, "--out", out, "--bogus"], "run", "--bogus"],
    ];
    const results = await Promise.all(cases.map(([args]) => cli(args)));
    for (const [i, r] of results.entries()) assertUsageError(r, cases[i]![1], cases[i]![2]);
    assert.equal(existsSync(out), false, "nothing written");
  });

  test("run --ramp-offset-max 200ms without a seed: exit 2, `needs rampOffsetSeed`", async () => {
    const out = join(tmp.dir, "noseed-out");
    const file = scenarioFile("noseed.json", { whep: NOWHERE, viewers: 1, holdSeconds: 1 });
    assertUsageError(
      await cli(["run", file, "--out", out, "--ramp-offset-max", "200ms"]),
      "run",
      "rampOffsetMaxSeconds needs rampOffsetSeed",
    );
    // and a seed in the file with a bad bound from the flag
    const seeded = scenarioFile("seeded.json", {
      whep: NOWHERE,
      viewers: 1,
      holdSeconds: 1,
      rampOffsetSeed: 3,
    });
    assertUsageError(
      await cli(["run", seeded, "--out", out, "--ramp-offset-max", "2h"]),
      "run",
      "rampOffsetMaxSeconds must be above 0 and at most 3600",
    );
    assert.equal(existsSync(out), false, "nothing written");
  });

  test("run with a missing file, a directory, a non-JSON file, an unknown key: exit 2, one line, nothing written", async () => {
    const out = join(tmp.dir, "bad-out");
    const dir = join(tmp.dir, "a-directory");
    mkdirSync(dir);
    const cases: [string, string | RegExp][] = [
      [join(tmp.dir, "missing.json"), "does not exist"],
      [dir, "is a directory"],
      [scenarioFile("not-json.json", "viewers: 3\n"), /^whipbench run: scenario: /],
      [scenarioFile("trailing.json", '{"whep":"http://h/x","viewers":1,"holdSeconds":1}{}'), "trailing data"],
      [
        scenarioFile("unknown-key.json", { whep: NOWHERE, viewers: 1, holdSeconds: 1, viewer: 2 }),
        'unknown key "viewer"',
      ],
    ];
    const results = await Promise.all(cases.map(([file]) => cli(["run", file, "--out", out])));
    for (const [i, r] of results.entries()) assertUsageError(r, "run", cases[i]![1]);
    assert.equal(existsSync(out), false, "nothing written");
  });

  test("an empty bearer variable: exit 2 naming it, nothing written", async () => {
    const out = join(tmp.dir, "bearer-out");
    const file = scenarioFile("bearer.json", {
      whep: `${NOWHERE}?key=${QUERY_KEY}`,
      viewers: 1,
      holdSeconds: 1,
      bearerEnv: BEARER_VAR,
    });
    const env = { [BEARER_VAR]: "" };
    const want = `--bearer-env ${BEARER_VAR}: the variable is empty or unset`;
    const r = await cli(["run", file, "--out", out], { env });
    assertUsageError(r, "run", want);
    assertNoSecret("stderr", r.stderr);
    assertUsageError(
      await cli(["view", "--whep", NOWHERE, "--bearer-env", BEARER_VAR, "--out", out], { env }),
      "view",
      want,
    );
    assert.equal(existsSync(out), false, "nothing written");
  });
});

describe("runs through the built-in relay", () => {
  let relay: Relay;
  let base = "";
  before(async () => {
    relay = new Relay({ ice: { loopbackOnly: true, includeLoopback: false }, token: BEARER });
    base = await relay.listen();
  });
  after(() => relay.close());

  function relayScenario(stream: string, over: Record<string, unknown>): Record<string, unknown> {
    return {
      name: "cli test",
      whip: `${base}/${stream}/whip?key=${QUERY_KEY}`,
      whep: `${base}/${stream}/whep?key=${QUERY_KEY}`,
      viewers: 2,
      rampSeconds: 1,
      holdSeconds: 2,
      warmupSeconds: 0.5,
      joinTimeoutSeconds: 5,
      excludeFirstSeconds: 0.5,
      loopbackOnly: true,
      bearerEnv: BEARER_VAR,
      ...over,
    };
  }

  test("full run: exit 0, two files, no secret, seed and offsets recorded, docs/definitions.md#console-output stdout", async () => {
    const out = join(tmp.dir, "full-out");
    const file = scenarioFile("full.json", relayScenario("full", {}));
    const args = ["run", file, "--out", out, "--ramp-offset-seed", "7", "--ramp-offset-max", "200ms"];
    const r = await cli(args, { env: { [BEARER_VAR]: BEARER }, timeoutMs: 30_000 });
    assert.equal(r.code, 0, `exit 0; stderr:\n${r.stderr}\nstdout:\n${r.stdout}`);

    // exactly <stem>.json and <stem>.md (and our <stem>.html when it is written), nothing else
    const pair = readReportPair(out);
    const files = listDir(out);
    assert.match(pair.jsonName, /^whipbench-\d{8}T\d{6}Z-cli-test\.json$/);
    for (const f of files) assert.equal(statSync(join(out, f)).mode & 0o777, 0o600, `${f} mode`);
    assert.equal(
      statSync(out).mode & 0o027,
      0,
      "the directory is made 0750: no group write, nothing for others",
    );

    for (const [where, text] of [
      ["JSON", pair.jsonText],
      ["Markdown", pair.markdown],
      ["HTML", pair.html],
      ["stdout", r.stdout],
      ["stderr", r.stderr],
    ] as const) {
      assertNoSecret(where, text);
    }

    const rep = pair.report as {
      command: string;
      interrupted?: boolean;
      scenario: Record<string, unknown>;
      aggregate: {
        valid: boolean;
        verdict: string;
        lossPercentTotal: number;
        joinFirstKeyframeMs: { p50: number; p95: number };
        oneWayDelay: { available: boolean; ms?: { p50: number; p99: number } }[];
        packetTransit: { available: boolean; ms?: { p50: number; p99: number } };
      };
      viewers: { id: number; rampOffsetMs?: number; startOffsetMs: number }[];
    };
    assert.equal(rep.command, "run");
    assert.equal(rep.interrupted, undefined);
    assert.equal(rep.scenario["name"], "cli test");
    assert.equal(rep.scenario["bearerEnv"], BEARER_VAR);
    assert.equal(rep.scenario["rampOffsetSeed"], 7);
    assert.equal(rep.scenario["rampOffsetMaxSeconds"], 0.2);
    assert.match(pair.jsonText, /"rampOffsetSeed": 7,/);
    assert.equal(rep.viewers.length, 2);
    const offsets = rampOffsetsNs(7n, 200e6, 2);
    for (const v of rep.viewers) {
      assert.ok(
        v.rampOffsetMs !== undefined && v.rampOffsetMs >= 0 && v.rampOffsetMs < 200,
        `${v.rampOffsetMs}`,
      );
      assert.equal(v.rampOffsetMs, offsets[v.id]! / 1e6);
      // the POST as it happened: the offset slot plus the viewer's ICE gathering
      const late = v.startOffsetMs - (v.id * 500e6 + offsets[v.id]!) / 1e6;
      assert.ok(late >= 0 && late < 100, `viewer ${v.id} started ${late} ms after its slot`);
    }

    // docs/definitions.md#console-output: verdict, two headline lines in their exact formats, then the files written
    const a = rep.aggregate;
    assert.equal(a.valid, true);
    const lines = r.stdout.split("\n");
    assert.equal(lines.pop(), "", "stdout ends with a newline");
    assert.deepEqual(lines.slice(4), wroteLines(out, pair));
    assert.equal(lines[0], "valid: 2 of 2 viewers joined");
    assert.equal(lines[0], a.verdict);
    assert.match(lines[1]!, /^one-way delay \(fingerprint\) p50 \d+\.\d ms, p99 \d+\.\d ms$/);
    assert.match(
      lines[2]!,
      /^join \(first keyframe\) p50 \d+ ms, p95 \d+ ms; loss \d+\.\d{3}%; packet transit (p50 \d+\.\d ms, p99 \d+\.\d ms|unavailable: .+)$/,
    );
    assert.match(
      lines[3]!,
      /^frozen share (p50 \d+\.\d\d%, p95 \d+\.\d\d%; \d+ freezes(, \d+\.\d\d per viewer-minute)?, \d+\.\d s frozen, longest \d+ ms; end gap max \d+ ms|unavailable: .+)$/,
    );
    assert.equal(lines[3], renderLine(pair.report.aggregate as Aggregate));
    const fp = a.oneWayDelay[0]!;
    assert.ok(fp.available && fp.ms);
    assert.equal(
      lines[1],
      `one-way delay (fingerprint) p50 ${fmtFixed(fp.ms.p50, 1)} ms, p99 ${fmtFixed(fp.ms.p99, 1)} ms`,
    );
    assert.ok(a.packetTransit.available && a.packetTransit.ms, "the relay forwards the stamp");
    const j = a.joinFirstKeyframeMs;
    assert.equal(
      lines[2],
      `join (first keyframe) p50 ${fmtFixed(j.p50, 0)} ms, p95 ${fmtFixed(j.p95, 0)} ms; loss ${fmtFixed(a.lossPercentTotal, 3)}%; packet transit p50 ${fmtFixed(a.packetTransit.ms.p50, 1)} ms, p99 ${fmtFixed(a.packetTransit.ms.p99, 1)} ms`,
    );

    // stderr: progress lines in HH:MM:SS form, the seeded start line, the verdict last
    const logs = r.stderr.trimEnd().split("\n");
    for (const l of logs) assert.match(l, /^\d\d:\d\d:\d\d {2}\S/, l);
    assert.ok(
      logs.some((l) =>
        l.endsWith("starting 2 viewers over 1s, each offset by up to 0.2s (seed 7), holding 2s"),
      ),
      r.stderr,
    );
    assert.ok(logs.at(-1)!.endsWith("  valid: 2 of 2 viewers joined"));
  });

  test("SIGINT after the viewers started: exit 3, report marked interrupted, exits by itself", async () => {
    const out = join(tmp.dir, "int-out");
    const file = scenarioFile("int.json", relayScenario("int", { holdSeconds: 30 }));
    const run = startCli(["run", file, "--out", out], { env: { [BEARER_VAR]: BEARER }, timeoutMs: 30_000 });
    await run.waitForStderr("starting 2 viewers");
    await new Promise((r) => setTimeout(r, 1500)); // both viewers (ramp 1 s) have started
    const sentAt = performance.now();
    run.child.kill("SIGINT");
    const r = await run.done;
    const windDownMs = performance.now() - sentAt;
    assert.equal(r.code, 3, `exit 3; stderr:\n${r.stderr}`);
    assert.ok(windDownMs < 5000, `exited ${Math.round(windDownMs)} ms after SIGINT`);
    assert.match(r.stderr, /SIGINT: stopping; the report is still written/);

    const verdict = "no verdict: the run was interrupted before its scheduled end";
    const pair = readReportPair(out);
    assert.match(pair.jsonText, /\n {2}"interrupted": true,\n/);
    const rep = pair.report as { interrupted?: boolean; aggregate: { valid: boolean; verdict: string } };
    assert.equal(rep.interrupted, true);
    assert.equal(rep.aggregate.valid, false);
    assert.equal(rep.aggregate.verdict, verdict);
    assert.ok(pair.markdown.includes(verdict));
    assert.ok(!pair.markdown.includes("## Aggregate"), "no verdict hides the aggregate");
    assert.deepEqual(r.stdout.trimEnd().split("\n"), [verdict, ...wroteLines(out, pair)]);
    assertNoSecret("stderr", r.stderr);
  });

  test("a second SIGINT during the wind-down exits at once (exit 3)", async () => {
    // A front that forwards POSTs to the relay and never answers DELETEs: after the first
    // SIGINT, the viewers' and the publisher's DELETEs hold the wind-down for their 3 s timeout.
    const front = await deleteHoldingFront(base);
    try {
      const out = join(tmp.dir, "int2-out");
      const s = relayScenario("int2", { holdSeconds: 30 });
      s["whip"] = `${front.base}/int2/whip?key=${QUERY_KEY}`;
      s["whep"] = `${front.base}/int2/whep?key=${QUERY_KEY}`;
      const file = scenarioFile("int2.json", s);
      const run = startCli(["run", file, "--out", out], { env: { [BEARER_VAR]: BEARER }, timeoutMs: 30_000 });
      await run.waitForStderr("starting 2 viewers");
      await new Promise((r) => setTimeout(r, 1500));
      run.child.kill("SIGINT");
      await run.waitForStderr("SIGINT: stopping");
      await new Promise((r) => setTimeout(r, 200)); // inside the held DELETEs
      assert.equal(run.child.exitCode, null, "still winding down");
      const sentAt = performance.now();
      run.child.kill("SIGINT");
      const r = await run.done;
      const ms = performance.now() - sentAt;
      assert.equal(r.code, 3, r.stderr);
      assert.match(r.stderr, /second SIGINT, exiting now/);
      assert.ok(ms < 1500, `exited ${Math.round(ms)} ms after the second SIGINT`);
      assert.ok(front.heldDeletes() > 0, "the wind-down was waiting on a DELETE");
      assert.equal(r.stdout, "", "no report lines: it exited before writing");
    } finally {
      await front.close();
    }
  });
});

/** An HTTP front for the relay that forwards POST/PATCH and holds every DELETE unanswered. */
async function deleteHoldingFront(
  target: string,
): Promise<{ base: string; heldDeletes: () => number; close: () => Promise<void> }> {
  let held = 0;
  const server: Server = createServer((req, res) => {
    if (req.method === "DELETE") {
      held++;
      req.resume();
      return; // never answered; closed with the server
    }
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const headers: Record<string, string> = {};
      for (const h of ["authorization", "content-type", "accept"]) {
        const v = req.headers[h];
        if (typeof v === "string") headers[h] = v;
      }
      const init: RequestInit = { method: req.method ?? "GET", headers };
      if (chunks.length > 0) init.body = Buffer.concat(chunks);
      fetch(`${target}${req.url ?? "/"}`, init)
        .then(async (up) => {
          const h: Record<string, string> = {};
          for (const k of ["content-type", "location"]) {
            const v = up.headers.get(k);
            if (v !== null) h[k] = v;
          }
          res.writeHead(up.status, h).end(Buffer.from(await up.arrayBuffer()));
        })
        .catch(() => res.writeHead(502).end());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    base: `http://127.0.0.1:${port}`,
    heldDeletes: () => held,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
