// What a run reads before it starts, shared by every command that runs viewers: the scenario
// file (at most 1 MiB; one that cannot be read is a usage error), the validated scenario, the
// command line's overrides of its keys, and the Pushgateway push `run`'s and `view`'s flags ask for
// (docs/definitions.md#pushgateway).

import { readFile, stat } from "node:fs/promises";
import { hostname } from "node:os";
import { errnoCode, UsageError } from "../../core/errors.ts";
import { isHttpUrl } from "../../core/go-compat/url.ts";
import type { LayerSwitchSpec } from "../../core/layer/layer-switch.ts";
import type { ReceivePath } from "../../core/scenario/defaults.ts";
import {
  normaliseScenario,
  parseScenario,
  type Scenario,
  validateScenario,
} from "../../core/scenario-file/scenario.ts";
import type { PushOptions } from "../observe/push.ts";
import { tokenFromEnv } from "../process/tokens.ts";

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
  referenceViewers?: number;
  /** --simulcast: the layers' rids, lowest first */
  simulcast?: string[];
  /** --layer-switch: the viewers' layer choice */
  layerSwitch?: LayerSwitchSpec;
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
  put("simulcast", f.simulcast);
  put("layerSwitch", f.layerSwitch);
  if (f.audio === true) put("audio", true);
  if (f.audio === false) {
    delete out.audio;
    set.push("audio");
  }
  put("referenceViewers", f.referenceViewers);
  return { scenario: out, set };
}

export interface PushFlags {
  pushGateway?: string;
  /** ns */
  pushInterval?: number;
  pushJob?: string;
  pushInstance?: string;
  pushTokenEnv?: string;
}

export const DEFAULT_PUSH_JOB = "whipbench";

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
