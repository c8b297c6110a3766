// The options several commands share, built once: the receive path, worker threads, the ramp
// offset, a duration shown as a duration, and what `run` and `view` write and show.
import { type Command, Option } from "commander";
import { goDuration } from "../../core/go-compat/time.ts";
import { RECEIVE_PATHS } from "../../core/scenario/defaults.ts";
import { durationFlag, intFlag, seedFlag } from "./flags.ts";
import { addPushOptions } from "./push-flags.ts";

export type SetCode = (code: number) => void;

export function receivePathOption(): Option {
  return new Option(
    "--receive-path <path>",
    "how viewers receive media: werift's own path, the lean one, or the lean one read in batches (arena, the default; lean where it cannot run)",
  ).choices(RECEIVE_PATHS);
}

/** The options `run`, `view` and `capacity` share. */
export function workersOption(): Option {
  return new Option("--workers <n>", "worker threads for viewers (0 = main thread)").argParser(
    intFlag("--workers", 0, 256),
  );
}

/** How `run`'s and `view`'s viewers start and run: the ramp offset, worker threads, the receive path. */
export function addViewerOptions(c: Command): Command {
  return c
    .addOption(
      new Option("--ramp-offset-seed <n>", "seed of the per-viewer start offset").argParser(
        seedFlag("--ramp-offset-seed"),
      ),
    )
    .addOption(
      new Option("--ramp-offset-max <duration>", "bound of the per-viewer start offset").argParser(
        durationFlag("--ramp-offset-max"),
      ),
    )
    .addOption(workersOption())
    .addOption(receivePathOption());
}

/** A duration flag whose help shows its default as a duration (`30s`), not as nanoseconds. */
export function durationOption(flags: string, description: string, defaultNs: number): Option {
  const name = flags.split(" ")[0] ?? flags;
  return new Option(flags, description)
    .default(defaultNs, goDuration(defaultNs))
    .argParser(durationFlag(name));
}

/** What `run` and `view` write, show and push. */
export function outputOptions(c: Command): Command {
  c.option("--quiet", "no progress lines on stderr")
    .option("--json", "print the report JSON on stdout (the human lines go to stderr)")
    .option("--html", "write an HTML report beside the JSON and Markdown (the default)")
    .option("--no-html", "do not write the HTML report")
    .option("--junit <file>", "write the thresholds as JUnit XML (one testcase per threshold)")
    .option("--summary-md <file>", "write a short Markdown summary (for a CI job summary)");
  return addPushOptions(c);
}
