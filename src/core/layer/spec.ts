// The layer names and the layer-choice shape (docs/definitions.md#layer-switches,
// docs/definitions.md#cohort-layers), with no import: the clips, the cohorts and the scenario all
// see them, and nothing here reaches back to any of them.

/** The rids of the embedded layers, lowest first (docs/definitions.md#simulcast-layers). */
export const SIMULCAST_RIDS: readonly string[] = ["l", "m", "h"];

/** A layer choice: the layer asked for at the start, and the one switched to at a given time. */
export interface LayerSwitchSpec {
  /** the layer asked for as soon as the server's answer offers the extension */
  startRid?: string;
  /** seconds after the viewer's WHEP POST when it asks for `rid` */
  atSeconds?: number;
  /** the layer switched to */
  rid?: string;
}
