// The churn schedule (docs/definitions.md#churn-schedule): every viewer's lifetime, and the
// viewers that take the places of those that leave, computed up front from the seed.

import { ChurnError, errorMessage } from "../errors.ts";
import { rampOffsetsNs, splitmixFractions, splitmixOutputs } from "../stats/splitmix.ts";
import type { ChurnSpec } from "./churn.ts";
import { SCENARIO_DEFAULTS } from "./defaults.ts";
import { rampStartsNs } from "./ramp.ts";

/** Every viewer a churn run schedules, late joiners included, is at most this many. */
export const MAX_CHURN_VIEWERS = 100_000;

export interface ChurnSchedule {
  /** per viewer id: its stop after t0, ns (the viewers' deadline when its lifetime outlasts the run) */
  stopNs: number[];
  /** per viewer id: the place it holds, the id of the first viewer of that place (itself for the first n) */
  placeOf: number[];
}

/**
 * A lifetime from one draw u in [0, 1): the shortest lifetime plus an exponential draw with mean
 * (mean − shortest), so the lifetimes' mean is the mean; exactly the shortest when they are equal.
 */
export function lifetimeNs(u: number, minNs: number, meanNs: number): number {
  return minNs + Math.trunc(-Math.log1p(-u) * (meanNs - minNs));
}

interface Late {
  startNs: number;
  place: number;
  stopNs: number;
}

/**
 * The places' viewers: place i's first viewer starts at `startNs[i]`, each lives its lifetime
 * (capped at the viewers' deadline `phaseNs`), and a new viewer starts in its place the instant
 * it leaves, unless the rest of the run is shorter than the shortest lifetime. Place i's
 * lifetimes are the draws of a SplitMix64 stream seeded with the i-th output of SplitMix64(seed),
 * so they depend only on the seed and the place. The late joiners take ids n, n + 1, … in order
 * of their start (ties: by place). Returns the starts extended with the late joiners', and the
 * schedule; throws when the run would schedule more than MAX_CHURN_VIEWERS viewers.
 */
export function churnSchedule(
  startNs: readonly number[],
  phaseNs: number,
  spec: ChurnSpec,
  minNs: number,
): { startNs: number[]; churn: ChurnSchedule } {
  const n = startNs.length;
  const meanNs = spec.meanLifetimeSeconds * 1e9;
  const seeds = splitmixOutputs(BigInt(spec.seed), n);
  const stopNs: number[] = new Array<number>(n);
  const late: Late[] = [];
  for (let place = 0; place < n; place++) {
    const draw = splitmixFractions(seeds[place] ?? 0n);
    let start = startNs[place] ?? 0;
    for (let generation = 0; ; generation++) {
      const stop = Math.min(start + lifetimeNs(draw(), minNs, meanNs), phaseNs);
      if (generation === 0) stopNs[place] = stop;
      else late.push({ startNs: start, place, stopNs: stop });
      if (n + late.length > MAX_CHURN_VIEWERS) {
        throw new ChurnError(`churn: the run would schedule more than ${MAX_CHURN_VIEWERS} viewers`);
      }
      if (stop >= phaseNs || stop + minNs > phaseNs) break;
      start = stop;
    }
  }
  late.sort((a, b) => a.startNs - b.startNs || a.place - b.place);
  const placeOf = Array.from({ length: n }, (_, i) => i);
  const starts = [...startNs];
  for (const v of late) {
    starts.push(v.startNs);
    stopNs.push(v.stopNs);
    placeOf.push(v.place);
  }
  return { startNs: starts, churn: { stopNs, placeOf } };
}

/** What the churn check needs of a scenario, in ns where it says so. */
export interface ChurnRun {
  viewers: number;
  rampNs: number;
  /** the ramp offsets' seed and bound (boundNs 0 without a seed) */
  rampOffsetSeed?: bigint;
  boundNs: number;
  holdNs: number;
  joinTimeoutSeconds: number;
}

/** The churn check's view of a (normalised) scenario. */
export function churnRun(s: {
  viewers: number;
  rampSeconds: number;
  holdSeconds: number;
  rampOffsetSeed?: bigint;
  rampOffsetMaxSeconds?: number;
  joinTimeoutSeconds?: number;
}): ChurnRun {
  const seeded = s.rampOffsetSeed !== undefined;
  return {
    viewers: s.viewers,
    rampNs: Math.trunc(s.rampSeconds * 1e9),
    ...(s.rampOffsetSeed !== undefined ? { rampOffsetSeed: s.rampOffsetSeed } : {}),
    boundNs: seeded
      ? Math.trunc((s.rampOffsetMaxSeconds || SCENARIO_DEFAULTS.rampOffsetMaxSeconds) * 1e9)
      : 0,
    holdNs: Math.trunc(s.holdSeconds * 1e9),
    joinTimeoutSeconds: s.joinTimeoutSeconds ?? SCENARIO_DEFAULTS.joinTimeoutSeconds,
  };
}

/**
 * docs/definitions.md#churn: a viewer lives at least the join timeout (so a viewer that did not
 * join failed for its own reasons, not because it left), the mean is not below the shortest
 * lifetime, and the run schedules at most MAX_CHURN_VIEWERS viewers. The message, or null.
 */
export function churnProblem(c: ChurnSpec, run: ChurnRun): string | null {
  const join = run.joinTimeoutSeconds;
  const min = c.minLifetimeSeconds ?? join;
  if (min < join) {
    return `churn.minLifetimeSeconds: must be at least joinTimeoutSeconds (${join} s), so that a viewer can join before it leaves`;
  }
  if (c.meanLifetimeSeconds < min) {
    return `churn.meanLifetimeSeconds: must be at least churn.minLifetimeSeconds (${min} s)`;
  }
  if (run.viewers < 1 || run.viewers > 10000) return null; // the viewers check has already failed
  const offsets =
    run.rampOffsetSeed !== undefined ? rampOffsetsNs(run.rampOffsetSeed, run.boundNs, run.viewers) : null;
  const starts = rampStartsNs(run.viewers, run.rampNs, offsets);
  try {
    churnSchedule(starts, run.rampNs + run.boundNs + run.holdNs, c, Math.trunc(min * 1e9));
  } catch (err) {
    if (!(err instanceof ChurnError)) throw err;
    return `${errorMessage(err)}; raise churn.meanLifetimeSeconds, or lower viewers or holdSeconds`;
  }
  return null;
}
