// The scenario's `churn` key (docs/definitions.md#churn): viewers leave when their lifetime ends
// and a new viewer takes each one's place during the hold. An object of known keys, each checked;
// every mistake names its key (`churn.meanLifetimeSeconds: …`).

import { ChurnError } from "../errors.ts";

/** docs/definitions.md#churn: each viewer's lifetime, and the seed its draws come from. */
export interface ChurnSpec {
  /** the mean of a viewer's lifetime, seconds (> 0) */
  meanLifetimeSeconds: number;
  /** the shortest lifetime, seconds; absent: the scenario's joinTimeoutSeconds (normalised) */
  minLifetimeSeconds?: number;
  /** a whole number ≥ 0 (default 0): the lifetimes' draws depend only on it and the viewer's place */
  seed: number;
}

const CHURN_KEYS = ["meanLifetimeSeconds", "minLifetimeSeconds", "seed"];

/** Lifetimes beyond this are not churn (about 104 days is the scenario's own bound). */
const MAX_LIFETIME_SECONDS = 86400;

function fail(key: string, what: string): never {
  throw new ChurnError(`churn.${key}: ${what}`);
}

export function parseChurn(raw: unknown): ChurnSpec {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new ChurnError(
      "churn: want an object of churn keys (meanLifetimeSeconds, minLifetimeSeconds, seed)",
    );
  }
  const obj = raw as Record<string, unknown>;
  for (const key of Object.keys(obj)) {
    if (!CHURN_KEYS.includes(key)) throw new ChurnError(`churn: unknown key ${JSON.stringify(key)}`);
  }
  const mean = obj.meanLifetimeSeconds;
  if (mean === undefined) fail("meanLifetimeSeconds", "is required");
  if (typeof mean !== "number" || !(mean > 0 && mean <= MAX_LIFETIME_SECONDS)) {
    fail("meanLifetimeSeconds", `must be a number above 0 and at most ${MAX_LIFETIME_SECONDS}`);
  }
  const out: ChurnSpec = { meanLifetimeSeconds: mean, seed: 0 };
  const min = obj.minLifetimeSeconds;
  if (min !== undefined) {
    if (typeof min !== "number" || !(min > 0 && Number.isFinite(min))) {
      fail("minLifetimeSeconds", "must be a number above 0");
    }
    if (min > mean) fail("minLifetimeSeconds", "must be at most churn.meanLifetimeSeconds");
    out.minLifetimeSeconds = min;
  }
  const seed = obj.seed;
  if (seed !== undefined) {
    if (typeof seed !== "number" || !Number.isSafeInteger(seed) || seed < 0) {
      fail("seed", "must be a whole number ≥ 0");
    }
    out.seed = seed;
  }
  return out;
}

/** The churn key in the report's scenario: its keys in order, the shortest lifetime always set. */
export function churnJson(c: ChurnSpec): Record<string, number> {
  return {
    meanLifetimeSeconds: c.meanLifetimeSeconds,
    ...(c.minLifetimeSeconds !== undefined ? { minLifetimeSeconds: c.minLifetimeSeconds } : {}),
    seed: c.seed,
  };
}
