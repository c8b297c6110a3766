// Start schedule and run length (docs/definitions.md#start-schedule): plain ramp slots in integer
// ns, plus the seeded SplitMix64 offsets when `rampOffsetSeed` is present.

import { rampOffsetsNs } from "../stats/splitmix.ts";
import { type ChurnSchedule, churnSchedule } from "./churn-schedule.ts";
import { SCENARIO_DEFAULTS } from "./defaults.ts";
import { rampStartsNs } from "./ramp.ts";
import type { Scenario } from "./types.ts";

export interface Schedule {
  /** start of viewer i after t0, ns: rampSlot[i] + offset[i]; with churn, the late joiners' after them */
  startNs: number[];
  /** offset[i] in ns with a seed; null without */
  rampOffsetNs: number[] | null;
  /** all viewers stop this long after t0: ramp + (seed ? bound : 0) + hold */
  viewersPhaseNs: number;
  /** with churn (docs/definitions.md#churn-schedule): each viewer's stop and place; absent or null without */
  churn?: ChurnSchedule | null;
}

/** Seconds → integer ns, truncating (Go: time.Duration(s * float64(time.Second))). */
export function secondsToNs(s: number): number {
  return Math.trunc(s * 1e9);
}

/** docs/definitions.md#start-schedule schedule of a (normalised, valid) scenario. */
export function buildSchedule(s: Scenario): Schedule {
  const n = s.viewers;
  const rampNs = secondsToNs(s.rampSeconds);
  const seeded = s.rampOffsetSeed !== undefined;
  // the bound defaults with a seed, as normalisation does
  const boundNs = seeded ? secondsToNs(s.rampOffsetMaxSeconds || SCENARIO_DEFAULTS.rampOffsetMaxSeconds) : 0;
  const offsets = s.rampOffsetSeed !== undefined ? rampOffsetsNs(s.rampOffsetSeed, boundNs, n) : null;
  const startNs = rampStartsNs(n, rampNs, offsets);
  const viewersPhaseNs = rampNs + boundNs + secondsToNs(s.holdSeconds);
  if (s.churn === undefined) return { startNs, rampOffsetNs: offsets, viewersPhaseNs, churn: null };
  const minNs = secondsToNs(
    s.churn.minLifetimeSeconds ?? s.joinTimeoutSeconds ?? SCENARIO_DEFAULTS.joinTimeoutSeconds,
  );
  const churned = churnSchedule(startNs, viewersPhaseNs, s.churn, minNs);
  return { startNs: churned.startNs, rampOffsetNs: offsets, viewersPhaseNs, churn: churned.churn };
}
