// `whipbench run [SCENARIO.json]`: its flags; the run is run/'s (run-command.ts), or with --agents
// agents/' (coordinator.ts).
import type { Command } from "commander";
import { runOnAgents } from "../agents/coordinator.ts";
import { type RunHereFlags, runCommand } from "../run/run-command.ts";
import { addCoordinatorOptions, type CoordinatorRunFlags, coordinatorFlags } from "./coordinator-flags.ts";
import { addViewerOptions, outputOptions, type SetCode } from "./options.ts";
import { addRunKeyOptions } from "./scenario-flags.ts";

export interface RunFlags extends RunHereFlags, CoordinatorRunFlags {}

export function addRun(p: Command, setCode: SetCode): void {
  const c = p
    .command("run")
    .description("one publisher plus viewers on a ramp; with no scenario, against the built-in relay")
    .argument("[scenario]", "scenario JSON file (default: 10 VP8 viewers through the built-in relay)")
    .option("--out <dir>", "report directory", ".")
    .option("--metrics <addr>", "serve Prometheus /metrics on this address while the run lasts");
  addCoordinatorOptions(outputOptions(addViewerOptions(addRunKeyOptions(c))));
  c.action(async (file: string | undefined, flags: RunFlags) => {
    const onAgents = coordinatorFlags(flags);
    setCode(await (onAgents === null ? runCommand(file, flags) : runOnAgents(file, flags, onAgents)));
  });
}
