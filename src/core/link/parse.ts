// Parsing a scenario's `cohorts` key (docs/definitions.md#cohorts): a list of named link
// profiles; every mistake is an error naming the key (`cohorts[1].down.loss: …`), as every
// scenario key's is. Durations are Go durations ("20ms"), chances percentages ("2%"), rates
// "800kbps", queues a duration or bytes ("64KB").

import { CohortError } from "../errors.ts";
import { parseGoDuration } from "../go-compat/time.ts";
import { isLayer, LAYER_WANT, layerSwitchFields } from "../layer/layer-switch.ts";
import type { Cohort, DirectionProfile, GilbertElliott, LinkStep } from "./types.ts";

/** The name the unimpaired viewers go by in a report; no cohort may take it. */
export const UNIMPAIRED = "unimpaired";
/** Longest delay or jitter a profile may add. */
const MAX_ADDED_NS = 10_000_000_000;
const MAX_RATE_BPS = 100e9;
const NAME_RE = /^[A-Za-z0-9_.-]{1,64}$/;

function fail(path: string, msg: string): never {
  throw new CohortError(`${path}: ${msg}`);
}

function object(raw: unknown, path: string, keys: readonly string[]): Record<string, unknown> {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) fail(path, "want an object");
  const obj = raw as Record<string, unknown>;
  for (const k of Object.keys(obj)) {
    if (!keys.includes(k)) fail(`${path}.${k}`, `unknown key (want ${keys.join(", ")})`);
  }
  return obj;
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
  const obj = object(raw, path, BURST_KEYS);
  if (obj.enter === undefined || obj.leave === undefined) fail(path, "needs enter and leave");
  const out: GilbertElliott = {
    enter: percent(obj.enter, `${path}.enter`),
    leave: percent(obj.leave, `${path}.leave`),
    lossBad: obj.lossBad === undefined ? 1 : percent(obj.lossBad, `${path}.lossBad`),
    lossGood: obj.lossGood === undefined ? 0 : percent(obj.lossGood, `${path}.lossGood`),
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
  const obj = object(raw, path, DIRECTION_KEYS);
  const p: DirectionProfile = {};
  if (obj.delay !== undefined) p.delayNs = duration(obj.delay, `${path}.delay`);
  if (obj.jitter !== undefined) p.jitterNs = duration(obj.jitter, `${path}.jitter`);
  if (obj.distribution !== undefined) {
    if (obj.distribution !== "uniform" && obj.distribution !== "normal") {
      fail(`${path}.distribution`, 'want "uniform" or "normal"');
    }
    p.distribution = obj.distribution;
  }
  if (obj.reorder !== undefined) {
    if (typeof obj.reorder !== "boolean") fail(`${path}.reorder`, "want true or false");
    p.reorder = obj.reorder;
  }
  if (obj.loss !== undefined) p.loss = percent(obj.loss, `${path}.loss`);
  if (obj.burst !== undefined) p.burst = burst(obj.burst, `${path}.burst`);
  if (obj.rate !== undefined) p.rateBps = rate(obj.rate, `${path}.rate`);
  if (obj.queue !== undefined) {
    if (obj.rate === undefined) fail(`${path}.queue`, "needs rate (the queue is the rate limit's)");
    queue(obj.queue, `${path}.queue`, p);
  }
  return p;
}

function step(raw: unknown, path: string): LinkStep {
  const obj = object(raw, path, ["at", "for", "down", "up"]);
  if (obj.at === undefined) fail(`${path}.at`, "is required");
  const s: LinkStep = { atNs: duration(obj.at, `${path}.at`, 86_400e9) };
  if (obj.for !== undefined) {
    s.forNs = duration(obj.for, `${path}.for`, 86_400e9);
    if (s.forNs === 0) fail(`${path}.for`, "must be above 0");
  }
  if (obj.down !== undefined) s.down = parseDirection(obj.down, `${path}.down`);
  if (obj.up !== undefined) s.up = parseDirection(obj.up, `${path}.up`);
  if (s.down === undefined && s.up === undefined) fail(path, "needs down or up");
  return s;
}

const COHORT_KEYS = [
  "name",
  "viewers",
  "share",
  "down",
  "up",
  "steps",
  "seed",
  "referenceViewers",
  "layer",
  "layerSwitch",
];
/** The most libwebrtc reference viewers a cohort (or the scenario, per group) may ask for. */
export const MAX_REFERENCE_VIEWERS = 10;

function cohort(raw: unknown, path: string): Cohort {
  const obj = object(raw, path, COHORT_KEYS);
  const name = obj.name;
  if (typeof name !== "string" || !NAME_RE.test(name)) {
    fail(`${path}.name`, "want 1 to 64 letters, digits, '_', '.' or '-'");
  }
  if (name === UNIMPAIRED) fail(`${path}.name`, `"${UNIMPAIRED}" names the viewers outside every cohort`);
  const c: Cohort = { name, down: {}, up: {}, steps: [], seed: 0 };
  if ((obj.viewers === undefined) === (obj.share === undefined))
    fail(path, "needs viewers (a count) or share, not both");
  if (obj.viewers !== undefined) {
    const n = obj.viewers;
    if (!(typeof n === "number" && Number.isInteger(n) && n >= 1 && n <= 10000)) {
      fail(`${path}.viewers`, "must be an integer 1..10000");
    }
    c.viewers = n;
  } else {
    const s = obj.share;
    if (!(typeof s === "number" && s > 0 && s <= 1)) fail(`${path}.share`, "must be above 0 and at most 1");
    c.share = s;
  }
  if (obj.down !== undefined) c.down = parseDirection(obj.down, `${path}.down`);
  if (obj.up !== undefined) c.up = parseDirection(obj.up, `${path}.up`);
  if (obj.steps !== undefined) {
    if (!Array.isArray(obj.steps)) fail(`${path}.steps`, "want a list");
    c.steps = obj.steps.map((s, i) => step(s, `${path}.steps[${i}]`));
  }
  if (obj.seed !== undefined) {
    const s = obj.seed;
    if (!(typeof s === "number" && Number.isSafeInteger(s) && s >= 0))
      fail(`${path}.seed`, "must be a whole number ≥ 0");
    c.seed = s;
  }
  if (obj.referenceViewers !== undefined) {
    const k = obj.referenceViewers;
    if (!(typeof k === "number" && Number.isInteger(k) && k >= 0 && k <= MAX_REFERENCE_VIEWERS))
      fail(`${path}.referenceViewers`, `must be an integer 0..${MAX_REFERENCE_VIEWERS}`);
    c.referenceViewers = k;
  }
  layerKeys(obj, path, c);
  return c;
}

/** A cohort's `layer` and `layerSwitch` (docs/definitions.md#cohort-layers). */
function layerKeys(obj: Record<string, unknown>, path: string, c: Cohort): void {
  if (obj.layer !== undefined) {
    if (!isLayer(obj.layer)) fail(`${path}.layer`, LAYER_WANT);
    c.layer = obj.layer;
  }
  if (obj.layerSwitch === undefined) return;
  const key = `${path}.layerSwitch`;
  const ls = layerSwitchFields(obj.layerSwitch, (msg) => fail(key, msg));
  if (c.layer !== undefined && ls.startRid !== undefined)
    fail(`${key}.startRid`, "the cohort's layer is its start: name one of them");
  if (c.layer !== undefined && ls.rid === c.layer)
    fail(`${key}.rid`, "is the cohort's layer, where it starts");
  c.layerSwitch = ls;
}

/** Parses the `cohorts` value; throws CohortError (exit 2) whose message names the key. */
export function parseCohorts(raw: unknown): Cohort[] {
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
}
