// What `whipbench view --whep URL` does: N concurrent WHEP viewers of a stream someone else
// publishes, run here as `run` runs (run-command.ts); the scenario is built from the flags, so a
// validation message names the flag, not the key.
import { ScenarioError, UsageError } from "../../core/errors.ts";
import type { Scenario } from "../../core/scenario/types.ts";
import { stderrLogger } from "../observe/log.ts";
import { type RunViewFlags, runAndReportHere } from "./run-command.ts";
import { applyOverrides, validated } from "./run-inputs.ts";

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
  referenceViewers?: number;
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
  if (flags.referenceViewers) s.referenceViewers = flags.referenceViewers;
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
  referenceViewers: "--reference-viewers",
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
