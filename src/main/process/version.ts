// docs/definitions.md#version-string: the package version, plus the source commit (and `.dirty`)
// when known: from git when run from a checkout, from dist/build-info.json (written by
// scripts/build.ts) when installed; and what `whipbench version` prints.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { EXIT_OK } from "../../core/errors.ts";

let cached: string | null = null;

interface BuildInfo {
  commit: string | null;
  dirty: boolean;
}

/** The built package's record of its source commit; null in a checkout (run from .ts). */
function buildInfo(): BuildInfo | null {
  if (import.meta.url.endsWith(".ts")) return null;
  try {
    return JSON.parse(readFileSync(new URL("../../build-info.json", import.meta.url), "utf8")) as BuildInfo;
  } catch {
    return { commit: null, dirty: false };
  }
}

function gitCommit(root: URL): BuildInfo {
  try {
    const git = (args: string[]) =>
      execFileSync("git", args, {
        cwd: root,
        stdio: ["ignore", "pipe", "ignore"],
        timeout: 2000,
        encoding: "utf8",
      });
    const rev = git(["rev-parse", "HEAD"]).trim().slice(0, 12);
    const dirty = git(["status", "--porcelain", "--untracked-files=no"]).trim() !== "";
    return { commit: /^[0-9a-f]{12}$/.test(rev) ? rev : null, dirty };
  } catch {
    // no git: the package version alone
    return { commit: null, dirty: false };
  }
}

/** The line `whipbench version` and `-v` print. */
export function versionLine(): string {
  return `whipbench ${version()}`;
}

/** `whipbench version`: prints the line; exit 0. */
export function versionCommand(): number {
  process.stdout.write(`${versionLine()}\n`);
  return EXIT_OK;
}

export function version(): string {
  if (cached !== null) return cached;
  // src/main/process or dist/main/process: the package root is three levels up either way
  const root = new URL("../../../", import.meta.url);
  const pkg = JSON.parse(readFileSync(new URL("package.json", root), "utf8")) as { version: string };
  // an installed package never asks git: its folder may sit inside someone else's repository
  const info = buildInfo() ?? gitCommit(root);
  cached = `v${pkg.version}${info.commit ? `+${info.commit}${info.dirty ? ".dirty" : ""}` : ""}`;
  return cached;
}
