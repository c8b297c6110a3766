// The commands for a pipeline's gate: `compare` (may two reports be ranked, their figures side by
// side, --fail-on gates) and `matrix` (servers × scenarios × repeats, one table).
import type { Command } from "commander";
import { collect, compareCommand } from "./cmd-compare.ts";
import { matrixCommand } from "./cmd-matrix.ts";
import { intFlag } from "./flags.ts";

type SetCode = (code: number) => void;

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
    .action(async (base: string, news: string[], opts) => setCode(await compareCommand(base, news, opts)));
}

export function addMatrix(p: Command, setCode: SetCode): void {
  p.command("matrix")
    .description(
      "servers × scenarios × repeats, one report per cell and one table (resumes in the same --out)",
    )
    .argument("<matrix>", "matrix JSON file")
    .option("--out <dir>", "output directory (a second run with it resumes)", "matrix")
    .option("--workers <n>", "worker threads for viewers (0 = main thread)", intFlag("--workers", 0, 256))
    .option("--quiet", "no progress lines on stderr")
    .option("--no-html", "do not write the cells' HTML reports")
    .action(async (file: string, opts) => setCode(await matrixCommand(file, opts)));
}
