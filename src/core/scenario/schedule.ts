// Start schedule and run length (docs/definitions.md#start-schedule): plain ramp slots in integer ns, plus the seeded
// SplitMix64 offsets when `rampOffsetSeed` is present.

import type { Scenario } from "./scenario.ts";
import { rampOffsetsNs } from "./splitmix.ts";

export interface Schedule {
  /** start of viewer i after t0, ns: rampSlot[i] + offset[i] */
  startNs: number[];
  /** offset[i] in ns with a seed; null without */
  rampOffsetNs: number[] | null;
  /** all viewers stop this long after t0: ramp + (seed ? bound : 0) + hold */
  viewersPhaseNs: number;
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
  // the bound defaults to 1 s with a seed, as normalisation does
  const boundNs = seeded ? secondsToNs(s.rampOffsetMaxSeconds || 1) : 0;
  const offsets = s.rampOffsetSeed !== undefined ? rampOffsetsNs(s.rampOffsetSeed, boundNs, n) : null;
  const startNs: number[] = new Array<number>(n);
  const ramp = BigInt(rampNs);
  const bn = BigInt(n);
  for (let i = 0; i < n; i++) {
    const slot = Number((ramp * BigInt(i)) / bn); // floor: both non-negative
    startNs[i] = slot + (offsets?.[i] ?? 0);
  }
  return { startNs, rampOffsetNs: offsets, viewersPhaseNs: rampNs + boundNs + secondsToNs(s.holdSeconds) };
}
