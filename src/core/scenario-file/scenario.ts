// Scenario JSON (docs/definitions.md#scenario): strict parsing (Go encoding/json with
// DisallowUnknownFields and one value only), defaults (docs/definitions.md#scenario-keys) and
// validation (docs/definitions.md#scenario-validation, first failure wins, exact messages; URLs are
// never echoed). The parser sits above what it parses with: the scenario's type and its own keys'
// helpers (scenario/), the thresholds (whose figures are read from a report), the capacity and
// cohort keys; so nothing those import reaches back to the parser.

import { parseCapacity } from "../capacity/parse.ts";
import { errorMessage, JsonSyntaxError, ScenarioError } from "../errors.ts";
import { isHttpUrl } from "../go-compat/url.ts";
import { layerSwitchProblem, parseLayerSwitch } from "../layer/layer-switch.ts";
import { MAX_REFERENCE_VIEWERS, parseCohorts, UNIMPAIRED } from "../link/parse.ts";
import { parseChurn } from "../scenario/churn.ts";
import { churnProblem, churnRun } from "../scenario/churn-schedule.ts";
import {
  CLIP_CHOICES,
  KEYFRAME_REQUESTS,
  RECEIVE_PATHS,
  SCENARIO_DEFAULTS,
  STAMP_SOURCES,
  VIEWER_PROFILES,
  VIEWER_SOCKETS,
} from "../scenario/defaults.ts";
import { scanFirstValue } from "../scenario/json.ts";
import { decodeMember, type GoType, goQuote, INT64_MAX, INT64_MIN, jsonKind } from "../scenario/members.ts";
import { parseSimulcast } from "../scenario/simulcast.ts";
import { type Scenario, SERVER_KEYS } from "../scenario/types.ts";
import { splitCohortKey } from "../thresholds/cohort-figures.ts";
import { parseThresholds } from "../thresholds/parse.ts";

export type { Scenario };
export { SERVER_KEYS };

const MAX_SERVER_TEXT = 200;

/** Scenario keys in docs/definitions.md#scenario-keys order with their Go field types. */
export const SCENARIO_KEYS: ReadonlyArray<readonly [keyof Scenario, GoType]> = [
  ["name", "string"],
  ["whip", "string"],
  ["whep", "string"],
  ["codec", "string"],
  ["clip", "string"],
  ["viewers", "int"],
  ["rampSeconds", "float64"],
  ["holdSeconds", "float64"],
  ["rampOffsetSeed", "int64"],
  ["rampOffsetMaxSeconds", "float64"],
  ["warmupSeconds", "float64"],
  ["joinTimeoutSeconds", "float64"],
  ["stallMs", "float64"],
  ["excludeFirstSeconds", "float64"],
  ["bearerEnv", "string"],
  ["metrics", "string"],
  ["includeLoopback", "bool"],
  ["loopbackOnly", "bool"],
  ["workers", "int"],
  ["receivePath", "string"],
  ["stampSource", "string"],
  ["viewerSockets", "string"],
  ["keyframeOnRequest", "bool"],
  ["keyframeRequests", "string"],
  ["viewerProfile", "string"],
  ["audio", "bool"],
  ["referenceViewers", "int"],
  ["serverVersion", "string"],
  ["plan", "string"],
  ["region", "string"],
  ["permission", "string"],
];

/** The keys whose value is an object or a list with its own parser (each error names its key). */
const OBJECT_KEYS: Record<string, (raw: unknown) => unknown> = {
  thresholds: parseThresholds,
  capacity: parseCapacity,
  cohorts: parseCohorts,
  churn: parseChurn,
  simulcast: parseSimulcast,
  layerSwitch: parseLayerSwitch,
};

/** Field lookup like Go: exact name first, then ASCII case-insensitive. */
function fieldFor(key: string): readonly [keyof Scenario, GoType] | undefined {
  const exact = SCENARIO_KEYS.find(([k]) => k === key);
  if (exact !== undefined) return exact;
  const folded = key.toLowerCase();
  return /^[\x20-\x7e]*$/.test(key) ? SCENARIO_KEYS.find(([k]) => k.toLowerCase() === folded) : undefined;
}

/**
 * Strict parse: one JSON object, known keys only (Go's case-insensitive match), Go types
 * (integers as integer literals; `rampOffsetSeed` exact as int64; null is rejected). Missing
 * required keys take Go's zero values. Then normalise and validate. Throws ScenarioError.
 */
export function parseScenario(text: string): Scenario {
  return validateScenario(normaliseScenario(decodeScenario(text)));
}

/** The decoding step of parseScenario alone (no defaults, no validation). */
export function decodeScenario(text: string): Scenario {
  let scanned: ReturnType<typeof scanFirstValue>;
  try {
    scanned = scanFirstValue(text);
  } catch (err) {
    if (err instanceof JsonSyntaxError) throw new ScenarioError(err.message, { cause: err });
    throw err;
  }
  if (scanned.members === null) {
    const first = text.trimStart()[0] ?? "";
    const kind = jsonKind(first === "-" || (first >= "0" && first <= "9") ? "0" : first);
    const what =
      kind === "array" || kind === "object" ? `an ${kind}` : kind === "null" ? "null" : `a ${kind}`;
    throw new ScenarioError(`got ${what}, want a JSON object of scenario keys`);
  }
  const out: Scenario = { whep: "", viewers: 0, rampSeconds: 0, holdSeconds: 0 };
  const fields = out as unknown as Record<string, unknown>;
  let firstError: ScenarioError | null = null;
  for (const { key, raw } of scanned.members) {
    const parse = OBJECT_KEYS[key];
    if (Object.hasOwn(OBJECT_KEYS, key) && parse !== undefined) {
      try {
        fields[key] = parse(JSON.parse(raw) as unknown);
      } catch (err) {
        firstError ??=
          err instanceof ScenarioError ? err : new ScenarioError(errorMessage(err), { cause: err });
      }
      continue;
    }
    const field = fieldFor(key);
    if (field === undefined) {
      firstError ??= new ScenarioError(`unknown key ${goQuote(key)}`);
      continue;
    }
    const [name, goType] = field;
    const v = decodeMember(name, raw, goType);
    if (typeof v === "object") firstError ??= new ScenarioError(v.typeError);
    else fields[name] = v;
  }
  if (firstError !== null) throw firstError;
  if (/[^ \t\n\r]/.test(text.slice(scanned.end))) {
    throw new ScenarioError("trailing data after the JSON object");
  }
  return out;
}

/** The scenario keys the text names, matched as the parser matches them (call once it decodes). */
export function givenKeys(text: string): Set<keyof Scenario> {
  const out = new Set<keyof Scenario>();
  for (const { key } of scanFirstValue(text).members ?? []) {
    const field = fieldFor(key);
    if (field !== undefined) out.add(field[0]);
  }
  return out;
}

/**
 * docs/definitions.md#scenario-keys defaults (SCENARIO_DEFAULTS, defaults.ts) on a copy. Empty
 * strings, false flags and zero omitempty numbers are dropped, as Go's output omits them.
 */
export function normaliseScenario(s: Scenario): Scenario {
  const d = SCENARIO_DEFAULTS;
  const out: Scenario = { ...s };
  if (!out.codec) out.codec = d.codec;
  if (out.rampOffsetSeed !== undefined && !out.rampOffsetMaxSeconds)
    out.rampOffsetMaxSeconds = d.rampOffsetMaxSeconds;
  if (out.whip && !out.warmupSeconds) out.warmupSeconds = d.warmupSeconds;
  if (!out.joinTimeoutSeconds) out.joinTimeoutSeconds = d.joinTimeoutSeconds;
  if (!out.stallMs) out.stallMs = d.stallMs;
  if (out.excludeFirstSeconds === undefined) out.excludeFirstSeconds = d.excludeFirstSeconds;
  if (!out.receivePath) out.receivePath = d.receivePath;
  if (!out.viewerSockets) out.viewerSockets = d.viewerSockets;
  if (out.whip && out.keyframeOnRequest === undefined) out.keyframeOnRequest = d.keyframeOnRequest;
  if (!out.keyframeRequests) out.keyframeRequests = d.keyframeRequests;
  if (!out.viewerProfile) out.viewerProfile = d.viewerProfile;
  if (out.churn !== undefined && out.churn.minLifetimeSeconds === undefined) {
    out.churn = { ...out.churn, minLifetimeSeconds: out.joinTimeoutSeconds };
  }
  for (const k of ["name", "whip", "bearerEnv", "metrics", ...SERVER_KEYS] as const)
    if (out[k] === "") delete out[k];
  for (const k of ["includeLoopback", "loopbackOnly", "audio"] as const) if (out[k] === false) delete out[k];
  for (const k of ["rampOffsetMaxSeconds", "warmupSeconds", "referenceViewers"] as const)
    if (out[k] === 0) delete out[k];
  if (out.simulcast === undefined) delete out.simulcast;
  return out;
}

/** docs/definitions.md#thresholds-on-a-cohort: each cohort a threshold names is one of the scenario's. */
function checkCohortThresholds(s: Scenario, fail: (msg: string) => never): void {
  const names = [...(s.cohorts ?? []).map((c) => c.name), UNIMPAIRED];
  for (const t of s.thresholds ?? []) {
    const cohort = splitCohortKey(t.figure)?.cohort;
    if (cohort === undefined || names.includes(cohort)) continue;
    fail(
      `thresholds[${JSON.stringify(t.figure)}]: no cohort named ${goQuote(cohort)} (cohorts: ${names.join(", ")})`,
    );
  }
}

/** "a, b or c". */
function oneOf(xs: readonly string[]): string {
  return xs.length < 2 ? xs.join("") : `${xs.slice(0, -1).join(", ")} or ${xs[xs.length - 1]}`;
}

/** An enumerated key's problem: its value when it is not one of `allowed`, else null. */
function notOneOf(key: string, value: string | undefined, allowed: readonly string[]): string | null {
  return value === undefined || allowed.includes(value)
    ? null
    : `${key} ${goQuote(value)} (want ${oneOf(allowed)})`;
}

/** Largest seconds value whose ns count is still an exact integer (≈ 104 days). */
const MAX_SECONDS = Number.MAX_SAFE_INTEGER / 1e9;

/** Finite and small enough for exact integer ns. */
function sane(v: number, perSecond = 1): boolean {
  return Number.isFinite(v) && Math.abs(v) <= MAX_SECONDS * perSecond;
}

/**
 * docs/definitions.md#scenario-validation in order, first failure wins; returns the scenario
 * unchanged or throws ScenarioError. Absent numbers count as Go's zero value. Non-finite or
 * absurdly large values (beyond exact integer ns) fail their key's check with that key's message.
 * `workers`, `receivePath`, `stampSource`, `viewerSockets`, `keyframeRequests`, then `viewerProfile`,
 * are checked last.
 */
export function validateScenario(s: Scenario): Scenario {
  const fail = (msg: string): never => {
    throw new ScenarioError(msg);
  };
  if (!s.whep) fail("whep is required");
  if (!isHttpUrl(s.whep)) fail("whep must be an http(s) URL");
  if (s.whip && !isHttpUrl(s.whip)) fail("whip must be an http(s) URL");
  const codec = s.codec ?? "";
  if (codec !== "vp8" && codec !== "h264") fail(`codec ${goQuote(codec)} (want vp8 or h264)`);
  if (s.clip && !CLIP_CHOICES.includes(s.clip)) fail(`clip ${goQuote(s.clip)} (want ${oneOf(CLIP_CHOICES)})`);
  if (s.clip && (codec !== "vp8" || s.simulcast)) fail("clip vp8-tl needs codec vp8 and no simulcast");
  if (!(Number.isInteger(s.viewers) && s.viewers >= 1 && s.viewers <= 10000))
    fail("viewers must be 1..10000");
  if (!(s.rampSeconds >= 0 && sane(s.rampSeconds))) fail("rampSeconds must not be negative");
  if (!(s.holdSeconds > 0 && sane(s.holdSeconds))) fail("holdSeconds must be positive");
  const warmup = s.warmupSeconds ?? 0;
  if (!(warmup >= 0 && sane(warmup))) fail("warmupSeconds must not be negative");
  const join = s.joinTimeoutSeconds ?? 0;
  if (!(join > 0 && sane(join))) fail("joinTimeoutSeconds must be positive");
  const stall = s.stallMs ?? 0;
  if (!(stall > 0 && sane(stall, 1000))) fail("stallMs must be positive");
  if (s.excludeFirstSeconds !== undefined) {
    if (!(s.excludeFirstSeconds >= 0)) fail("excludeFirstSeconds must not be negative");
    if (s.excludeFirstSeconds > 3600) fail("excludeFirstSeconds must be at most 3600");
  }
  const bound = s.rampOffsetMaxSeconds ?? 0;
  if (s.rampOffsetSeed === undefined) {
    if (bound !== 0) fail("rampOffsetMaxSeconds needs rampOffsetSeed");
  } else {
    if (!(bound > 0 && bound <= 3600)) fail("rampOffsetMaxSeconds must be above 0 and at most 3600");
    if (s.rampOffsetSeed < INT64_MIN || s.rampOffsetSeed > INT64_MAX) fail("rampOffsetSeed must be an int64");
  }
  if (s.workers !== undefined && !(Number.isInteger(s.workers) && s.workers >= 0 && s.workers <= 256)) {
    fail("workers must be 0..256");
  }
  const enums: [string, string | undefined, readonly string[]][] = [
    ["receivePath", s.receivePath, RECEIVE_PATHS],
    ["stampSource", s.stampSource, STAMP_SOURCES],
    ["viewerSockets", s.viewerSockets, VIEWER_SOCKETS],
    ["keyframeRequests", s.keyframeRequests, KEYFRAME_REQUESTS],
  ];
  for (const [key, value, allowed] of enums) {
    const problem = notOneOf(key, value, allowed);
    if (problem !== null) fail(problem);
  }
  const refs = s.referenceViewers;
  if (refs !== undefined && !(Number.isInteger(refs) && refs >= 0 && refs <= MAX_REFERENCE_VIEWERS)) {
    fail(`referenceViewers must be 0..${MAX_REFERENCE_VIEWERS}`);
  }
  const profile = notOneOf("viewerProfile", s.viewerProfile, VIEWER_PROFILES);
  if (profile !== null) fail(profile);
  if (s.simulcast !== undefined && !s.whip) fail("simulcast needs whip (the run publishes the layers)");
  const layerSwitch = layerSwitchProblem(s.layerSwitch, s.simulcast, s.cohorts);
  if (layerSwitch !== null) fail(layerSwitch);
  const counted = (s.cohorts ?? []).reduce((a, c) => a + (c.viewers ?? 0), 0);
  if (counted > s.viewers)
    fail(`cohorts: the cohorts' counts add up to ${counted}, more than the ${s.viewers} viewers`);
  const churn = s.churn === undefined ? null : churnProblem(s.churn, churnRun(s));
  if (churn !== null) fail(churn);
  checkCohortThresholds(s, fail);
  for (const k of SERVER_KEYS) {
    const v = s[k];
    if (v === undefined) continue;
    // one line of text for the report's header table
    if (v.length > MAX_SERVER_TEXT || /[\u0000-\u001f\u007f]/.test(v)) {
      fail(`${k} must be one line of at most ${MAX_SERVER_TEXT} characters`);
    }
  }
  return s;
}
