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
import { applyOverrides, readScenarioFile, validated } from "../run/run-inputs.ts";
import { addCoordinatorOptions, type CoordinatorRunFlags, coordinatorFlags } from "./cmd-agent.ts";
import { addViewerOptions, outputOptions, type RunViewFlags, type SetCode } from "./options.ts";

export interface RunFlags extends RunViewFlags, CoordinatorRunFlags {}

export function addRun(p: Command, setCode: SetCode): void {
  const c = p
    .command("run")
    .description("one publisher plus viewers on a ramp; with no scenario, against the built-in relay")
    .argument("[scenario]", "scenario JSON file (default: 10 VP8 viewers through the built-in relay)")
    .option("--out <dir>", "report directory", ".")
    .option("--metrics <addr>", "serve Prometheus /metrics on this address while the run lasts");
  addCoordinatorOptions(outputOptions(addViewerOptions(c)));
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
  peers: Pick<RunAndReportOptions, "clockPeer" | "sendLogPeer"> = {},
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
    const s = validated(applyOverrides(await readScenarioFile(file), flags));
    // the agents receive start instants only (docs/definitions.md#churn)
    if (s.churn !== undefined) throw new UsageError("scenario: churn: not supported with --agents");
    if (s.workers !== undefined) {
      log.line("scenario key workers ignored: with --agents each agent has its own --workers");
      delete s.workers;
    }
    return coordinate(s, runOutputs(flags, log), onAgents);
  }
  if (file === undefined) {
    // the relay's fan-out in a thread of its own, off the thread that runs the publisher
    const relay = new Relay({ ice: { loopbackOnly: true, includeLoopback: false }, threads: 1 });
    const base = await relay.listen("127.0.0.1", 0);
    log.line("no scenario given: 10 VP8 viewers through the built-in relay on 127.0.0.1");
    const relayName = `whipbench built-in relay, send path ${relay.send.describe()}`;
    log.line(relayName);
    try {
      return await runAndReportHere(
        "run",
        validated(applyOverrides(defaultScenario(base, relayName), flags)),
        flags,
        log,
      );
    } finally {
      await relay.close();
    }
  }
  return runAndReportHere("run", validated(applyOverrides(await readScenarioFile(file), flags)), flags, log);
}
