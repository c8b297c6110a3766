// Parsing a scenario's `capacity` key (docs/definitions.md#capacity): an object of known keys,
// each checked; every mistake is an error that names the key (`capacity.growth: …`).

import { CapacityError } from "../errors.ts";
import { CAPACITY_DEFAULTS, type CapacitySpec } from "./types.ts";

type Check = (v: number) => string | null;

const positiveInt: Check = (v) =>
  Number.isInteger(v) && v >= 1 && v <= 10000 ? null : "must be an integer 1..10000";

/** Each key: what it must be. `max` and `settleSeconds` are also checked against the others. */
const KEYS: Record<keyof CapacitySpec, Check> = {
  start: positiveInt,
  max: positiveInt,
  growth: (v) => (v > 1 && v <= 100 ? null : "must be above 1 and at most 100"),
  resolution: positiveInt,
  stepSeconds: (v) => (v > 0 && v <= 86400 ? null : "must be above 0 and at most 86400"),
  settleSeconds: (v) => (v >= 0 && v <= 3600 ? null : "must be 0..3600"),
};

export function parseCapacity(raw: unknown): CapacitySpec {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new CapacityError(
      "capacity: want an object of capacity keys (start, max, growth, resolution, stepSeconds, settleSeconds)",
    );
  }
  const out: CapacitySpec = { ...CAPACITY_DEFAULTS };
  for (const [key, v] of Object.entries(raw as Record<string, unknown>)) {
    if (!Object.hasOwn(KEYS, key)) throw new CapacityError(`capacity: unknown key ${JSON.stringify(key)}`);
    const k = key as keyof CapacitySpec;
    if (typeof v !== "number" || !Number.isFinite(v)) throw new CapacityError(`capacity.${k}: want a number`);
    const bad = KEYS[k](v);
    if (bad !== null) throw new CapacityError(`capacity.${k}: ${bad}`);
    out[k] = v;
  }
  if (out.max < out.start) throw new CapacityError("capacity.max: must be at least capacity.start");
  if (out.settleSeconds >= out.stepSeconds) {
    throw new CapacityError(
      "capacity.settleSeconds: must be below capacity.stepSeconds (a step needs a measured window)",
    );
  }
  return out;
}
