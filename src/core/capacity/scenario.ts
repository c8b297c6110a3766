// A scenario for `whipbench capacity` (docs/definitions.md#capacity): the search sets every step's
// `viewers`, `holdSeconds` (capacity.stepSeconds) and `excludeFirstSeconds` (capacity.settleSeconds),
// so those keys are optional here; one that is given is ignored, with a note that says so. Every
// other key is parsed and validated exactly as for `run`.

import {
  decodeScenario,
  givenKeys,
  normaliseScenario,
  type Scenario,
  validateScenario,
} from "../scenario/scenario.ts";
import { CAPACITY_DEFAULTS, type CapacitySpec } from "./types.ts";

/** The keys the search replaces, each with what replaces it. */
const SEARCH_SETS: ReadonlyArray<readonly [keyof Scenario, (c: CapacitySpec) => string]> = [
  [
    "viewers",
    (c) => `each step's viewers come from the search (capacity.start ${c.start} up to capacity.max ${c.max})`,
  ],
  ["holdSeconds", (c) => `each step holds capacity.stepSeconds (${c.stepSeconds} s)`],
  [
    "excludeFirstSeconds",
    (c) =>
      `each step leaves out capacity.settleSeconds (${c.settleSeconds} s) of each viewer's delay samples`,
  ],
];

export interface CapacityScenario {
  /** validated, with the replaced keys set to the search's first step */
  scenario: Scenario;
  /** one line per replaced key the file gives */
  notes: string[];
}

/** Parses a capacity scenario's text; throws ScenarioError as parseScenario does for every other key. */
export function capacityScenario(text: string): CapacityScenario {
  const decoded = decodeScenario(text);
  const spec = decoded.capacity ?? CAPACITY_DEFAULTS;
  const given = givenKeys(text);
  const notes = SEARCH_SETS.filter(([key]) => given.has(key)).map(
    ([key, why]) => `scenario key ${key} ignored: ${why(spec)}`,
  );
  const s: Scenario = {
    ...decoded,
    viewers: spec.start,
    holdSeconds: spec.stepSeconds,
    excludeFirstSeconds: spec.settleSeconds,
  };
  return { scenario: validateScenario(normaliseScenario(s)), notes };
}
