// The set-up commands are quiet about the project's own Node pin: `npm ci` run by the system's
// older Node (Debian 12: 20) printed npm's EBADENGINE warning twice, for this package's
// `engines` and for werift's, though every script runs on the pinned Node 22. Checked with
// `npm ci --dry-run` (it resolves the same tree and runs the same engine check, installing
// nothing) in a copy of the package files, on that Node; skipped where the system Node is 22 or
// later or missing. (The installed package's refusal of Node 20: test/e2e/package-install.test.ts.)
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { tempDir } from "./cli-harness.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SYSTEM_NODE = "/usr/bin/node";

function systemMajor(): number {
  if (!existsSync(SYSTEM_NODE)) return 0;
  const r = spawnSync(SYSTEM_NODE, ["-p", "process.versions.node.split('.')[0]"], { encoding: "utf8" });
  return Number(r.stdout.trim());
}

const major = systemMajor();
const skip = major === 0 ? "no system Node" : major >= 22 ? `the system Node is ${major}` : false;
const tmp = tempDir("setup-quiet");
after(() => tmp.remove());

/** `npm ci --dry-run` in `dir` on the system Node, with no npm_config_* a parent npm exported. */
function dryCi(dir: string): string {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !/^npm_/i.test(k)) env[k] = v;
  }
  env.PATH = `${dirname(SYSTEM_NODE)}:${env.PATH ?? ""}`;
  const r = spawnSync("npm", ["ci", "--dry-run", "--no-audit", "--no-fund"], {
    cwd: dir,
    env,
    encoding: "utf8",
  });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout + r.stderr;
}

test("npm ci on the system's older Node prints no engine warning in a checkout", { skip }, () => {
  for (const f of ["package.json", "package-lock.json", ".npmrc"])
    copyFileSync(join(ROOT, f), join(tmp.dir, f));
  const out = dryCi(tmp.dir);
  assert.doesNotMatch(out, /EBADENGINE|npm warn/, out);
  assert.match(out, /added \d+ packages/);
  // without the checkout's npm settings the same tree warns, for werift (so the check above can fail)
  rmSync(join(tmp.dir, ".npmrc"));
  const loud = dryCi(tmp.dir);
  assert.match(loud, /EBADENGINE[\s\S]*package: 'werift@/);
  assert.doesNotMatch(
    loud,
    /package: 'whipbench@/,
    "devEngines: the project's own engines are not checked in the checkout",
  );
});
