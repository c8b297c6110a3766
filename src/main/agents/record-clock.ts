// A viewer record's instants moved between clocks (docs/definitions.md#many-hosts): an agent sends
// them relative to its t0, the coordinator puts them back onto its own monotonic clock by adding
// its t0. The instants are the WHEP POST, the stop and the layer choice's ask instants
// (docs/definitions.md#layer-switches); every other figure of a record is a duration and stays.
import type { ViewerRecord } from "../../core/types.ts";

/** The record with every monotonic instant moved by `deltaNs` (a copy; the record is not changed). */
export function shiftRecordInstants(r: ViewerRecord, deltaNs: number): ViewerRecord {
  const out: ViewerRecord = { ...r };
  if (r.postMonoNs !== undefined) out.postMonoNs = r.postMonoNs + deltaNs;
  if (r.stopMonoNs !== undefined) out.stopMonoNs = r.stopMonoNs + deltaNs;
  const c = r.layerChoice;
  if (c !== undefined) {
    out.layerChoice = {
      ...c,
      asks: c.asks.map((a) => ({ ...a, atNs: a.atNs + deltaNs })),
      // switchNs is the ask-to-keyframe time: a duration
      switches: c.switches.map((s) => ({ ...s, askedNs: s.askedNs === null ? null : s.askedNs + deltaNs })),
    };
  }
  return out;
}
