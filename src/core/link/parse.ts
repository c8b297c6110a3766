// Parsing a scenario's `cohorts` key (docs/definitions.md#cohorts): a list of named link
// profiles; every mistake is an error naming the key (`cohorts[1].down.loss: …`), as every
// scenario key's is. Durations are Go durations ("20ms"), chances percentages ("2%"), rates
// "800kbps", queues a duration or bytes ("64KB").

import { EXIT_ERROR, WhipbenchError } from "../errors.ts";
import { parseGoDuration } from "../go-compat/time.ts";
import type { Cohort, DirectionProfile, GilbertElliott, LinkStep } from "./types.ts";

/** The name the unimpaired viewers go by in a report; no cohort may take it. */
export const UNIMPAIRED = "unimpaired";
/** Longest delay or jitter a profile may add. */
const MAX_ADDED_NS = 10_000_000_000;
const MAX_RATE_BPS = 100e9;
const NAME_RE = /^[A-Za-z0-9_.-]{1,64}$/;

class CohortError extends WhipbenchError {
  override readonly name = "CohortError";
  readonly code = "cohorts";
  readonly exitStatus = EXIT_ERROR;
}

function fail(path: string, msg: string): never {
  throw new CohortError(`${path}: ${msg}`);
}

function object(raw: unknown, path: string, keys: readonly string[]): Record<string, unknown> {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) fail(path, "want an object");
  const o = raw as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    if (!keys.includes(k)) fail(`${path}.${k}`, `unknown key (want ${keys.join(", ")})`);
  }
  return o;
}

function duration(v: unknown, path: string, max = MAX_ADDED_NS): number {
  const ns = typeof v === "string" ? parseGoDuration(v) : null;
  if (ns === null) fail(path, 'want a duration such as "20ms"');
  if (ns > max) fail(path, `must be at most ${max / 1e9} s`);
  return ns;
}

/** "2%" → 0.02; 0..100 %. */
function percent(v: unknown, path: string): number {
  const m = typeof v === "string" ? /^([0-9]+(?:\.[0-9]+)?)%$/.exec(v.trim()) : null;
  if (m === null) fail(path, 'want a percentage such as "2%"');
  const p = Number(m[1]);
  if (!(p >= 0 && p <= 100)) fail(path, "must be 0% to 100%");
  return p / 100;
}

const RATE_UNITS: Record<string, number> = { bps: 1, kbps: 1e3, mbps: 1e6, gbps: 1e9 };
const BYTE_UNITS: Record<string, number> = { b: 1, kb: 1e3, mb: 1e6, kib: 1024, mib: 1024 * 1024 };

function withUnit(v: unknown, units: Record<string, number>): number | null {
  const m = typeof v === "string" ? /^([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]+)$/.exec(v.trim()) : null;
  const unit = m?.[2]?.toLowerCase();
  const scale = unit === undefined ? undefined : units[unit];
  return m === null || scale === undefined ? null : Number(m[1]) * scale;
}

function rate(v: unknown, path: string): number {
  const bps = withUnit(v, RATE_UNITS);
  if (bps === null) fail(path, 'want a rate such as "800kbps" (bps, kbps, Mbps, Gbps)');
  if (!(bps >= 1000 && bps <= MAX_RATE_BPS)) fail(path, "must be 1kbps to 100Gbps");
  return bps;
}

const DIRECTION_KEYS = ["delay", "jitter", "distribution", "reorder", "loss", "burst", "rate", "queue"];
const BURST_KEYS = ["enter", "leave", "lossBad", "lossGood"];

function burst(raw: unknown, path: string): GilbertElliott {
  const o = object(raw, path, BURST_KEYS);
  if (o.enter === undefined || o.leave === undefined) fail(path, "needs enter and leave");
  const out: GilbertElliott = {
    enter: percent(o.enter, `${path}.enter`),
    leave: percent(o.leave, `${path}.leave`),
    lossBad: o.lossBad === undefined ? 1 : percent(o.lossBad, `${path}.lossBad`),
    lossGood: o.lossGood === undefined ? 0 : percent(o.lossGood, `${path}.lossGood`),
  };
  if (out.leave === 0) fail(`${path}.leave`, "must be above 0% (the bad state would never end)");
  return out;
}

function queue(v: unknown, path: string, p: DirectionProfile): void {
  const bytes = withUnit(v, BYTE_UNITS);
  if (bytes !== null) {
    if (!(bytes >= 1 && bytes <= 1e9 && Number.isInteger(bytes)))
      fail(path, "must be 1B to 1GB, whole bytes");
    p.queueBytes = bytes;
    return;
  }
  const ns = typeof v === "string" ? parseGoDuration(v) : null;
  if (ns === null) fail(path, 'want a duration such as "100ms" or bytes such as "64KB"');
  if (!(ns > 0 && ns <= MAX_ADDED_NS)) fail(path, "must be above 0 and at most 10 s");
  p.queueNs = ns;
}

export function parseDirection(raw: unknown, path: string): DirectionProfile {
  const o = object(raw, path, DIRECTION_KEYS);
  const p: DirectionProfile = {};
  if (o.delay !== undefined) p.delayNs = duration(o.delay, `${path}.delay`);
  if (o.jitter !== undefined) p.jitterNs = duration(o.jitter, `${path}.jitter`);
  if (o.distribution !== undefined) {
    if (o.distribution !== "uniform" && o.distribution !== "normal") {
      fail(`${path}.distribution`, 'want "uniform" or "normal"');
    }
    p.distribution = o.distribution;
  }
  if (o.reorder !== undefined) {
    if (typeof o.reorder !== "boolean") fail(`${path}.reorder`, "want true or false");
    p.reorder = o.reorder;
  }
  if (o.loss !== undefined) p.loss = percent(o.loss, `${path}.loss`);
  if (o.burst !== undefined) p.burst = burst(o.burst, `${path}.burst`);
  if (o.rate !== undefined) p.rateBps = rate(o.rate, `${path}.rate`);
  if (o.queue !== undefined) {
    if (o.rate === undefined) fail(`${path}.queue`, "needs rate (the queue is the rate limit's)");
    queue(o.queue, `${path}.queue`, p);
  }
  return p;
}

function step(raw: unknown, path: string): LinkStep {
  const o = object(raw, path, ["at", "for", "down", "up"]);
  if (o.at === undefined) fail(`${path}.at`, "is required");
  const s: LinkStep = { atNs: duration(o.at, `${path}.at`, 86_400e9) };
  if (o.for !== undefined) {
    s.forNs = duration(o.for, `${path}.for`, 86_400e9);
    if (s.forNs === 0) fail(`${path}.for`, "must be above 0");
  }
  if (o.down !== undefined) s.down = parseDirection(o.down, `${path}.down`);
  if (o.up !== undefined) s.up = parseDirection(o.up, `${path}.up`);
  if (s.down === undefined && s.up === undefined) fail(path, "needs down or up");
  return s;
}

const COHORT_KEYS = ["name", "viewers", "share", "down", "up", "steps", "seed"];

function cohort(raw: unknown, path: string): Cohort {
  const o = object(raw, path, COHORT_KEYS);
  const name = o.name;
  if (typeof name !== "string" || !NAME_RE.test(name)) {
    fail(`${path}.name`, "want 1 to 64 letters, digits, '_', '.' or '-'");
  }
  if (name === UNIMPAIRED) fail(`${path}.name`, `"${UNIMPAIRED}" names the viewers outside every cohort`);
  const c: Cohort = { name, down: {}, up: {}, steps: [], seed: 0 };
  if ((o.viewers === undefined) === (o.share === undefined))
    fail(path, "needs viewers (a count) or share, not both");
  if (o.viewers !== undefined) {
    const n = o.viewers;
    if (!(typeof n === "number" && Number.isInteger(n) && n >= 1 && n <= 10000)) {
      fail(`${path}.viewers`, "must be an integer 1..10000");
    }
    c.viewers = n;
  } else {
    const s = o.share;
    if (!(typeof s === "number" && s > 0 && s <= 1)) fail(`${path}.share`, "must be above 0 and at most 1");
    c.share = s;
  }
  if (o.down !== undefined) c.down = parseDirection(o.down, `${path}.down`);
  if (o.up !== undefined) c.up = parseDirection(o.up, `${path}.up`);
  if (o.steps !== undefined) {
    if (!Array.isArray(o.steps)) fail(`${path}.steps`, "want a list");
    c.steps = o.steps.map((s, i) => step(s, `${path}.steps[${i}]`));
  }
  if (o.seed !== undefined) {
    const s = o.seed;
    if (!(typeof s === "number" && Number.isSafeInteger(s) && s >= 0))
      fail(`${path}.seed`, "must be a whole number ≥ 0");
    c.seed = s;
  }
  return c;
}

/** Parses the `cohorts` value; throws an Error whose message names the key. */
export function parseCohorts(raw: unknown): Cohort[] {
  try {
    if (!Array.isArray(raw) || raw.length === 0) fail("cohorts", "want a non-empty list of cohorts");
    const out = raw.map((c, i) => cohort(c, `cohorts[${i}]`));
    const seen = new Set<string>();
    for (const [i, c] of out.entries()) {
      if (seen.has(c.name)) fail(`cohorts[${i}].name`, `"${c.name}" is used twice`);
      seen.add(c.name);
    }
    const shares = out.reduce((a, c) => a + (c.share ?? 0), 0);
    if (shares > 1 + 1e-9) fail("cohorts", "the shares add up to more than 1");
    return out;
  } catch (err) {
    if (err instanceof CohortError) throw new Error(err.message);
    throw err;
  }
}
