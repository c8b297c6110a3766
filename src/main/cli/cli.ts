// The command line (docs/definitions.md#command-line) on commander: run, capacity, view,
// publish, relay, agent, compare, matrix, version. One convention for every command: cli/cmd-X.ts
// declares X's flags and calls X's body, `xCommand(args, flags)` → exit status, which lives in the
// command's room (run/ for run and view, agents/ for run --agents and agent, publisher/, relay/,
// compare/, capacity/, matrix/, process/ for version) beside the flags type it takes; cli/ turns
// flag text into values and does no work of its own (test/unit/cli-thin.test.ts). Usage
// errors print one line naming the flag or key and exit 2; runs exit 0 (valid), 1 (error), 3 (no
// verdict), 99 (valid, a threshold failed); which error ends in which is core/errors.ts's.
import { Command, CommanderError } from "commander";
import { EXIT_OK, EXIT_USAGE } from "../../core/errors.ts";
import { endWithError } from "../process/exit.ts";
import { versionLine } from "../process/version.ts";
import { addAgent } from "./cmd-agent.ts";
import { addCapacity } from "./cmd-capacity.ts";
import { addCompare } from "./cmd-compare.ts";
import { addMatrix } from "./cmd-matrix.ts";
import { addPublish } from "./cmd-publish.ts";
import { addRelay } from "./cmd-relay.ts";
import { addRun } from "./cmd-run.ts";
import { addVersion } from "./cmd-version.ts";
import { addView } from "./cmd-view.ts";
import type { SetCode } from "./options.ts";

const ETIQUETTE = `Load-test only servers you run, a managed service on your own account within its terms,
or with written permission (docs/load-testing-etiquette.md). Reports record endpoint hosts only:
never paths, query strings or tokens.`;

function program(setCode: SetCode): Command {
  const p = new Command("whipbench")
    .description("Load engine and benchmark for WebRTC media servers over WHIP and WHEP")
    .addHelpText("after", `\nRun \`whipbench <command> --help\` for its flags.\n\n${ETIQUETTE}\n`)
    .version(versionLine(), "-v, --version", "print the version")
    .exitOverride();
  addRun(p, setCode);
  addCapacity(p, setCode);
  addView(p, setCode);
  addPublish(p, setCode);
  addRelay(p, setCode);
  addAgent(p, setCode);
  addCompare(p, setCode);
  addMatrix(p, setCode);
  addVersion(p, setCode);
  return p;
}

/** Commander's own ends: help and the version exit 0, anything else it refuses is a usage error. */
const COMMANDER_OK = ["commander.helpDisplayed", "commander.version", "commander.help"];

export async function main(argv: string[]): Promise<number> {
  let code = 0;
  const sub = argv[0] ?? "";
  const p = program((c) => {
    code = c;
  });
  p.configureOutput({
    outputError: (text, write) => {
      const unknown = /^error: unknown command '(.*)'/.exec(text);
      write(
        unknown
          ? `whipbench: unknown command "${unknown[1]}"\n\n`
          : `whipbench ${sub}: ${text.replace(/^error: /, "")}`,
      );
    },
  });
  for (const c of p.commands) c.exitOverride().configureOutput(p.configureOutput());
  // every command that sends traffic ends its usage text with the rule (docs/load-testing-etiquette.md)
  for (const c of p.commands) if (c.name() !== "version") c.addHelpText("after", `\n${ETIQUETTE}\n`);
  if (argv.length === 0) {
    p.outputHelp({ error: true });
    return EXIT_USAGE;
  }
  try {
    await p.parseAsync(argv, { from: "user" });
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === "commander.unknownCommand") p.outputHelp({ error: true });
      return COMMANDER_OK.includes(err.code) ? EXIT_OK : EXIT_USAGE;
    }
    return endWithError(err, sub);
  }
  return code;
}
