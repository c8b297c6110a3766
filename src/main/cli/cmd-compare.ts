// `whipbench compare BASE.json NEW.json [NEW2.json …]`: its flags; reading, ranking, gating and
// writing are compare/'s.
import type { Command } from "commander";
import { type CompareFlags, compareCommand } from "../compare/compare-command.ts";
import type { SetCode } from "./options.ts";

export function addCompare(p: Command, setCode: SetCode): void {
  p.command("compare")
    .description("compare reports: may they be ranked, the figures side by side, gates for CI")
    .argument("<base>", "the baseline report JSON")
    .argument("<new...>", "report JSON(s) to compare with the baseline")
    .option(
      "--fail-on <condition>",
      'exit 99 when NEW is worse beyond this, e.g. "oneWayDelay.p95 > +10%" or "loss > +0.2pp" (repeatable)',
      collect,
    )
    .option("--json", "print the comparison as JSON")
    .option("--md <file>", "also write the Markdown to this file")
    .option("--html <file>", "also write an HTML page to this file")
    .action(async (base: string, news: string[], flags: CompareFlags) =>
      setCode(await compareCommand(base, news, flags)),
    );
}

/** Collects a repeatable flag. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
