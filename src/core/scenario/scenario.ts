// Scenario JSON (docs/definitions.md#scenario): strict parsing (Go encoding/json with DisallowUnknownFields and one
// value only), defaults (docs/definitions.md#scenario-keys) and validation (docs/definitions.md#scenario-validation, first failure wins, exact messages; URLs
// are never echoed).

import { isHttpUrl } from "../go-compat/url.ts";
import { JsonSyntaxError, scanFirstValue } from "./json.ts";

/** docs/definitions.md#scenario-keys keys in serialisation order, plus `workers` and `receivePath` (ours, not in the Go tool). */
export interface Scenario {
  name?: string;
  whip?: string;
  whep: string;
  codec?: string;
  viewers: number;
  rampSeconds: number;
  holdSeconds: number;
  /** int64; present = seeded ramp offsets on (0 is a valid seed) */
  rampOffsetSeed?: bigint;
  rampOffsetMaxSeconds?: number;
  warmupSeconds?: number;
  joinTimeoutSeconds?: number;
  stallMs?: number;
  excludeFirstSeconds?: number;
  bearerEnv?: string;
  metrics?: string;
  includeLoopback?: boolean;
  loopbackOnly?: boolean;
  /** worker threads (0..256; 0 = let the engine decide) */
  workers?: number;
  /** how viewers receive media: werift's own path or the lean one (default "lean") */
  receivePath?: "werift" | "lean";
}

export class ScenarioError extends Error {
  constructor(message: string) {
    super(`scenario: ${message}`);
    this.name = "ScenarioError";
  }
}

type GoType = "string" | "int" | "float64" | "int64" | "bool";

/** Scenario keys in docs/definitions.md#scenario-keys order with their Go field types. */
export const SCENARIO_KEYS: ReadonlyArray<readonly [keyof Scenario, GoType]> = [
  ["name", "string"],
  ["whip", "string"],
  ["whep", "string"],
  ["codec", "string"],
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
];

const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;
const INTEGER_RE = /^-?(0|[1-9][0-9]*)$/;

/** Go's %q for the strings that may appear in messages (keys, codec). */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0) ?? 0;
    if (ch === '"' || ch === "\\") out += `\\${ch}`;
    else if (c === 0x07) out += "\\a";
    else if (c === 0x08) out += "\\b";
    else if (c === 0x0c) out += "\\f";
    else if (c === 0x0a) out += "\\n";
    else if (c === 0x0d) out += "\\r";
    else if (c === 0x09) out += "\\t";
    else if (c === 0x0b) out += "\\v";
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, "0")}`;
    else if ((c >= 0x80 && c < 0xa0) || (c >= 0xd800 && c <= 0xdfff))
      out += `\\u${c.toString(16).padStart(4, "0")}`;
    else out += ch;
  }
  return `${out}"`;
}

function jsonKind(raw: string): string {
  const c = raw[0];
  if (c === '"') return "string";
  if (c === "{") return "object";
  if (c === "[") return "array";
  if (c === "t" || c === "f") return "bool";
  if (c === "n") return "null";
  return "number";
}

function typeError(what: string, key: string, goType: GoType): ScenarioError {
  return new ScenarioError(
    `json: cannot unmarshal ${what} into Go struct field Scenario.${key} of type ${goType}`,
  );
}

/** Decode one member's raw JSON into the typed value, or the Go-like type error. */
function decodeMember(
  key: string,
  raw: string,
  goType: GoType,
): string | number | bigint | boolean | ScenarioError {
  const kind = jsonKind(raw);
  switch (goType) {
    case "string":
      return kind === "string" ? (JSON.parse(raw) as string) : typeError(kind, key, goType);
    case "bool":
      return kind === "bool" ? raw === "true" : typeError(kind, key, goType);
    case "float64": {
      if (kind !== "number") return typeError(kind, key, goType);
      const v = Number(raw);
      return Number.isFinite(v) ? v : typeError(`number ${raw}`, key, goType);
    }
    case "int":
    case "int64": {
      if (kind !== "number") return typeError(kind, key, goType);
      if (!INTEGER_RE.test(raw)) return typeError(`number ${raw}`, key, goType);
      const b = BigInt(raw);
      if (b < INT64_MIN || b > INT64_MAX) return typeError(`number ${raw}`, key, goType);
      return goType === "int64" ? b : Number(b);
    }
  }
}

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
    if (err instanceof JsonSyntaxError) throw new ScenarioError(err.message);
    throw err;
  }
  if (scanned.members === null) {
    const first = text.trimStart()[0] ?? "";
    const kind = jsonKind(first === "-" || (first >= "0" && first <= "9") ? "0" : first);
    throw new ScenarioError(`json: cannot unmarshal ${kind} into Go value of type Scenario`);
  }
  const out: Scenario = { whep: "", viewers: 0, rampSeconds: 0, holdSeconds: 0 };
  const fields = out as unknown as Record<string, unknown>;
  let firstError: ScenarioError | null = null;
  for (const { key, raw } of scanned.members) {
    const field = fieldFor(key);
    if (field === undefined) {
      firstError ??= new ScenarioError(`json: unknown field ${goQuote(key)}`);
      continue;
    }
    const [name, goType] = field;
    const v = decodeMember(name, raw, goType);
    if (v instanceof ScenarioError) firstError ??= v;
    else fields[name] = v;
  }
  if (firstError !== null) throw firstError;
  if (/[^ \t\n\r]/.test(text.slice(scanned.end))) {
    throw new ScenarioError("trailing data after the JSON object");
  }
  return out;
}

/**
 * docs/definitions.md#scenario-keys defaults on a copy: codec "vp8"; rampOffsetMaxSeconds 1 with a seed; warmup 2 with
 * whip; join 10; stall 500; excludeFirstSeconds 5 when absent (explicit 0 kept); receivePath
 * "lean" (test/e2e/receive-path.test.ts holds it to werift's figures). Empty strings, false flags
 * and zero omitempty numbers are dropped, as Go's output omits them.
 */
export function normaliseScenario(s: Scenario): Scenario {
  const out: Scenario = { ...s };
  if (!out.codec) out.codec = "vp8";
  if (out.rampOffsetSeed !== undefined && !out.rampOffsetMaxSeconds) out.rampOffsetMaxSeconds = 1;
  if (out.whip && !out.warmupSeconds) out.warmupSeconds = 2;
  if (!out.joinTimeoutSeconds) out.joinTimeoutSeconds = 10;
  if (!out.stallMs) out.stallMs = 500;
  if (out.excludeFirstSeconds === undefined) out.excludeFirstSeconds = 5;
  if (!out.receivePath) out.receivePath = "lean";
  for (const k of ["name", "whip", "bearerEnv", "metrics"] as const) if (out[k] === "") delete out[k];
  for (const k of ["includeLoopback", "loopbackOnly"] as const) if (out[k] === false) delete out[k];
  for (const k of ["rampOffsetMaxSeconds", "warmupSeconds"] as const) if (out[k] === 0) delete out[k];
  return out;
}

/** Largest seconds value whose ns count is still an exact integer (≈ 104 days). */
const MAX_SECONDS = Number.MAX_SAFE_INTEGER / 1e9;

/** Finite and small enough for exact integer ns. */
function sane(v: number, perSecond = 1): boolean {
  return Number.isFinite(v) && Math.abs(v) <= MAX_SECONDS * perSecond;
}

/**
 * docs/definitions.md#scenario-validation in order, first failure wins; returns the scenario unchanged or throws ScenarioError.
 * Absent numbers count as Go's zero value. Non-finite or absurdly large values (beyond exact
 * integer ns) fail their key's check with that key's message. `workers`, then `receivePath`, are checked last.
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
  const path: string | undefined = s.receivePath;
  if (path !== undefined && path !== "werift" && path !== "lean") {
    fail(`receivePath ${goQuote(path)} (want werift or lean)`);
  }
  return s;
}
