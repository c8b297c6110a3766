// `whipbench run [SCENARIO.json]`: its flags, and the run they ask for: a scenario file, the
// built-in relay's default scenario without one, or the viewers on agents with --agents.
import type { Command } from "commander";
import { UsageError } from "../../core/errors.ts";
import type { Scenario } from "../../core/scenario/scenario.ts";
import { coordinate } from "../agents/coordinator.ts";
import { type Logger, stderrLogger } from "../observe/log.ts";
import type { ProgressSink } from "../observe/progress.ts";
import { Relay } from "../relay/relay.ts";
import { engineFor } from "../run/engine-choice.ts";
import { type RunAndReportOptions, runAndReport } from "../run/run-and-report.ts";
import {
  applyKeyFlags,
  applyOverrides,
  readScenarioFile,
  type ScenarioKeyFlags,
  validated,
} from "../run/run-inputs.ts";
import { addCoordinatorOptions, type CoordinatorRunFlags, coordinatorFlags } from "./cmd-agent.ts";
import { addViewerOptions, outputOptions, type RunViewFlags, type SetCode } from "./options.ts";
import { pushFrom } from "./push-flags.ts";
import { addRunKeyOptions } from "./scenario-flags.ts";

export interface RunFlags extends RunViewFlags, CoordinatorRunFlags, ScenarioKeyFlags {}

export function addRun(p: Command, setCode: SetCode): void {
  const c = p
    .command("run")
    .description("one publisher plus viewers on a ramp; with no scenario, against the built-in relay")
    .argument("[scenario]", "scenario JSON file (default: 10 VP8 viewers through the built-in relay)")
    .option("--out <dir>", "report directory", ".")
    .option("--metrics <addr>", "serve Prometheus /metrics on this address while the run lasts");
  addCoordinatorOptions(outputOptions(addViewerOptions(addRunKeyOptions(c))));
  c.action(async (file: string | undefined, flags: RunFlags) => setCode(await runCommand(file, flags)));
}

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

export async function runCommand(file: string | undefined, flags: RunFlags): Promise<number> {
  const log = stderrLogger(flags.quiet ?? false);
  const onAgents = coordinatorFlags(flags);
  if (onAgents !== null) {
    if (file === undefined) throw new UsageError("--agents needs a scenario file");
    if (flags.workers !== undefined)
      throw new UsageError("--workers: with --agents each agent has its own --workers");
    const s = fromFile(await readScenarioFile(file), flags, log);
    // the agents receive start instants only (docs/definitions.md#churn)
    if (s.churn !== undefined) throw new UsageError("scenario: churn: not supported with --agents");
    if (s.workers !== undefined) {
      log.line("scenario key workers ignored: with --agents each agent has its own --workers");
      delete s.workers;
    }
    return coordinate(s, runOutputs(flags, log), onAgents);
  }
  if (file === undefined) return runWithoutScenario(flags, log);
  return runAndReportHere("run", fromFile(await readScenarioFile(file), flags, log), flags, log);
}

/** A scenario file's keys under the command line's flags, validated; a line names the keys the flags set. */
function fromFile(s: Scenario, flags: RunFlags, log: Logger): Scenario {
  const { scenario, set } = applyKeyFlags(s, flags);
  if (set.length > 0) log.line(`scenario keys set by flags: ${set.join(", ")}`);
  return validated(applyOverrides(scenario, flags));
}

/**
 * No scenario file: the built-in relay's default scenario under the flags, or, with --whip and
 * --whep (both or neither), the same default against that server and no relay.
 */
async function runWithoutScenario(flags: RunFlags, log: Logger): Promise<number> {
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
  const relay = new Relay({ ice: { loopbackOnly: true, includeLoopback: false }, threads: 1 });
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
