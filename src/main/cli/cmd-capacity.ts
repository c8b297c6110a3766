// `whipbench capacity SCENARIO.json`: its flags; the search and its report are capacity/'s.
import type { Command } from "commander";
import { type CapacityFlags, capacityCommand } from "../capacity/capacity-command.ts";
import { receivePathOption, type SetCode, workersOption } from "./options.ts";
import { addPushOptions } from "./push-flags.ts";
import { addCapacityKeyOptions } from "./scenario-flags.ts";
import { addServerWatchOptions } from "./server-watch-flags.ts";

export function addCapacity(p: Command, setCode: SetCode): void {
  const c = p
    .command("capacity")
    .description(
      "find the most viewers the server holds within the scenario's thresholds (a search over steps)",
    )
    .argument("<scenario>", "scenario JSON file with thresholds (and optionally a capacity key)")
    .option("--out <dir>", "report directory", ".")
    .addOption(workersOption());
  addCapacityKeyOptions(c)
    .addOption(receivePathOption())
    .option("--quiet", "no progress lines on stderr")
    .option("--json", "print the capacity report JSON on stdout (the human lines go to stderr)")
    .option("--no-html", "do not write the HTML page");
  addPushOptions(c);
  addServerWatchOptions(c).action(async (file: string, flags: CapacityFlags) =>
    setCode(await capacityCommand(file, flags)),
  );
}
