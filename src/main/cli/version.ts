// docs/definitions.md#version-string: the package version, plus the git revision (and `.dirty`) when run from a checkout.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

let cached: string | null = null;

export function version(): string {
  if (cached !== null) return cached;
  const root = new URL("../../../", import.meta.url);
  const pkg = JSON.parse(readFileSync(new URL("package.json", root), "utf8")) as { version: string };
  let v = `v${pkg.version}`;
  try {
    const git = (args: string[]) =>
      execFileSync("git", args, {
        cwd: root,
        stdio: ["ignore", "pipe", "ignore"],
        timeout: 2000,
        encoding: "utf8",
      });
    const rev = git(["rev-parse", "HEAD"]).trim().slice(0, 12);
    const dirty = git(["status", "--porcelain", "--untracked-files=no"]).trim();
    if (/^[0-9a-f]{12}$/.test(rev)) v += `+${rev}${dirty ? ".dirty" : ""}`;
  } catch {
    // not a checkout, or no git: the package version alone
  }
  cached = v;
  return v;
}
