// The installable package (issue 13): `npm pack` builds dist/ (prepack) into a tarball that
// carries only what the command needs; `npm i -g` of it into a temporary prefix gives a
// `whipbench` that runs without the checkout and without the pinned Node package: the Node it
// runs on is the first `node` on PATH, here the pinned binary's folder standing in for the
// machine's Node 22 (the system Node of these machines is 20, below werift's floor). From that
// install: `version`, a short run against the installed relay, and interrupted runs (SIGINT to
// the command, SIGTERM to its process group): exit 3 with the report written.
import assert from "node:assert/strict";
import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { tempDir } from "./cli-harness.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** The pinned Node's folder first on PATH: npm, the bin's `#!/usr/bin/env node` and the workers run on it. */
const PATH = `${dirname(process.execPath)}:${process.env.PATH ?? ""}`;
const env = { ...process.env, PATH, npm_config_update_notifier: "false" };

function npm(args: string[], cwd: string): string {
  return execFileSync("npm", args, { cwd, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Starts the installed command in its own process group; `ended` resolves on exit. */
function start(
  bin: string,
  args: string[],
  cwd: string,
  timeoutMs: number,
): { child: ChildProcess; ended: Promise<Ended>; stderrHas(text: string): Promise<void> } {
  const child = spawn(bin, args, { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  const waiters: { text: string; resolve: () => void }[] = [];
  child.stdout?.setEncoding("utf8").on("data", (d: string) => {
    stdout += d;
  });
  child.stderr?.setEncoding("utf8").on("data", (d: string) => {
    stderr += d;
    for (const w of waiters.splice(0)) (stderr.includes(w.text) ? w.resolve : () => waiters.push(w))();
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  const ended = new Promise<Ended>((resolve) =>
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    }),
  );
  return {
    child,
    ended,
    stderrHas: (text) =>
      stderr.includes(text) ? Promise.resolve() : new Promise((resolve) => waiters.push({ text, resolve })),
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const a = s.address();
      s.close(() => resolve(typeof a === "object" && a !== null ? a.port : 0));
    });
  });
}

function reportOf(dir: string): { interrupted?: boolean; aggregate: { valid: boolean; verdict: string } } {
  const json = readdirSync(dir).find((f) => f.endsWith(".json"));
  assert.ok(json, `a report JSON in ${dir}: ${readdirSync(dir)}`);
  return JSON.parse(readFileSync(join(dir, json), "utf8"));
}

describe("the packed tarball, installed into a temporary prefix", { timeout: 240_000 }, () => {
  const tmp = tempDir("package");
  let bin = "";
  let files: string[] = [];

  before(() => {
    const name = npm(["pack", "--pack-destination", tmp.dir, "--json"], ROOT);
    // prepack's own lines come first on stdout; the JSON is the rest
    const packed = JSON.parse(name.slice(name.search(/^\[/m))) as {
      filename: string;
      size: number;
      files: { path: string }[];
    }[];
    const first = packed[0];
    assert.ok(first);
    files = first.files.map((f) => f.path);
    const prefix = join(tmp.dir, "prefix");
    npm(
      [
        "install",
        "--global",
        "--prefix",
        prefix,
        "--no-audit",
        "--no-fund",
        "--prefer-offline",
        join(tmp.dir, first.filename),
      ],
      tmp.dir,
    );
    bin = join(prefix, "bin", "whipbench");
  });
  after(() => tmp.remove());

  test("the tarball holds the built command, the clips, the docs, and no sources, tests or benches", () => {
    for (const f of [
      "bin/whipbench.js",
      "dist/main/cli/cli.js",
      "dist/workers/worker-entry.js",
      "dist/main/output/html-charts.browser.js",
      "dist/build-info.json",
      "clips/clip-vp8.ivf",
      "clips/clip-h264.h264",
      "clips/clip-opus.ogg",
      "clips/clip-vp8-h.ivf",
      "clips/clip-h264-l.h264",
      "README.md",
      "LICENSE",
      "CHANGELOG.md",
      "docs/load-testing-etiquette.md",
      "docs/definitions.md",
      "docs/commands.md",
      "package.json",
    ]) {
      assert.ok(files.includes(f), `${f} is in the tarball`);
    }
    // every clip the checkout has is one a scenario can name: each must travel with the package
    const clips = readdirSync(join(ROOT, "clips")).filter((f) => /\.(ivf|h264|ogg)$/.test(f));
    for (const c of clips) assert.ok(files.includes(`clips/${c}`), `clips/${c} is in the tarball`);
    const stray = files.filter((f) => /^(src|test|bench|evals|examples|scripts|node_modules)\//.test(f));
    assert.deepEqual(stray, []);
    assert.ok(!files.some((f) => f.endsWith(".ts")), "no TypeScript source in the tarball");
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { devDependencies: object };
    assert.ok("node" in pkg.devDependencies, "the checkout pins Node as a devDependency only");
  });

  test("`whipbench version` prints the package version and the source commit", () => {
    assert.ok(existsSync(bin), "npm linked the command into the prefix");
    const out = execFileSync(bin, ["version"], { env, encoding: "utf8", cwd: tmp.dir });
    const m = /^whipbench v0\.1\.0(?:\+([0-9a-f]{12})(\.dirty)?)?\n$/.exec(out);
    assert.ok(m, out);
    let head: string | null = null;
    try {
      head = execFileSync("git", ["rev-parse", "HEAD"], { cwd: ROOT, encoding: "utf8" }).trim();
    } catch {
      // no git here: the version alone is right
    }
    if (head !== null) assert.equal(m[1], head.slice(0, 12), "the commit the tarball was built from");
  });

  test("an older Node (the system one, where it is below 22) gets one line and exit 1", (t) => {
    const system = "/usr/bin/node";
    let major = 0;
    try {
      major = Number(
        execFileSync(system, ["-p", "process.versions.node.split('.')[0]"], { encoding: "utf8" }),
      );
    } catch {
      // no system Node
    }
    if (!(major > 0 && major < 22)) {
      t.skip(`no system Node below 22 at ${system}`);
      return;
    }
    const target = join(dirname(dirname(bin)), "lib", "node_modules", "whipbench", "bin", "whipbench.js");
    const r = spawnSync(system, [target, "version"], { encoding: "utf8" });
    assert.equal(r.status, 1);
    assert.match(
      r.stderr,
      /^whipbench: needs Node\.js 22 or later \(tested on 22 and 24\); this is Node v\d+/,
    );
  });

  test("a short run against the installed relay is valid (exit 0, report written)", async () => {
    const port = await freePort();
    const relay = start(bin, ["relay", "--listen", `127.0.0.1:${port}`], tmp.dir, 60_000);
    try {
      await relay.stderrHas(`127.0.0.1:${port}`);
      const base = `http://127.0.0.1:${port}/install`;
      const scenario = join(tmp.dir, "short.json");
      writeFileSync(
        scenario,
        JSON.stringify({
          name: "install",
          whip: `${base}/whip`,
          whep: `${base}/whep`,
          viewers: 2,
          rampSeconds: 0,
          holdSeconds: 3,
          warmupSeconds: 1,
          excludeFirstSeconds: 0,
          loopbackOnly: true,
          workers: 1,
        }),
      );
      const out = join(tmp.dir, "short-out");
      const run = start(bin, ["run", scenario, "--out", out, "--quiet"], tmp.dir, 60_000);
      const r = await run.ended;
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^valid: 2 of 2 viewers joined$/m);
      assert.equal(reportOf(out).aggregate.valid, true);
      // the HTML report inlines the page script shipped in dist/ and uPlot from the dependency
      const html = readdirSync(out).find((f) => f.endsWith(".html"));
      assert.ok(html, "an HTML report beside the JSON");
      assert.match(readFileSync(join(out, html), "utf8"), /uPlot/);
    } finally {
      relay.child.kill("SIGTERM");
      await relay.ended;
    }
  });

  for (const [how, signal] of [
    ["SIGINT to the command", "SIGINT"],
    ["SIGTERM to its process group", "SIGTERM"],
  ] as const) {
    test(`the default run, interrupted by ${how}: exit 3, report written and marked`, async () => {
      const out = join(tmp.dir, `int-${signal}`);
      const run = start(bin, ["run", "--out", out], tmp.dir, 60_000);
      await run.stderrHas("starting 10 viewers");
      await new Promise((r) => setTimeout(r, 1500));
      const pid = run.child.pid ?? 0;
      process.kill(how.includes("group") ? -pid : pid, signal);
      const r = await run.ended;
      assert.equal(r.code, 3, r.stderr);
      assert.equal(r.signal, null);
      const rep = reportOf(out);
      assert.equal(rep.interrupted, true);
      assert.equal(rep.aggregate.valid, false);
      assert.match(rep.aggregate.verdict, /^no verdict: /);
    });
  }
});
