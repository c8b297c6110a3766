// A scenario for `whipbench capacity` (docs/definitions.md#capacity): the search sets every step's
// `viewers`, `holdSeconds` (capacity.stepSeconds) and `excludeFirstSeconds` (capacity.settleSeconds),
// so those keys are optional here; one that is given is ignored, with a note that says so. Every
// other key is parsed and validated exactly as for `run`.

import { CAPACITY_DEFAULTS, type CapacitySpec } from "../capacity/types.ts";
import { ScenarioError } from "../errors.ts";
import { decodeScenario, givenKeys, normaliseScenario, type Scenario, validateScenario } from "./scenario.ts";

/** The scenario's own bound on viewers (docs/definitions.md#scenario-validation). */
const MAX_VIEWERS = 10000;

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
  // validated at the most viewers a step may have, so the cohorts' counts are checked against
  // capacity.max below rather than against the first step (docs/definitions.md#cohorts-in-a-capacity-search)
  const s: Scenario = {
    ...decoded,
    viewers: MAX_VIEWERS,
    holdSeconds: spec.stepSeconds,
    excludeFirstSeconds: spec.settleSeconds,
  };
  const { churn, ...unchurned } = s;
  let validated = validateScenario(normaliseScenario(unchurned));
  if (churn !== undefined) {
    // the churn schedule's bound (docs/definitions.md#churn-in-a-capacity-search) holds at the
    // most viewers a step may have, capacity.max, not at the scenario's own bound on viewers
    const { cohorts: _cohorts, ...plain } = unchurned;
    const atMax = validateScenario(normaliseScenario({ ...plain, churn, viewers: spec.max }));
    if (atMax.churn !== undefined) validated = { ...validated, churn: atMax.churn };
  }
  const counted = (validated.cohorts ?? []).reduce((a, c) => a + (c.viewers ?? 0), 0);
  if (counted > spec.max) {
    throw new ScenarioError(
      `cohorts: the cohorts' counts add up to ${counted}, more than capacity.max ${spec.max} (give a share instead)`,
    );
  }
  if (counted > spec.start) {
    notes.push(
      `cohorts: the counts add up to ${counted}, more than capacity.start ${spec.start}: a step of fewer viewers fills the counted cohorts in order, each capped at what is left`,
    );
  }
  return { scenario: { ...validated, viewers: spec.start }, notes };
}
