// `whipbench version` (and -v, --version on the program): docs/definitions.md#version-string.
import type { Command } from "commander";
import { versionCommand } from "../process/version.ts";
import type { SetCode } from "./options.ts";

export function addVersion(p: Command, setCode: SetCode): void {
  p.command("version")
    .description("print the version")
    .action(() => setCode(versionCommand()));
}
