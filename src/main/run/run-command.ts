// What `whipbench run [SCENARIO.json]` does on this host: a scenario file's run, or the built-in
// relay's default scenario without one; and what `run` and `view` share (their outputs, a run
// here). With --agents the viewers run on agents instead (agents/coordinator.ts).
import { UsageError } from "../../core/errors.ts";
import type { Scenario } from "../../core/scenario/types.ts";
import { type Logger, stderrLogger } from "../observe/log.ts";
import type { ProgressSink } from "../observe/progress.ts";
import { Relay } from "../relay/relay.ts";
import { engineFor } from "./engine-choice.ts";
import { type RunAndReportOptions, runAndReport } from "./run-and-report.ts";
import {
  applyKeyFlags,
  applyOverrides,
  type PushFlags,
  pushFrom,
  readScenarioFile,
  type ScenarioKeyFlags,
  type ScenarioOverrides,
  validated,
} from "./run-inputs.ts";

/** The flags of what `run` and `view` write and show (cli/options.ts, outputOptions). */
export interface OutputFlags {
  out: string;
  quiet?: boolean;
  /** false with --no-html */
  html?: boolean;
  json?: boolean;
  /** JUnit XML of the thresholds, and a short Markdown summary for CI */
  junit?: string;
  summaryMd?: string;
}

/** The flags `run` and `view` share: their overrides of the scenario and their outputs. */
export interface RunViewFlags extends ScenarioOverrides, OutputFlags, PushFlags {}

/** `run`'s flags on this host: the shared ones and the scenario key flags. */
export interface RunHereFlags extends RunViewFlags, ScenarioKeyFlags {}

/** The scenario `whipbench run` uses with no file: 10 VP8 viewers through the built-in relay. */
export function defaultScenario(base: string, relay?: string): Scenario {
  return {
    name: "built-in-relay",
    // the report's server block names the in-process relay and its send path
    ...(relay !== undefined ? { serverVersion: relay } : {}),
    whip: `${base}/default/whip`,
    whep: `${base}/default/whep`,
    codec: "vp8",
    viewers: 10,
    rampSeconds: 5,
    holdSeconds: 15,
    warmupSeconds: 2,
    excludeFirstSeconds: 2,
    loopbackOnly: true,
  };
}

/** The progress display on stderr: its width read at each redraw. */
function stderrProgress(): ProgressSink {
  const stderr = process.stderr;
  return {
    isTTY: stderr.isTTY === true,
    get columns() {
      return stderr.columns ?? 0;
    },
    write: (text: string) => stderr.write(text),
  };
}

/** What `run` and `view` share beyond the scenario: output, progress, HTML, --json. */
export function runOutputs(
  flags: RunViewFlags,
  log: Logger,
): Omit<RunAndReportOptions, "command" | "scenario" | "engine"> {
  return {
    out: flags.out,
    log,
    html: flags.html ?? true,
    json: flags.json ?? false,
    gateFiles: { junit: flags.junit, summaryMd: flags.summaryMd },
    push: pushFrom(flags),
    ...(flags.quiet ? {} : { progress: stderrProgress() }),
  };
}

/**
 * `run`'s or `view`'s scenario executed on this host, with the engine it asks for (and `view`'s
 * split-run peers).
 */
export function runAndReportHere(
  command: "run" | "view",
  s: Scenario,
  flags: RunViewFlags,
  log: Logger,
  peers: Pick<RunAndReportOptions, "clockPeer" | "sendLogPeer" | "relaySocketDrops"> = {},
): Promise<number> {
  const out = runOutputs(flags, log);
  const engine = engineFor(s, out.progress !== undefined, log);
  return runAndReport({ command, scenario: s, ...out, engine, ...peers });
}

export async function runCommand(file: string | undefined, flags: RunHereFlags): Promise<number> {
  const log = stderrLogger(flags.quiet ?? false);
  if (file === undefined) return runWithoutScenario(flags, log);
  return runAndReportHere("run", scenarioFromFile(await readScenarioFile(file), flags, log), flags, log);
}

/** A scenario file's keys under the command line's flags, validated; a line names the keys the flags set. */
export function scenarioFromFile(s: Scenario, flags: RunHereFlags, log: Logger): Scenario {
  const { scenario, set } = applyKeyFlags(s, flags);
  if (set.length > 0) log.line(`scenario keys set by flags: ${set.join(", ")}`);
  return validated(applyOverrides(scenario, flags));
}

/**
 * No scenario file: the built-in relay's default scenario under the flags, or, with --whip and
 * --whep (both or neither), the same default against that server and no relay.
 */
async function runWithoutScenario(flags: RunHereFlags, log: Logger): Promise<number> {
  if ((flags.whip === undefined) !== (flags.whep === undefined))
    throw new UsageError(
      "--whip and --whep: without a scenario file give both (or neither, for the built-in relay)",
    );
  const describe = (s: Scenario) =>
    `${s.viewers} ${(s.codec ?? "vp8").toUpperCase()} viewers${s.audio ? " with audio" : ""}`;
  if (flags.whip !== undefined) {
    const { name: _relay, loopbackOnly: _loopback, ...rest } = defaultScenario("http://127.0.0.1");
    const s = validated(applyOverrides(applyKeyFlags(rest, flags).scenario, flags));
    log.line(`no scenario given: ${describe(s)}, publishing to --whip, viewing --whep`);
    return runAndReportHere("run", s, flags, log);
  }
  // the relay's fan-out in a thread of its own, off the thread that runs the publisher
  const relay = new Relay({
    ice: { loopbackOnly: true, includeLoopback: false },
    threads: 1,
    onThreadLost: (line) => log.line(`built-in relay: ${line}`),
  });
  const base = await relay.listen("127.0.0.1", 0);
  try {
    const relayName = `whipbench built-in relay, send path ${relay.send.describe()}`;
    const s = validated(
      applyOverrides(applyKeyFlags(defaultScenario(base, relayName), flags).scenario, flags),
    );
    log.line(`no scenario given: ${describe(s)} through the built-in relay on 127.0.0.1`);
    log.line(relayName);
    // its drops are the server's (docs/definitions.md#udp-drops)
    return await runAndReportHere("run", s, flags, log, { relaySocketDrops: relay.socketDrops });
  } finally {
    await relay.close();
  }
}
