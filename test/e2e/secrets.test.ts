// Secrets (issue 7, docs/reliability.md "Secrets"): every command — relay, run, publish, view,
// and a view and a publish that fail — run as child processes with a token in the URL query,
// userinfo in the URL, a path that looks like a stream key and a bearer token; every byte they
// wrote (stdout, stderr, the JSON, Markdown and HTML reports, a /metrics scrape of `run` and of
// `view`) is scanned for each of them.

import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { type AddressInfo, createServer } from "node:net";
import { join } from "node:path";
import { after, test } from "node:test";
import { HttpExchangeError } from "../../src/core/errors.ts";
import { postOffer } from "../../src/net/sdp-http.ts";
import { type CliResult, type CliRun, readReportPair, startCli, tempDir } from "./cli-harness.ts";

const QUERY = "QUERYTOKEN7f3a";
const USER = "USERNAME9c1e";
const PASS = "PASSWORD4b8d";
const BEARER = "BEARERTOKEN2e6f";
const KEYS = ["sk_live_STREAMKEY1a2b", "sk_live_STREAMKEY3c4d", "sk_live_STREAMKEY5e6f"];
const BEARER_VAR = "WHIPBENCH_SECRETS_TEST_BEARER";
const SECRETS = [QUERY, USER, PASS, BEARER, ...KEYS, "STREAMKEY", "token=", "/whep", "/whip?"];

const tmp = tempDir("secrets");
after(() => tmp.remove());

/** An endpoint carrying every kind of secret: userinfo, a stream-key path, a query token. */
function endpoint(port: number, key: string, kind: "whip" | "whep"): string {
  return `http://${USER}:${PASS}@127.0.0.1:${port}/${key}/${kind}?token=${QUERY}`;
}

function freePort(): Promise<number> {
  const s = createServer();
  return new Promise((resolve) =>
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    }),
  );
}

/** Scrapes the /metrics a command announces on stderr, once `when` shows there too. */
async function scrape(run: CliRun, when: string): Promise<string> {
  await run.waitForStderr(/metrics on http:\/\/\S+\/metrics/);
  const url = /metrics on (http:\/\/\S+\/metrics)/.exec(run.stderr())![1]!;
  await run.waitForStderr(when);
  await new Promise((r) => setTimeout(r, 1000));
  const res = await fetch(url);
  assert.equal(res.status, 200);
  return res.text();
}

function assertClean(where: string, text: string): void {
  for (const s of SECRETS) {
    // the HTML inlines a minified chart library: there, a query string is what `token=` would be
    const found = where.endsWith("HTML") && s === "token=" ? /[?&]token=/.test(text) : text.includes(s);
    assert.ok(!found, `${where} contains ${s}`);
  }
}

test("no secret in anything relay, run, publish and view write, nor in their /metrics", async () => {
  const env = { [BEARER_VAR]: BEARER };
  const port = await freePort();
  // the relay lives through every command, one after another: the harness's kill timer (60 s by
  // default) must not end it first on a busy machine; SIGINT ends it below
  const relay = startCli(["relay", "--listen", `127.0.0.1:${port}`, "--token-env", BEARER_VAR], {
    env,
    timeoutMs: 300_000,
  });
  const texts: [string, string][] = [];
  try {
    await relay.waitForStderr("relay listening on");

    // `run`: publisher and viewers through the relay, /metrics on a free port
    const scenario = join(tmp.dir, "run.json");
    writeFileSync(
      scenario,
      JSON.stringify({
        name: "secrets",
        whip: endpoint(port, KEYS[0]!, "whip"),
        whep: endpoint(port, KEYS[0]!, "whep"),
        viewers: 2,
        rampSeconds: 0.5,
        // long enough for both viewers to join on a busy machine: a run ends at ramp + hold, and a
        // viewer that has not joined by then has not joined (no verdict, exit 3)
        holdSeconds: 4,
        warmupSeconds: 0.5,
        joinTimeoutSeconds: 5,
        excludeFirstSeconds: 0.5,
        loopbackOnly: true,
        bearerEnv: BEARER_VAR,
      }),
    );
    const runOut = join(tmp.dir, "run-out");
    const run = startCli(["run", scenario, "--out", runOut, "--metrics", "127.0.0.1:0"], { env });
    const runMetrics = scrape(run, "starting 2 viewers");
    // the run alone, before the four other commands start: six Node processes starting at once on
    // two busy cores left the run's viewers unjoined at its end
    const runResult = await run.done;

    // `publish` to another stream key, and a `view` of it once it streams (the publish outlasts
    // the view's start and its 4 s on a busy machine)
    const publish = startCli(
      ["publish", "--whip", endpoint(port, KEYS[1]!, "whip"), "--duration", "12s", "--loopback-only"].concat([
        "--bearer-env",
        BEARER_VAR,
      ]),
      { env },
    );
    // failures put the endpoint into messages: a view of a stream nobody publishes (404), a
    // publish to a port nobody listens on
    const failOut = join(tmp.dir, "fail-out");
    const failedView = startCli(
      ["view", "--whep", endpoint(port, KEYS[2]!, "whep"), "-n", "1", "--duration", "1s"].concat([
        "--bearer-env",
        BEARER_VAR,
        "--out",
        failOut,
      ]),
      { env },
    );
    const deadPort = await freePort();
    const failedPublish = startCli(
      ["publish", "--whip", endpoint(deadPort, KEYS[1]!, "whip"), "--duration", "1s"].concat([
        "--bearer-env",
        BEARER_VAR,
      ]),
      { env },
    );

    await publish.waitForStderr("connected in");
    const viewOut = join(tmp.dir, "view-out");
    const view = startCli(
      [
        "view",
        "--whep",
        endpoint(port, KEYS[1]!, "whep"),
        "-n",
        "2",
        "--duration",
        "4s",
        "--loopback-only",
      ].concat(["--bearer-env", BEARER_VAR, "--metrics", "127.0.0.1:0", "--out", viewOut]),
      { env },
    );
    const viewMetrics = scrape(view, "starting 2 viewers");

    const results: Record<string, CliResult> = {
      run: runResult,
      view: await view.done,
      publish: await publish.done,
      "failed view": await failedView.done,
      "failed publish": await failedPublish.done,
    };
    assert.equal(results["run"]!.code, 0, results["run"]!.stderr);
    assert.equal(results["view"]!.code, 0, results["view"]!.stderr);
    assert.equal(results["publish"]!.code, 0, results["publish"]!.stderr);
    assert.equal(results["failed view"]!.code, 3, results["failed view"]!.stderr);
    assert.equal(results["failed publish"]!.code, 1, results["failed publish"]!.stderr);
    assert.match(results["failed publish"]!.stderr, /POST to 127\.0\.0\.1:\d+: connection refused/);

    for (const [name, r] of Object.entries(results))
      texts.push([`${name} stdout`, r.stdout], [`${name} stderr`, r.stderr]);
    for (const [name, dir] of [
      ["run", runOut],
      ["view", viewOut],
      ["failed view", failOut],
    ] as const) {
      const pair = readReportPair(dir);
      texts.push(
        [`${name} JSON`, pair.jsonText],
        [`${name} Markdown`, pair.markdown],
        [`${name} HTML`, pair.html],
      );
    }
    const failed = readReportPair(failOut).report as { errors: Record<string, number> };
    assert.deepEqual(failed.errors, { http_404: 1 }, "the failure's message is in the report");
    texts.push(["run /metrics", await runMetrics], ["view /metrics", await viewMetrics]);
  } finally {
    relay.child.kill("SIGINT");
  }
  const r = await relay.done;
  assert.equal(r.code, 0, r.stderr);
  // the relay names its endpoint templates (`/<stream>/whep`): those are not secrets
  texts.push(["relay stdout", r.stdout], ["relay stderr", r.stderr.replaceAll(/\/<stream>\/wh[ie]p/g, "")]);

  assert.equal(texts.length, 23);
  for (const [where, text] of texts) {
    if (where !== "failed publish stdout" && where !== "relay stdout")
      assert.ok(text.length > 0, `${where} is empty`);
    assertClean(where, text);
  }
});

test("userinfo is sent as Basic auth unless a bearer is set, and never in a message", async () => {
  const seen: string[] = [];
  const server = createHttpServer((req, res) => {
    seen.push(req.headers.authorization ?? "");
    req.resume();
    res.writeHead(403).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const at = (userinfo: string) => `http://${userinfo}@127.0.0.1:${port}/${KEYS[0]}/whep?token=${QUERY}`;
  try {
    for (const [url, bearer] of [
      [at(`${USER}:${PASS}`), undefined],
      [at(`${USER}%40x:${PASS}%3A`), undefined],
      [at(`${USER}%zz:${PASS}`), undefined],
      [at(`${USER}:${PASS}`), BEARER],
    ] as const) {
      const err = await postOffer(url, "v=0\r\n", { bearer }).catch((e: unknown) => e);
      assert.ok(err instanceof HttpExchangeError && err.kind === "http_status" && err.status === 403);
      assert.equal(err.message, `POST to 127.0.0.1:${port}: HTTP 403`);
    }
  } finally {
    server.close();
  }
  const basic = (u: string) => `Basic ${Buffer.from(u).toString("base64")}`;
  assert.deepEqual(seen, [
    basic(`${USER}:${PASS}`),
    basic(`${USER}@x:${PASS}:`),
    basic(`${USER}%zz:${PASS}`),
    `Bearer ${BEARER}`,
  ]);
});
