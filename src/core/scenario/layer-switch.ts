// The scenario key `layerSwitch` (docs/definitions.md#layer-switches): the layer every viewer asks
// for at its start and the one it switches to at a given time, through the WHEP layer extension.
// `{ "startRid": "l", "atSeconds": 2, "rid": "h" }`: start on l, ask for h 2 s after the viewer's
// WHEP POST. Either part may be left out (not both); values are checked against `simulcast` later.

import { SIMULCAST_RIDS } from "../clip/simulcast.ts";
import { ScenarioError } from "../errors.ts";

export interface LayerSwitchSpec {
  /** the layer asked for as soon as the server's answer offers the extension */
  startRid?: string;
  /** seconds after the viewer's WHEP POST when it asks for `rid` */
  atSeconds?: number;
  /** the layer switched to */
  rid?: string;
}

const KEYS = ["startRid", "atSeconds", "rid"];
const WANT = `want an object {"startRid", "atSeconds", "rid"} naming layers ${SIMULCAST_RIDS.join(", ")}`;

function fail(msg: string): never {
  throw new ScenarioError(`layerSwitch: ${msg}`);
}

/** The `layerSwitch` value; throws an error naming the key (never echoing a value). */
export function parseLayerSwitch(raw: unknown): LayerSwitchSpec {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) fail(WANT);
  const o = raw as Record<string, unknown>;
  for (const k of Object.keys(o))
    if (!KEYS.includes(k)) fail(`unknown key ${JSON.stringify(k.slice(0, 40))} (${WANT})`);
  const out: LayerSwitchSpec = {};
  for (const k of ["startRid", "rid"] as const) {
    const v = o[k];
    if (v === undefined) continue;
    if (typeof v !== "string" || !SIMULCAST_RIDS.includes(v)) fail(`${k} is not a layer (${WANT})`);
    out[k] = v;
  }
  const at = o["atSeconds"];
  if (at !== undefined) {
    if (typeof at !== "number" || !Number.isFinite(at) || at <= 0 || at > 3600)
      fail("atSeconds must be a number of seconds above 0 and at most 3600");
    out.atSeconds = at;
  }
  if ((out.atSeconds === undefined) !== (out.rid === undefined)) fail("atSeconds and rid come together");
  if (out.startRid === undefined && out.rid === undefined) fail("name startRid, or atSeconds and rid");
  if (out.startRid !== undefined && out.startRid === out.rid) fail("rid is the layer it starts on");
  return out;
}

/** The problem with `layerSwitch` against the scenario's layers and hold, or null. */
export function layerSwitchProblem(
  ls: LayerSwitchSpec | undefined,
  simulcast: readonly string[] | undefined,
): string | null {
  if (ls === undefined) return null;
  if (simulcast === undefined) return "layerSwitch needs simulcast (the layers to choose from)";
  for (const k of ["startRid", "rid"] as const) {
    const v = ls[k];
    if (v !== undefined && !simulcast.includes(v))
      return `layerSwitch: ${k} "${v}" is not one of the simulcast layers (${simulcast.join(", ")})`;
  }
  return null;
}
