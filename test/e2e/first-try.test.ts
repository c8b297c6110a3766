// What trying whipbench as a new user found, the second time: the forms people type and the
// messages they get back, each through the real CLI as a user runs it.
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { Relay } from "../../src/main/relay/relay.ts";
import { cli, freePort, listDir, startCli, tempDir } from "./cli-harness.ts";

const tmp = tempDir("first-try");
after(() => tmp.remove());

/** A TCP listener on 127.0.0.1 standing in for a coordinator: it reads the first frame and answers with a refusal. */
async function fakeCoordinator(): Promise<{
  port: number;
  hello: Promise<Record<string, unknown>>;
  close: () => void;
}> {
  let gotHello: (m: Record<string, unknown>) => void = () => {};
  const hello = new Promise<Record<string, unknown>>((resolve) => {
    gotHello = resolve;
  });
  const socks: Socket[] = [];
  const server = createServer((sock) => {
    socks.push(sock);
    let buf = Buffer.alloc(0);
    sock.on("data", (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      if (buf.length < 4 || buf.length < 4 + buf.readUInt32BE(0)) return;
      gotHello(
        JSON.parse(buf.subarray(4, 4 + buf.readUInt32BE(0)).toString("utf8")) as Record<string, unknown>,
      );
      const body = Buffer.from(JSON.stringify({ type: "refuse", reason: "a test coordinator" }));
      const len = Buffer.alloc(4);
      len.writeUInt32BE(body.length);
      sock.end(Buffer.concat([len, body]));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const a = server.address();
  const port = typeof a === "object" && a !== null ? a.port : 0;
  return {
    port,
    hello,
    close: () => {
      for (const s of socks) s.destroy();
      server.close();
    },
  };
}

describe("agent --coordinator", () => {
  test("the URL form people type, http://HOST:PORT/, reaches the coordinator", async () => {
    const c = await fakeCoordinator();
    try {
      const run = startCli(
        ["agent", "--coordinator", `http://127.0.0.1:${c.port}/`, "--name", "a1", "--out", tmp.dir],
        { timeoutMs: 20_000 },
      );
      const hello = await c.hello;
      assert.equal(hello.type, "hello");
      assert.equal(hello.name, "a1");
      const r = await run.done;
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, /refused by the coordinator: a test coordinator/);
      assert.doesNotMatch(r.stderr, /not reachable/);
    } finally {
      c.close();
    }
  });

  test("a value that cannot be a coordinator address exits 2 at once, naming the flag and the forms", async () => {
    const values = [
      "https://127.0.0.1:7400",
      "http://127.0.0.1:7400/agents",
      "127.0.0.1:7400?token=s3cr3t",
      "http://user@127.0.0.1:7400",
      "127.0.0.1",
      "http://127.0.0.1",
      "under_score:7400",
    ];
    const results = await Promise.all(
      // a retrying agent would run 120 s: the kill at 30 s leaves no exit code
      values.map((v) => cli(["agent", "--coordinator", v, "--out", tmp.dir], { timeoutMs: 30_000 })),
    );
    for (const [i, r] of results.entries()) {
      assert.equal(r.code, 2, `${values[i]}: ${r.stderr}`);
      assert.match(
        r.stderr,
        /^whipbench agent: --coordinator: .+; want HOST:PORT, tcp:\/\/HOST:PORT or http:\/\/HOST:PORT/,
      );
      assert.equal(r.stderr.split("\n").length, 2, "one line");
      assert.doesNotMatch(r.stderr, /retrying|s3cr3t|user@/);
    }
  });

  test("--help states the retry policy; a coordinator that never comes is named by host and the retry stated", async () => {
    const help = await cli(["agent", "--help"]);
    assert.equal(help.code, 0);
    assert.match(
      help.stdout.replace(/\s+/g, " "),
      /tried every 1 s for up to 120 s \(one line on stderr at the first miss\), then exit 1/,
    );
    const port = await freePort();
    const run = startCli(["agent", "--coordinator", `tcp://127.0.0.1:${port}`, "--out", tmp.dir]);
    await run.waitForStderr(/retrying/);
    run.child.kill("SIGTERM");
    const r = await run.done;
    assert.match(
      r.stderr,
      new RegExp(
        `the coordinator at 127\\.0\\.0\\.1:${port} is not reachable yet \\(nothing answers there\\); retrying every 1 s for up to 120 s`,
      ),
    );
  });
});

describe("view names the flag a user has to give", () => {
  test("no --whep, a --whep that is not a URL, -n 0, --duration 0s: exit 2 naming the flag, not a scenario key", async () => {
    const out = tempDir("first-try-view");
    try {
      const cases: [args: string[], want: string][] = [
        [["-n", "1"], "whipbench view: --whep is required (the WHEP URL of the stream to watch)\n"],
        [["--whep", "ftp://127.0.0.1/s/whep"], "whipbench view: --whep must be an http(s) URL\n"],
        [["--whep", "http://127.0.0.1:9/s/whep", "-n", "0"], "whipbench view: -n must be 1..10000\n"],
        [
          ["--whep", "http://127.0.0.1:9/s/whep", "--duration", "0s"],
          "whipbench view: --duration must be positive\n",
        ],
      ];
      const results = await Promise.all(cases.map(([args]) => cli(["view", ...args, "--out", out.dir])));
      for (const [i, [args, want]] of cases.entries()) {
        const r = results[i];
        assert.equal(r?.code, 2, args.join(" "));
        assert.equal(r?.stderr, want, args.join(" "));
        assert.equal(r?.stdout, "");
      }
    } finally {
      out.remove();
    }
  });
});

describe("a capacity scenario without the keys the search replaces", () => {
  test("no viewers or holdSeconds: it runs; given ones are ignored with a note each", async () => {
    const relay = new Relay({ ice: { loopbackOnly: true, includeLoopback: false } });
    const base = await relay.listen();
    try {
      const spec = { start: 1, max: 1, stepSeconds: 1, settleSeconds: 0 };
      const common = {
        whip: `${base}/cap/whip`,
        whep: `${base}/cap/whep`,
        rampSeconds: 0,
        warmupSeconds: 0.5,
        loopbackOnly: true,
        workers: 0,
        thresholds: { failedViewers: "== 0" },
        capacity: spec,
      };
      const bare = join(tmp.dir, "cap-bare.json");
      writeFileSync(bare, JSON.stringify({ name: "bare", ...common }));
      const r = await cli(["capacity", bare, "--out", join(tmp.dir, "cap-bare")], { timeoutMs: 60_000 });
      // the search ran (0, or 3 when this shared machine put the client near its own ceiling), not exit 2
      const ran = [0, 3];
      assert.ok(ran.includes(r.code ?? -1), r.stderr);
      assert.doesNotMatch(r.stderr, /must be positive|ignored/);
      const given = join(tmp.dir, "cap-given.json");
      writeFileSync(
        given,
        JSON.stringify({ name: "given", ...common, viewers: 7, holdSeconds: 30, excludeFirstSeconds: 2 }),
      );
      const g = await cli(["capacity", given, "--out", join(tmp.dir, "cap-given")], { timeoutMs: 60_000 });
      assert.ok(ran.includes(g.code ?? -1), g.stderr);
      assert.match(
        g.stderr,
        /scenario key viewers ignored: each step's viewers come from the search \(capacity\.start 1 up to capacity\.max 1\)\n/,
      );
      assert.match(
        g.stderr,
        /scenario key holdSeconds ignored: each step holds capacity\.stepSeconds \(1 s\)\n/,
      );
      assert.match(
        g.stderr,
        /scenario key excludeFirstSeconds ignored: each step leaves out capacity\.settleSeconds \(0 s\)/,
      );
      // the step ran the search's count and length, not the file's
      const steps = JSON.parse(
        readFileSync(
          join(
            tmp.dir,
            "cap-given",
            listDir(join(tmp.dir, "cap-given")).find((f) => f.endsWith(".json")) ?? "",
          ),
          "utf8",
        ),
      ) as { steps: { viewers: number }[] };
      assert.deepEqual(
        steps.steps.map((s) => s.viewers),
        [1],
      );
    } finally {
      await relay.close();
    }
  });

  test("run still needs them: the same scenario is refused by run", async () => {
    const file = join(tmp.dir, "cap-run.json");
    writeFileSync(
      file,
      JSON.stringify({ whep: "http://127.0.0.1:9/s/whep", viewers: 1, capacity: { start: 1 } }),
    );
    const r = await cli(["run", file, "--out", join(tmp.dir, "cap-run")]);
    assert.equal(r.code, 2);
    assert.equal(r.stderr, "whipbench run: scenario: holdSeconds must be positive\n");
  });
});

describe("a matrix started from another directory", () => {
  test("its commands run in the matrix file's directory; a failed start's DNF quotes its output, redacted", async () => {
    const mdir = join(tmp.dir, "matrix-home");
    mkdirSync(mdir);
    const script = [
      "#!/bin/sh",
      'echo "starting in $(basename "$PWD")"',
      'echo "listening at http://127.0.0.1:1/live/secret-path?token=abc"',
      'echo "auth: Bearer s3cr3tTOKEN, log /home/someone/relay.log"',
      'echo "bearer from the env: $WB_FIRST_TRY_BEARER"',
      "exit 4",
      "",
    ].join("\n");
    writeFileSync(join(mdir, "fail.sh"), script, { mode: 0o755 });
    writeFileSync(
      join(mdir, "matrix.json"),
      JSON.stringify({
        healthTimeoutSeconds: 5,
        servers: [{ name: "fail", whep: "http://127.0.0.1:1/x/whep", start: "./fail.sh" }],
        scenarios: [
          { name: "s", scenario: { viewers: 1, holdSeconds: 1, bearerEnv: "WB_FIRST_TRY_BEARER" } },
        ],
      }),
    );
    const out = join(tmp.dir, "matrix-out");
    const r = await cli(["matrix", join(mdir, "matrix.json"), "--out", out], {
      cwd: tmp.dir,
      env: { WB_FIRST_TRY_BEARER: "hunter2-bearer" },
      timeoutMs: 30_000,
    });
    assert.equal(r.code, 3, r.stderr);
    const md = readFileSync(join(out, "matrix.md"), "utf8");
    // the Markdown escapes the `|` between the output's lines
    const reason =
      "DNF: server fail did not start: the start command exited with 4 before the server was healthy " +
      "(commands run in the matrix file's directory); its output ended: starting in matrix-home \\| " +
      "listening at 127.0.0.1:1 \\| auth: <redacted> <redacted>, log <path> \\| bearer from the env: <redacted>";
    assert.ok(md.includes(`| fail | ${reason} |`), md);
    const shown = [
      md,
      readFileSync(join(out, "matrix.html"), "utf8"),
      readFileSync(join(out, "matrix.json"), "utf8"),
      r.stderr,
      r.stdout,
    ];
    for (const text of shown) {
      assert.doesNotMatch(text, /secret-path|token=abc|s3cr3t|\/home\/someone|hunter2/);
    }
    assert.match(r.stderr, /matrix: server fail did not start: .*its output ended: starting in matrix-home/);
  });
});
