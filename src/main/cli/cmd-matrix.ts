// `whipbench matrix MATRIX.json`: its flags; the cells, their servers and the table are matrix/'s.
import type { Command } from "commander";
import { type MatrixFlags, matrixCommand } from "../matrix/matrix-command.ts";
import { intFlag } from "./flags.ts";
import type { SetCode } from "./options.ts";

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
    .action(async (file: string, flags: MatrixFlags) => setCode(await matrixCommand(file, flags)));
}
