// The matrix file of `whipbench matrix` (WispMark's server × client table): servers
// (name, WHIP/WHEP URLs, optional start/stop/health commands) × scenarios × repeats. Strict: an
// unknown key or a wrong type is an error naming its path, e.g. `matrix: servers[1].whep: …`.

import { errorMessage, MatrixError } from "../errors.ts";
import { FIGURES } from "../thresholds/figures.ts";

export interface MatrixServer {
  name: string;
  whip?: string;
  whep: string;
  /** shell command that starts the server (run once before its cells, stopped after them) */
  start?: string;
  /** shell command that succeeds once the server is ready (retried); default: its WHEP port answers */
  health?: string;
  /** shell command that stops the server (default: the start command's process group is ended) */
  stop?: string;
}

export interface MatrixScenario {
  name: string;
  /** the scenario object (without whip/whep, which each server gives) */
  scenario?: Record<string, unknown>;
  /** or a scenario file, relative to the matrix file */
  file?: string;
}

export interface Matrix {
  name?: string;
  /** the figure each cell shows (default oneWayDelay.p95) */
  figure: string;
  repeats: number;
  /** seconds a start may take to become healthy (default 30) */
  healthTimeoutSeconds: number;
  servers: MatrixServer[];
  scenarios: MatrixScenario[];
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function only(obj: Obj, path: string, keys: readonly string[]): void {
  for (const k of Object.keys(obj)) {
    if (!keys.includes(k))
      throw new MatrixError(`${path}${path === "" ? "" : "."}${k}: unknown key (want ${keys.join(", ")})`);
  }
}

function str(obj: Obj, key: string, path: string, required: boolean): string | undefined {
  const v = obj[key];
  if (v === undefined && !required) return undefined;
  if (typeof v !== "string" || v.trim() === "")
    throw new MatrixError(`${path}.${key}: want a non-empty string`);
  return v;
}

const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9 ._()+-]*$/;

function named(obj: Obj, path: string, seen: Set<string>): string {
  const name = str(obj, "name", path, true) as string;
  if (!NAME_RE.test(name) || name.length > 80) {
    throw new MatrixError(`${path}.name: letters, digits, space and ._()+- only, at most 80`);
  }
  // names become directory names: two that read the same there are one name
  if (seen.has(slug(name))) throw new MatrixError(`${path}.name: ${JSON.stringify(name)} appears twice`);
  seen.add(slug(name));
  return name;
}

function server(v: unknown, i: number, seen: Set<string>): MatrixServer {
  const path = `servers[${i}]`;
  if (!isObj(v)) throw new MatrixError(`${path}: want an object`);
  only(v, path, ["name", "whip", "whep", "start", "health", "stop"]);
  const out: MatrixServer = { name: named(v, path, seen), whep: str(v, "whep", path, true) as string };
  for (const k of ["whip", "start", "health", "stop"] as const) {
    const s = str(v, k, path, false);
    if (s !== undefined) out[k] = s;
  }
  return out;
}

function scenario(v: unknown, i: number, seen: Set<string>): MatrixScenario {
  const path = `scenarios[${i}]`;
  if (!isObj(v)) throw new MatrixError(`${path}: want an object`);
  only(v, path, ["name", "scenario", "file"]);
  const out: MatrixScenario = { name: named(v, path, seen) };
  const file = str(v, "file", path, false);
  if ((v.scenario === undefined) === (file === undefined)) {
    throw new MatrixError(`${path}: give exactly one of scenario (an object) or file`);
  }
  if (file !== undefined) out.file = file;
  if (v.scenario !== undefined) {
    if (!isObj(v.scenario)) throw new MatrixError(`${path}.scenario: want an object`);
    for (const k of ["whip", "whep"]) {
      if (k in v.scenario)
        throw new MatrixError(`${path}.scenario.${k}: the server gives the URLs; leave it out`);
    }
    out.scenario = v.scenario;
  }
  return out;
}

function list(obj: Obj, key: string): unknown[] {
  const v = obj[key];
  if (!Array.isArray(v) || v.length === 0) throw new MatrixError(`${key}: want a non-empty list`);
  return v;
}

/** Parses and checks a matrix file's text. Throws MatrixError. */
export function parseMatrix(text: string): Matrix {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (err) {
    throw new MatrixError(`not JSON: ${errorMessage(err)}`, { cause: err });
  }
  if (!isObj(v)) throw new MatrixError("want an object");
  only(v, "", ["name", "figure", "repeats", "healthTimeoutSeconds", "servers", "scenarios"]);
  const figure = v.figure === undefined ? "oneWayDelay.p95" : v.figure;
  if (typeof figure !== "string" || !FIGURES.has(figure))
    throw new MatrixError(`figure: unknown figure ${JSON.stringify(figure)}`);
  const repeats = v.repeats === undefined ? 1 : v.repeats;
  if (typeof repeats !== "number" || !Number.isInteger(repeats) || repeats < 1 || repeats > 100) {
    throw new MatrixError("repeats: want an integer 1..100");
  }
  const health = v.healthTimeoutSeconds === undefined ? 30 : v.healthTimeoutSeconds;
  if (typeof health !== "number" || !(health > 0 && health <= 3600)) {
    throw new MatrixError("healthTimeoutSeconds: want a number above 0, at most 3600");
  }
  const name = v.name === undefined ? undefined : v.name;
  if (name !== undefined && typeof name !== "string") throw new MatrixError("name: want a string");
  const servers = new Set<string>();
  const scenarios = new Set<string>();
  return {
    ...(name !== undefined ? { name } : {}),
    figure,
    repeats,
    healthTimeoutSeconds: health,
    servers: list(v, "servers").map((s, i) => server(s, i, servers)),
    scenarios: list(v, "scenarios").map((s, i) => scenario(s, i, scenarios)),
  };
}

/** A name as a directory name: runs of other characters become "-". */
export function slug(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^-+|-+$/g, "") || "x";
}
