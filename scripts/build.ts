// `npm run build` (and `prepack`): the package's JavaScript. tsc emits src/ to dist/ with the
// `.ts` import extensions rewritten to `.js` (tsconfig.build.json); the HTML report's page
// script is copied beside the module that reads it; dist/build-info.json records the source
// commit, since an installed package has no git checkout to ask.
import { execFileSync } from "node:child_process";
import { copyFileSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../", import.meta.url));
const dist = `${root}dist`;

function git(args: string[]): string | null {
  try {
    return execFileSync("git", args, { cwd: root, stdio: ["ignore", "pipe", "ignore"], encoding: "utf8" }).trim();
  } catch {
    return null;
  }
}

rmSync(dist, { recursive: true, force: true });
execFileSync(process.execPath, [`${root}node_modules/typescript/bin/tsc`, "-p", `${root}tsconfig.build.json`], {
  stdio: "inherit",
});
// the pages' browser scripts are inlined into each HTML page as they are, not compiled
for (const f of readdirSync(`${root}src/main/output`).filter((n) => n.endsWith(".browser.js"))) {
  copyFileSync(`${root}src/main/output/${f}`, `${dist}/main/output/${f}`);
}
const rev = git(["rev-parse", "HEAD"]);
const commit = rev !== null && /^[0-9a-f]{40}$/.test(rev) ? rev.slice(0, 12) : null;
const dirty = commit !== null && (git(["status", "--porcelain", "--untracked-files=no"]) ?? "") !== "";
const pkg = JSON.parse(readFileSync(`${root}package.json`, "utf8")) as { version: string };
writeFileSync(`${dist}/build-info.json`, `${JSON.stringify({ version: pkg.version, commit, dirty })}\n`);
process.stdout.write(`built dist/ (whipbench ${pkg.version}${commit ? ` from ${commit}${dirty ? ".dirty" : ""}` : ""})\n`);
