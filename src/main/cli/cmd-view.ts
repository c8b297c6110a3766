// `whipbench view --whep URL`: N concurrent WHEP viewers of a stream someone else publishes; the
// scenario is built from the flags, so a validation message names the flag, not the key.
import { type Command, Option } from "commander";
import { ScenarioError, UsageError } from "../../core/errors.ts";
import type { Scenario } from "../../core/scenario/scenario.ts";
import { stderrLogger } from "../observe/log.ts";
import { applyOverrides, validated } from "../run/run-inputs.ts";
import { runAndReportHere } from "./cmd-run.ts";
import { hostPortFlag, intFlag } from "./flags.ts";
import {
  addViewerOptions,
  durationOption,
  outputOptions,
  type RunViewFlags,
  type SetCode,
} from "./options.ts";

export interface ViewFlags extends RunViewFlags {
  clockPeer?: { host: string; port: number };
  sendLogPeer?: { host: string; port: number };
  whep?: string;
  n: number;
  /** ns, as are duration and joinTimeout */
  ramp: number;
  duration: number;
  joinTimeout: number;
  name?: string;
  bearerEnv?: string;
  includeLoopback?: boolean;
  loopbackOnly?: boolean;
}

export function addView(p: Command, setCode: SetCode): void {
  const c = p
    .command("view")
    .description("N concurrent WHEP viewers of a stream someone else publishes, then a report")
    .option("--whep <url>", "WHEP endpoint URL (required)")
    .addOption(new Option("-n <viewers>", "viewers").default(10).argParser(intFlag("-n", 0, 1_000_000)))
    .addOption(durationOption("--ramp <duration>", "spread the starts over this long", 0))
    .addOption(durationOption("--duration <duration>", "hold after the ramp", 30e9))
    .addOption(durationOption("--join-timeout <duration>", "POST → first complete keyframe", 10e9))
    .option("--name <name>", "scenario name (title and file name)")
    .option("--bearer-env <name>", "environment variable holding a bearer token")
    .option("--metrics <addr>", "serve Prometheus /metrics on this address while the run lasts")
    .option("--include-loopback", "add loopback ICE candidates")
    .option("--loopback-only", "gather ICE candidates on 127.0.0.1 only");
  addViewerOptions(c)
    .option("--out <dir>", "report directory", ".")
    .option(
      "--clock-peer <addr>",
      "measure the publisher's clock against its --clock-listen (HOST:PORT)",
      hostPortFlag("--clock-peer", true),
    )
    .option(
      "--send-log-peer <addr>",
      "follow the publisher's send log (its --send-log-listen, HOST:PORT) for a fingerprint one-way delay",
      hostPortFlag("--send-log-peer", true),
    );
  outputOptions(c).action(async (flags: ViewFlags) => setCode(await viewCommand(flags)));
}

export async function viewCommand(flags: ViewFlags): Promise<number> {
  const log = stderrLogger(flags.quiet ?? false);
  const s: Scenario = {
    whep: flags.whep ?? "",
    viewers: flags.n,
    rampSeconds: flags.ramp / 1e9,
    holdSeconds: flags.duration / 1e9,
    joinTimeoutSeconds: flags.joinTimeout / 1e9,
  };
  if (flags.name) s.name = flags.name;
  if (flags.bearerEnv) s.bearerEnv = flags.bearerEnv;
  if (flags.includeLoopback) s.includeLoopback = true;
  if (flags.loopbackOnly) s.loopbackOnly = true;
  const v = viewValidated(applyOverrides(s, flags));
  return runAndReportHere("view", v, flags, log, {
    clockPeer: flags.clockPeer,
    sendLogPeer: flags.sendLogPeer,
  });
}

/** The scenario keys `view` builds from its flags, and the flag a user gives for each. */
const VIEW_FLAGS: Record<string, string> = {
  whep: "--whep",
  viewers: "-n",
  rampSeconds: "--ramp",
  holdSeconds: "--duration",
  joinTimeoutSeconds: "--join-timeout",
  rampOffsetMaxSeconds: "--ramp-offset-max",
  rampOffsetSeed: "--ramp-offset-seed",
  workers: "--workers",
};

/**
 * `view` has no scenario file, so a validation message names the flag, not the key it fills
 * (`--whep is required`, not `scenario: whep is required`).
 */
function viewValidated(s: Scenario): Scenario {
  try {
    return validated(s);
  } catch (err) {
    if (!(err instanceof ScenarioError)) throw err;
    const m = /^scenario: ([A-Za-z]+)(.*)$/s.exec(err.message);
    const flag = m === null ? undefined : VIEW_FLAGS[m[1] ?? ""];
    if (m === null || flag === undefined) throw err;
    const hint = m[1] === "whep" && m[2] === " is required" ? " (the WHEP URL of the stream to watch)" : "";
    throw new UsageError(`${flag}${m[2] ?? ""}${hint}`, undefined, { cause: err });
  }
}
