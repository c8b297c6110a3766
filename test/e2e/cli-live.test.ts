// The real CLI with stderr on a terminal (util-linux `script` gives it a pty): the live status
// line is drawn and rewritten in place, `--json` puts exactly the report JSON on stdout while
// the human lines stay on stderr, and `--no-html` writes no HTML file.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { Relay } from "../../src/main/relay/relay.ts";
import { BIN } from "./cli-harness.ts";

const hasScript = spawnSync("script", ["--version"], { stdio: "ignore" }).status === 0;
const dir = mkdtempSync(join(tmpdir(), "whipbench-cli-live-"));
const out = join(dir, "out");
const stdoutFile = join(dir, "stdout.json");
let relay: Relay;
let code: number | null = null;
let tty = "";

function sh(arg: string): string {
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

before(async () => {
  if (!hasScript) return;
  relay = new Relay({ ice: { loopbackOnly: true, includeLoopback: false } });
  const base = await relay.listen();
  const scenario = join(dir, "s.json");
  writeFileSync(
    scenario,
    JSON.stringify({
      name: "tty",
      whip: `${base}/tty/whip`,
      whep: `${base}/tty/whep`,
      viewers: 2,
      rampSeconds: 1,
      holdSeconds: 2,
      warmupSeconds: 0.5,
      joinTimeoutSeconds: 5,
      excludeFirstSeconds: 0.5,
      loopbackOnly: true,
    }),
  );
  const cmd = [process.execPath, BIN, "run", scenario, "--out", out, "--workers", "1", "--json", "--no-html"]
    .map(sh)
    .join(" ");
  // stdout to a file, stderr on the pty that `script` copies to its own stdout
  const child = spawn(
    "script",
    ["-qefc", `stty cols 160 2>/dev/null; ${cmd} > ${sh(stdoutFile)}`, "/dev/null"],
    {
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, SHELL: "/bin/sh" },
    },
  );
  child.stdout.setEncoding("utf8").on("data", (d: string) => {
    tty += d;
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), 40_000);
  code = await new Promise((resolve) => child.on("close", (c) => resolve(c)));
  clearTimeout(timer);
});

after(async () => {
  await relay?.close();
  rmSync(dir, { recursive: true, force: true });
});

const skip = hasScript ? false : "util-linux `script` is not installed";

test("cli on a terminal: a live status line, rewritten in place", { skip }, () => {
  assert.equal(code, 0, tty);
  const frames = tty.split("\r\x1b[2K").filter((f) => /pkt\/s/.test(f));
  assert.ok(frames.length >= 2, `status frames: ${JSON.stringify(tty)}`);
  for (const f of frames.slice(0, -1)) {
    assert.match(
      f,
      /^\d+\/3 s · viewers \d\/2 joined, \d active, \d failed · \d+ pkt\/s · delay p50 \S+ p99 \S+ ms · cpu \S+% · loop p99 \S+ ms/,
    );
    assert.ok(!f.includes("\n"), "a frame is one line");
  }
  assert.ok(!/^\S+\s+progress /m.test(tty), "no periodic log line on a terminal");
  assert.ok(tty.includes("valid: 2 of 2 viewers joined"), "the verdict goes to stderr");
  assert.match(tty, /wrote .*\.json/);
});

test("cli --json: exactly the report JSON on stdout; --no-html: no HTML file", { skip }, () => {
  const stdout = readFileSync(stdoutFile, "utf8");
  const files = readdirSync(out).sort();
  assert.deepEqual(
    files.map((f) => f.replace(/^.*\./, "")),
    ["json", "md"],
  );
  const written = readFileSync(join(out, files[0]!), "utf8");
  assert.equal(stdout, written, "stdout is the report file's text");
  const report = JSON.parse(stdout) as { schema: string; aggregate: { valid: boolean } };
  assert.equal(report.schema, "whipbench.report/v0");
  assert.equal(report.aggregate.valid, true);
});
