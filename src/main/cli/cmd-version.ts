// `whipbench version` (and -v, --version on the program): docs/definitions.md#version-string.
import type { Command } from "commander";
import { EXIT_OK } from "../../core/errors.ts";
import { version } from "../process/version.ts";
import type { SetCode } from "./options.ts";

/** The line both forms print. */
export function versionLine(): string {
  return `whipbench ${version()}`;
}

export function addVersion(p: Command, setCode: SetCode): void {
  p.command("version")
    .description("print the version")
    .action(() => {
      process.stdout.write(`${versionLine()}\n`);
      setCode(EXIT_OK);
    });
}
