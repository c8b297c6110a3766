#!/usr/bin/env node
// Entry point. The CLI is TypeScript run by Node 22's built-in type stripping; the project pins
// Node 22 through the `node` npm package. When this file is started by an older Node (the
// system one), hand over to the pinned binary so every command runs on the same Node.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

if (!process.features.typescript) {
  const pinned = fileURLToPath(new URL("../node_modules/node/bin/node", import.meta.url));
  if (!existsSync(pinned)) {
    process.stderr.write(
      `whipbench: Node ${process.version} cannot run TypeScript; run \`npm ci\` to install the pinned Node 22\n`,
    );
    process.exit(1);
  }
  const child = spawn(pinned, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: "inherit",
  });
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
  const code = await new Promise((resolve) => child.on("exit", (c, s) => resolve(c ?? (s ? 3 : 1))));
  process.exit(code);
}

const { main } = await import("../src/main/cli/cli.ts");
process.exitCode = await main(process.argv.slice(2));
