#!/usr/bin/env node
// Entry point of the checkout and of the installed package.
//
// Installed (`npm i -g`, `npx <tarball>`, the container image) the package carries dist/, the
// JavaScript that `npm run build` emits (run by `prepack`), and no src/: this file runs
// dist/main/cli/cli.js on the Node that started it, which must be 22 or later (werift's own floor).
//
// In a checkout src/ is here and runs as TypeScript through Node 22's built-in type stripping;
// the project pins Node 22 through the `node` npm package, and when this file is started by an
// older Node (the system one) it hands over to the pinned binary.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const checkout = existsSync(fileURLToPath(new URL("../src/main/cli/cli.ts", import.meta.url)));
const major = Number(process.versions.node.split(".")[0]);

if (!checkout) {
  if (major < 22) {
    process.stderr.write(
      `whipbench: needs Node.js 22 or later (tested on 22 and 24); this is Node ${process.version}\n`,
    );
    process.exit(1);
  }
  const built = new URL("../dist/main/cli/cli.js", import.meta.url).href;
  const { main } = await import(built);
  process.exitCode = await main(process.argv.slice(2));
} else if (!process.features.typescript) {
  const pinned = fileURLToPath(new URL("../node_modules/node/bin/node", import.meta.url));
  if (!existsSync(pinned)) {
    process.stderr.write(
      `whipbench: Node ${process.version} cannot run TypeScript; run \`npm ci\` to install the pinned Node 22\n`,
    );
    process.exit(1);
  }
  // its own process group: a signal to this one's group (Ctrl-C, `kill -- -PGID`) reaches the
  // child once, forwarded below, not twice (a second signal means "exit at once, no report")
  const child = spawn(pinned, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: "inherit",
    detached: true,
  });
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
  const code = await new Promise((resolve) => child.on("exit", (c, s) => resolve(c ?? (s ? 3 : 1))));
  process.exit(code);
} else {
  const { main } = await import("../src/main/cli/cli.ts");
  process.exitCode = await main(process.argv.slice(2));
}
