// `whipbench run [SCENARIO.json]` and `whipbench view --whep URL`.
import { readFile, stat } from "node:fs/promises";
import { cpus } from "node:os";
import type { ReceivePath } from "../../core/scenario/defaults.ts";
import {
  normaliseScenario,
  parseScenario,
  type Scenario,
  ScenarioError,
  validateScenario,
} from "../../core/scenario/scenario.ts";
import { LiveThresholds } from "../../core/thresholds/live.ts";
import { coordinate } from "../agents/coordinator.ts";
import { type Logger, stderrLogger } from "../observe/log.ts";
import { Relay } from "../relay/relay.ts";
import { defaultWorkers, type Engine, inThreadEngine, oversubscribedNote } from "../run/engine.ts";
import { poolEngine } from "../run/pool-engine.ts";
import { type CoordinatorRunFlags, coordinatorFlags } from "./cmd-agent.ts";
import { execute } from "./execute.ts";
import { UsageError } from "./flags.ts";

const MAX_SCENARIO_BYTES = 1 << 20;

export interface RunFlags extends CoordinatorRunFlags {
  receivePath?: ReceivePath;
  out: string;
  metrics?: string;
  rampOffsetSeed?: bigint;
  rampOffsetMax?: number;
  workers?: number;
  quiet?: boolean;
  /** false with --no-html */
  html?: boolean;
  json?: boolean;
  /** issue 14: JUnit XML of the thresholds, and a short Markdown summary for CI */
  junit?: string;
  summaryMd?: string;
}

/** The scenario `whipbench run` uses with no file: 10 VP8 viewers through the built-in relay. */
export function defaultScenario(base: string): Scenario {
  return {
    name: "built-in-relay",
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

export async function readScenarioFile(file: string): Promise<Scenario> {
  return parseScenario(await readScenarioText(file));
}

/** The scenario file's text (at most 1 MiB); a file that cannot be read is a usage error. */
export async function readScenarioText(file: string): Promise<string> {
  let text: string;
  try {
    const st = await stat(file);
    if (st.isDirectory()) throw new UsageError("the scenario file is a directory");
    if (st.size > MAX_SCENARIO_BYTES) throw new UsageError("the scenario file is larger than 1 MiB");
    text = await readFile(file, "utf8");
  } catch (err) {
    if (err instanceof UsageError) throw err;
    const code = (err as { code?: string }).code;
    throw new UsageError(
      code === "ENOENT" ? "the scenario file does not exist" : "the scenario file cannot be read",
    );
  }
  return text;
}

/** The command line's flags over the scenario's keys. */
export function applyOverrides(s: Scenario, flags: RunFlags): Scenario {
  const out: Scenario = { ...s };
  if (flags.metrics) out.metrics = flags.metrics;
  if (flags.rampOffsetSeed !== undefined) out.rampOffsetSeed = flags.rampOffsetSeed;
  if (flags.rampOffsetMax) out.rampOffsetMaxSeconds = flags.rampOffsetMax / 1e9;
  if (flags.workers !== undefined) out.workers = flags.workers;
  if (flags.receivePath) out.receivePath = flags.receivePath;
  return out;
}

/** `workers` from the flag or the scenario; unset: one core for the main thread, the rest for viewers. */
/** `reuse`: keep the worker pool from one run to the next (a capacity search), released by `close()`. */
export function engineFor(s: Scenario, flags: RunFlags, log: Logger, reuse = false): Engine {
  const workers = s.workers ?? defaultWorkers();
  const note = oversubscribedNote(workers, cpus().length);
  if (note !== null) log.line(note);
  // live one-way delay samples feed /metrics and the progress line
  const liveDelays =
    (s.metrics ?? "") !== "" || !(flags.quiet ?? false) || LiveThresholds.wanted(s.thresholds);
  return workers === 0 ? inThreadEngine({ liveDelays }) : poolEngine({ workers, liveDelays, reuse });
}

/** What `run` and `view` share beyond the scenario: output, progress, HTML, --json. */
function outputs(s: Scenario, flags: RunFlags, log: Logger) {
  const stderr = process.stderr;
  return {
    out: flags.out,
    log,
    engine: engineFor(s, flags, log),
    html: flags.html ?? true,
    json: flags.json ?? false,
    gateFiles: { junit: flags.junit, summaryMd: flags.summaryMd },
    ...(flags.quiet
      ? {}
      : {
          progress: {
            isTTY: stderr.isTTY === true,
            get columns() {
              return stderr.columns ?? 0;
            },
            write: (text: string) => stderr.write(text),
          },
        }),
  };
}

export async function runCommand(file: string | undefined, flags: RunFlags): Promise<number> {
  const log = stderrLogger(flags.quiet ?? false);
  const many = coordinatorFlags(flags);
  if (many !== null) {
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
    const { engine: _local, ...out } = outputs(s, flags, log);
    return coordinate(s, out, many);
  }
  if (file === undefined) {
    const relay = new Relay({ ice: { loopbackOnly: true, includeLoopback: false } });
    const base = await relay.listen("127.0.0.1", 0);
    log.line("no scenario given: 10 VP8 viewers through the built-in relay on 127.0.0.1");
    try {
      const s = validated(applyOverrides(defaultScenario(base), flags));
      return await execute({ command: "run", scenario: s, ...outputs(s, flags, log) });
    } finally {
      await relay.close();
    }
  }
  const s = validated(applyOverrides(await readScenarioFile(file), flags));
  return execute({ command: "run", scenario: s, ...outputs(s, flags, log) });
}

export interface ViewFlags extends RunFlags {
  clockPeer?: { host: string; port: number };
  sendLogPeer?: { host: string; port: number };
  whep?: string;
  n: number;
  ramp: number;
  duration: number;
  joinTimeout: number;
  name?: string;
  bearerEnv?: string;
  includeLoopback?: boolean;
  loopbackOnly?: boolean;
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
  return execute({
    command: "view",
    scenario: v,
    ...outputs(v, flags, log),
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
    throw new UsageError(`${flag}${m[2] ?? ""}${hint}`);
  }
}

export function validated(s: Scenario): Scenario {
  const n = normaliseScenario(s);
  validateScenario(n);
  return n;
}

export { ScenarioError };
