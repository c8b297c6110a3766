// The scenario key `simulcast` (docs/definitions.md#simulcast-publisher): true for the embedded
// layers l, m and h, false for none, or a list of their rids. Normalised to the rids, lowest first.

import { SIMULCAST_RIDS } from "../clip/simulcast.ts";
import { ScenarioError } from "../errors.ts";

const WANT = `want true, false or a list of rids (${SIMULCAST_RIDS.join(", ")})`;

/**
 * The rids a `simulcast` value names, lowest first; undefined for false. Throws an error naming
 * the key (OBJECT_KEYS' parsers' message: the scenario wraps it).
 */
export function parseSimulcast(raw: unknown): string[] | undefined {
  if (raw === false) return undefined;
  if (raw === true) return [...SIMULCAST_RIDS];
  if (!Array.isArray(raw)) throw new ScenarioError(`simulcast: ${WANT}`);
  const rids: string[] = [];
  for (const [n, r] of raw.entries()) {
    // the value is not echoed: a scenario's strings may hold a URL or a token
    if (typeof r !== "string" || !SIMULCAST_RIDS.includes(r))
      throw new ScenarioError(`simulcast: item ${n} is not a layer (${WANT})`);
    if (rids.includes(r)) throw new ScenarioError(`simulcast: layer "${r}" is named twice`);
    rids.push(r);
  }
  if (rids.length < 2) throw new ScenarioError("simulcast: name at least two layers");
  return SIMULCAST_RIDS.filter((r) => rids.includes(r));
}
