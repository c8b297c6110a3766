// Shared execution of `run` and `view` (§2.5): run, build the report, write the files, print the
// verdict and headline on stdout, and map the outcome to an exit code.
import { buildReport } from "../core/report/build.ts";
import { reportStem, stdoutLines } from "../core/report/headline.ts";
import { reportToJson } from "../core/report/json.ts";
import { reportToMarkdown } from "../core/report/markdown.ts";
import type { Scenario } from "../core/scenario.ts";
import { type Engine, inThreadEngine } from "./engine.ts";
import { bearerFrom } from "./flags.ts";
import type { Logger } from "./log.ts";
import { run } from "./runner.ts";
import { writeErrorText, writeReport } from "./write-report.ts";

export interface ExecuteOptions {
  command: "run" | "view";
  scenario: Scenario;
  out: string;
  log: Logger;
  engine?: Engine;
  noStamp?: boolean;
  /** where stdout lines go (tests capture them) */
  stdout?: (line: string) => void;
}

export const EXIT_OK = 0;
export const EXIT_ERROR = 1;
export const EXIT_USAGE = 2;
export const EXIT_NO_VERDICT = 3;

/** Installs SIGINT/SIGTERM handlers for the duration of `body`: the first signal aborts, a second exits at once. */
export async function withInterrupt<T>(log: Logger, body: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const ctl = new AbortController();
  const onSignal = (name: string) => {
    if (ctl.signal.aborted) {
      process.stderr.write(`whipbench: second ${name}, exiting now\n`);
      process.exit(EXIT_NO_VERDICT);
    }
    log.line(`${name}: stopping; the report is still written (send it again to exit at once)`);
    ctl.abort();
  };
  const onInt = () => onSignal("SIGINT");
  const onTerm = () => onSignal("SIGTERM");
  process.on("SIGINT", onInt);
  process.on("SIGTERM", onTerm);
  try {
    return await body(ctl.signal);
  } finally {
    process.off("SIGINT", onInt);
    process.off("SIGTERM", onTerm);
  }
}

export async function execute(opts: ExecuteOptions): Promise<number> {
  const { scenario: s, log } = opts;
  const out = opts.stdout ?? ((line: string) => process.stdout.write(`${line}\n`));
  const bearer = bearerFrom(s.bearerEnv, opts.command);
  const input = await withInterrupt(log, (interrupt) =>
    run({
      command: opts.command,
      scenario: s,
      bearer,
      engine: opts.engine ?? inThreadEngine(),
      log,
      interrupt,
      noStamp: opts.noStamp ?? false,
    }),
  );
  const report = buildReport(input);
  log.line(report.aggregate.verdict);
  let files: { json: string; markdown: string };
  try {
    files = await writeReport(
      opts.out,
      reportStem(input.startedAtUnixNs, s.name ?? ""),
      reportToJson(report),
      reportToMarkdown(report),
    );
  } catch (err) {
    process.stderr.write(`whipbench ${opts.command}: ${writeErrorText(err)}\n`);
    return EXIT_ERROR;
  }
  for (const line of stdoutLines(report)) out(line);
  out(`wrote ${files.json}`);
  out(`wrote ${files.markdown}`);
  return report.aggregate.valid ? EXIT_OK : EXIT_NO_VERDICT;
}
