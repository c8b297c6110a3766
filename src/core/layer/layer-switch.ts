// The layer-choice keys (docs/definitions.md#layer-switches): the scenario's `layerSwitch`, the
// layer every viewer asks for at its start and the one it switches to at a given time, through the
// WHEP layer extension; and a cohort's `layer` and `layerSwitch`, the same for its own viewers
// (docs/definitions.md#cohort-layers). `{ "startRid": "l", "atSeconds": 2, "rid": "h" }`: start
// on l, ask for h 2 s after the viewer's WHEP POST. Either part may be left out (not both); values
// are checked against `simulcast` later. Here, beneath both the scenario and the cohorts.

import { ScenarioError } from "../errors.ts";
import { type LayerSwitchSpec, SIMULCAST_RIDS } from "./spec.ts";

export type { LayerSwitchSpec } from "./spec.ts";

const KEYS = ["startRid", "atSeconds", "rid"];
const WANT = `want an object {"startRid", "atSeconds", "rid"} naming layers ${SIMULCAST_RIDS.join(", ")}`;

/**
 * A `layerSwitch` object; `fail` throws an error naming the key (the value is never echoed: a
 * scenario's strings may hold a URL or a token).
 */
export function layerSwitchFields(raw: unknown, fail: (msg: string) => never): LayerSwitchSpec {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) fail(WANT);
  const o = raw as Record<string, unknown>;
  for (const k of Object.keys(o))
    if (!KEYS.includes(k)) fail(`unknown key ${JSON.stringify(k.slice(0, 40))} (${WANT})`);
  for (const k of ["startRid", "rid"] as const)
    if (o[k] !== undefined && !isLayer(o[k])) fail(`${k} is not a layer (${WANT})`);
  const at = o["atSeconds"];
  if (at !== undefined && (typeof at !== "number" || !Number.isFinite(at) || at <= 0 || at > 3600))
    fail("atSeconds must be a number of seconds above 0 and at most 3600");
  // the keys in the report's order (startRid, atSeconds, rid), however the file wrote them
  const out: LayerSwitchSpec = {};
  if (o["startRid"] !== undefined) out.startRid = o["startRid"] as string;
  if (at !== undefined) out.atSeconds = at as number;
  if (o["rid"] !== undefined) out.rid = o["rid"] as string;
  if ((out.atSeconds === undefined) !== (out.rid === undefined)) fail("atSeconds and rid come together");
  if (out.startRid === undefined && out.rid === undefined) fail("name startRid, or atSeconds and rid");
  if (out.startRid !== undefined && out.startRid === out.rid) fail("rid is the layer it starts on");
  return out;
}

/** Whether `v` names one of the embedded layers. */
export function isLayer(v: unknown): v is string {
  return typeof v === "string" && SIMULCAST_RIDS.includes(v);
}

/** The layers a cohort's `layer` may name, for its error message. */
export const LAYER_WANT = `want a layer (${SIMULCAST_RIDS.join(", ")})`;

/** The scenario's `layerSwitch` value; throws an error naming the key. */
export function parseLayerSwitch(raw: unknown): LayerSwitchSpec {
  return layerSwitchFields(raw, (msg) => {
    throw new ScenarioError(`layerSwitch: ${msg}`);
  });
}

/** A group's layer choice: its `layer` (the start) and its `layerSwitch` together. */
export interface LayerChoiceKeys {
  layer?: string;
  layerSwitch?: LayerSwitchSpec;
}

/**
 * The layer choice of one cohort's viewers: its `layer` as the start and its `layerSwitch`;
 * undefined when it names neither (its viewers take the scenario's `layerSwitch`).
 */
export function cohortLayerSpec(c: LayerChoiceKeys): LayerSwitchSpec | undefined {
  if (c.layer === undefined) return c.layerSwitch;
  return { ...c.layerSwitch, startRid: c.layer };
}

/** The problem with a layer choice against the scenario's layers, or null; `names` name its keys. */
function choiceProblem(
  need: string,
  spec: LayerSwitchSpec | undefined,
  simulcast: readonly string[] | undefined,
  names: Record<"startRid" | "rid", string>,
): string | null {
  if (spec === undefined) return null;
  if (simulcast === undefined) return `${need} needs simulcast (the layers to choose from)`;
  for (const k of ["startRid", "rid"] as const) {
    const v = spec[k];
    if (v !== undefined && !simulcast.includes(v))
      return `${names[k]} "${v}" is not one of the simulcast layers (${simulcast.join(", ")})`;
  }
  return null;
}

/** The problem with `layerSwitch` and the cohorts' layer keys against the scenario's layers, or null. */
export function layerSwitchProblem(
  ls: LayerSwitchSpec | undefined,
  simulcast: readonly string[] | undefined,
  cohorts: readonly LayerChoiceKeys[] = [],
): string | null {
  const names = { startRid: "layerSwitch: startRid", rid: "layerSwitch: rid" };
  const own = choiceProblem("layerSwitch", ls, simulcast, names);
  if (own !== null) return own;
  for (const [i, c] of cohorts.entries()) {
    const key = `cohorts[${i}]`;
    const start = c.layer !== undefined ? `${key}.layer` : `${key}.layerSwitch.startRid`;
    const need = c.layer !== undefined ? `${key}.layer` : `${key}.layerSwitch`;
    const p = choiceProblem(need, cohortLayerSpec(c), simulcast, {
      startRid: start,
      rid: `${key}.layerSwitch.rid`,
    });
    if (p !== null) return p;
  }
  return null;
}
