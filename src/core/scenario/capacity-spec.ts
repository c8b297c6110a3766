// The scenario's `capacity` key (docs/definitions.md#capacity-search) as the scenario's type holds
// it; capacity/ parses it and runs the search (capacity/types.ts re-exports it with the search's
// own types).

/** The scenario's `capacity` key, with its defaults applied. */
export interface CapacitySpec {
  /** the first step's viewers */
  start: number;
  /** the search never asks for more viewers than this */
  max: number;
  /** each growth step multiplies the viewers by this (> 1) */
  growth: number;
  /** the search stops when the first failing count is at most this many above the last passing one */
  resolution: number;
  /** each step's hold after its ramp, s */
  stepSeconds: number;
  /** the first seconds of each viewer whose delay samples a step leaves out, s */
  settleSeconds: number;
}

export const CAPACITY_DEFAULTS: CapacitySpec = {
  start: 10,
  max: 2000,
  growth: 2,
  resolution: 5,
  stepSeconds: 20,
  settleSeconds: 5,
};
