// `run`'s and `view`'s Pushgateway flags (docs/definitions.md#pushgateway): --push-gateway URL,
// --push-interval, --push-job, --push-instance and --push-token-env (the name of the variable that
// holds the bearer token: the token itself never appears on a command line or in any output).
import { hostname } from "node:os";
import { type Command, Option } from "commander";
import { UsageError } from "../../core/errors.ts";
import { isHttpUrl } from "../../core/go-compat/url.ts";
import type { PushOptions } from "../observe/push.ts";
import { tokenFromEnv } from "../process/tokens.ts";
import { durationFlag } from "./flags.ts";

export interface PushFlags {
  pushGateway?: string;
  /** ns */
  pushInterval?: number;
  pushJob?: string;
  pushInstance?: string;
  pushTokenEnv?: string;
}

export const DEFAULT_PUSH_JOB = "whipbench";

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

/**
 * The push the flags ask for, or undefined without --push-gateway; a bad value is a usage error
 * naming its flag.
 */
export function pushFrom(f: PushFlags): PushOptions | undefined {
  const url = f.pushGateway;
  if (url === undefined) {
    const stray =
      f.pushTokenEnv !== undefined
        ? "--push-token-env"
        : f.pushInstance !== undefined
          ? "--push-instance"
          : null;
    if (stray !== null) throw new UsageError(`${stray} needs --push-gateway`);
    return undefined;
  }
  // the message never echoes the URL: it may carry credentials
  if (!isHttpUrl(url)) throw new UsageError("--push-gateway must be an http(s) URL");
  const intervalNs = f.pushInterval ?? 10e9;
  if (intervalNs < 1e9) throw new UsageError("--push-interval: at least 1s");
  const job = f.pushJob ?? DEFAULT_PUSH_JOB;
  if (job === "") throw new UsageError("--push-job: must not be empty");
  const instance = f.pushInstance ?? hostname();
  if (instance === "") throw new UsageError("--push-instance: must not be empty");
  const token = tokenFromEnv("--push-token-env", f.pushTokenEnv);
  return { url, job, instance, intervalNs, ...(token ? { token } : {}) };
}
