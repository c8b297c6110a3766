// What a run reads before it starts, shared by every command that runs viewers: the scenario
// file (at most 1 MiB; one that cannot be read is a usage error), the validated scenario, the
// command line's overrides of its keys, and the bearer token a named environment variable holds.
import { readFile, stat } from "node:fs/promises";
import { errnoCode, UsageError } from "../../core/errors.ts";
import type { ReceivePath } from "../../core/scenario/defaults.ts";
import {
  normaliseScenario,
  parseScenario,
  type Scenario,
  validateScenario,
} from "../../core/scenario/scenario.ts";

const MAX_SCENARIO_BYTES = 1 << 20;

/** The scenario keys a command-line flag may set over the file's. */
export interface ScenarioOverrides {
  metrics?: string;
  rampOffsetSeed?: bigint;
  /** ns */
  rampOffsetMax?: number;
  workers?: number;
  receivePath?: ReceivePath;
}

/**
 * The scenario keys `run`'s and `capacity`'s key flags set (cli/scenario-flags.ts; undefined: the
 * scenario's own).
 */
export interface ScenarioKeyFlags {
  viewers?: number;
  /** ns */
  ramp?: number;
  /** ns */
  hold?: number;
  codec?: "vp8" | "h264";
  /** --audio true, --no-audio false */
  audio?: boolean;
  whip?: string;
  whep?: string;
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
    const code = errnoCode(err);
    throw new UsageError(
      code === "ENOENT" ? "the scenario file does not exist" : "the scenario file cannot be read",
      undefined,
      { cause: err },
    );
  }
  return text;
}

/** The command line's flags over the scenario's keys. */
export function applyOverrides(s: Scenario, flags: ScenarioOverrides): Scenario {
  const out: Scenario = { ...s };
  if (flags.metrics) out.metrics = flags.metrics;
  if (flags.rampOffsetSeed !== undefined) out.rampOffsetSeed = flags.rampOffsetSeed;
  if (flags.rampOffsetMax) out.rampOffsetMaxSeconds = flags.rampOffsetMax / 1e9;
  if (flags.workers !== undefined) out.workers = flags.workers;
  if (flags.receivePath) out.receivePath = flags.receivePath;
  return out;
}

export function validated(s: Scenario): Scenario {
  const n = normaliseScenario(s);
  validateScenario(n);
  return n;
}

/** The token named by --bearer-env / bearerEnv; a named but empty variable is a usage error of `command`. */
export function bearerFrom(name: string | undefined, command: string): string | undefined {
  if (!name) return undefined;
  const v = process.env[name];
  if (!v) throw new UsageError(`--bearer-env ${name}: the variable is empty or unset`, command);
  return v;
}

/** The flags over the scenario's keys; `set` names the keys they replaced, in key order. */
export function applyKeyFlags(s: Scenario, f: ScenarioKeyFlags): { scenario: Scenario; set: string[] } {
  const out: Scenario = { ...s };
  const set: string[] = [];
  const put = <K extends keyof Scenario>(key: K, v: Scenario[K] | undefined) => {
    if (v === undefined) return;
    out[key] = v;
    set.push(key);
  };
  put("whip", f.whip);
  put("whep", f.whep);
  put("codec", f.codec);
  put("viewers", f.viewers);
  put("rampSeconds", f.ramp === undefined ? undefined : f.ramp / 1e9);
  put("holdSeconds", f.hold === undefined ? undefined : f.hold / 1e9);
  if (f.audio === true) put("audio", true);
  if (f.audio === false) {
    delete out.audio;
    set.push("audio");
  }
  return { scenario: out, set };
}
