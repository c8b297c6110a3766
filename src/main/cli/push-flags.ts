// `run`'s, `view`'s and `capacity`'s Pushgateway flags (docs/definitions.md#pushgateway): --push-gateway URL,
// --push-interval, --push-job, --push-instance and --push-token-env (the name of the variable that
// holds the bearer token: the token itself never appears on a command line or in any output).
import { type Command, Option } from "commander";
import { DEFAULT_PUSH_JOB } from "../run/run-inputs.ts";
import { durationFlag } from "./flags.ts";

export function addPushOptions(c: Command): Command {
  return c
    .option("--push-gateway <url>", "push the run's metrics to this Prometheus Pushgateway (and at the end)")
    .addOption(
      new Option("--push-interval <duration>", "time between pushes while the run lasts")
        .default(10e9, "10s")
        .argParser(durationFlag("--push-interval")),
    )
    .addOption(new Option("--push-job <name>", "the pushed series' job label").default(DEFAULT_PUSH_JOB))
    .option("--push-instance <name>", "the pushed series' instance label (default: this host's name)")
    .option("--push-token-env <name>", "environment variable holding the Pushgateway's bearer token");
}
