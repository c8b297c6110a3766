// The Markdown report's layer-switch section (docs/definitions.md#layer-switches), in a run with
// `layerSwitch`: the switches pooled, the switch time's summary and one row per switch; a figure
// that was not measured is a dash, and the section says why.
import { fmtFixed } from "../go-compat/fmt.ts";
import type { LayerSwitchReport, PooledLayerSwitches } from "./layer-choice.ts";
import { DASH, esc, summaryRow } from "./markdown-cells.ts";
import type { Report } from "./types.ts";

/** The viewers' choice in words: `start l, h at 2 s`. */
export function layerSwitchText(s: Report["scenario"]["layerSwitch"]): string {
  if (s === undefined) return "";
  const parts = [
    ...(s.startRid !== undefined ? [`start ${s.startRid}`] : []),
    ...(s.rid !== undefined ? [`${s.rid} at ${s.atSeconds} s`] : []),
  ];
  return parts.join(", ");
}

/**
 * Every group's choice in words: the scenario's `layerSwitch`, then each cohort's own
 * (docs/definitions.md#cohort-layers): `start l, h at 2 s; cohort low: start l`.
 */
export function layerChoiceText(r: Report): string {
  const parts = r.scenario.layerSwitch !== undefined ? [layerSwitchText(r.scenario.layerSwitch)] : [];
  for (const c of r.scenario.cohorts ?? []) {
    const own = {
      ...(typeof c.layerSwitch === "object" ? c.layerSwitch : {}),
      ...(typeof c.layer === "string" ? { startRid: c.layer } : {}),
    } as Report["scenario"]["layerSwitch"];
    const text = layerSwitchText(own);
    if (text !== "") parts.push(`cohort ${String(c.name)}: ${text}`);
  }
  return parts.join("; ");
}

const lostText = (n: number | undefined): string =>
  n === undefined
    ? "frames lost across them unavailable, because no switch's loss was measured"
    : `${n} frames lost across them`;

/** The pooled counts in one sentence. */
export function pooledLayerText(p: PooledLayerSwitches): string {
  return `${p.withExtension} of ${p.viewers} viewers were offered the WHEP layer extension; ${p.asked} switches asked for, ${p.reached} reached the new layer's first keyframe, ${p.unasked} made by the server unasked; ${lostText(p.framesLost)}.`;
}

const msOrDash = (v: number | null): string => (v === null ? DASH : `${fmtFixed(v, 1)} ms`);

function switchRow(id: number, s: LayerSwitchReport): string {
  const lost = s.framesLost === null ? DASH : String(s.framesLost);
  return `| ${id} | ${s.from ?? DASH} | ${s.to} | ${msOrDash(s.askedMs)} | ${msOrDash(s.switchMs)} | ${lost} |`;
}

export function layersMarkdown(r: Report): string[] {
  const p = r.aggregate.layerSwitches;
  if (p === undefined) return [];
  const out = ["## Layer switches", "", `Viewers' layer choice: ${esc(layerChoiceText(r))}.`, ""];
  if (p.reason !== undefined) return [...out, `Unavailable, because ${esc(p.reason)}.`, ""];
  out.push(
    pooledLayerText(p),
    "",
    "| switch | n | p50 | p95 | p99 | min | max |",
    "|---|---:|---:|---:|---:|---:|---:|",
    summaryRow("ask → new layer's first keyframe", p.switchMs, "ms"),
    "",
    "| viewer | from | to | asked (after POST) | switch | frames lost |",
    "|---:|---|---|---:|---:|---:|",
  );
  for (const v of r.viewers ?? [])
    for (const s of v.layerChoice?.switches ?? []) out.push(switchRow(v.id, s));
  out.push(
    "",
    `${DASH}: not measured — an unasked switch has no ask, a switch whose new layer's keyframe never came has no time, and frames lost need the two layers' timestamps a whole number of frames apart.`,
    "",
  );
  return out;
}

/** One pooled row of the delay per layer: the group (the run or a cohort), then its cells. */
export interface LayerDelayRow {
  group: string;
  rid: string;
  viewers: number;
  samples: number;
  /** p50 and p95 in ms, or dashes */
  p50: string;
  p95: string;
  /** "unavailable, because …" when the layer had no samples; "" else */
  note: string;
}

/** The pooled rows of docs/definitions.md#layer-delay: the run's layers, then each cohort's. */
export function layerDelayRows(r: Report): LayerDelayRow[] {
  const groups = [
    { group: "all viewers", layers: r.aggregate.layerDelay ?? [] },
    ...(r.aggregate.cohorts ?? []).map((c) => ({ group: c.name, layers: c.layerDelay ?? [] })),
  ];
  return groups.flatMap(({ group, layers }) =>
    layers.map((l) => ({
      group,
      rid: l.rid,
      viewers: l.viewers,
      samples: l.samples,
      p50: l.delayMs !== undefined ? `${fmtFixed(l.delayMs.p50, 1)} ms` : DASH,
      p95: l.delayMs !== undefined ? `${fmtFixed(l.delayMs.p95, 1)} ms` : DASH,
      note: l.reason !== undefined ? `unavailable, because ${l.reason}` : "",
    })),
  );
}

function viewerLayerCells(v: NonNullable<Report["viewers"]>[number]): string {
  return (v.layers ?? [])
    .map((l) =>
      l.delayMs !== undefined
        ? `${l.rid}: ${l.samples} samples, p50 ${fmtFixed(l.delayMs.p50, 1)} ms, p95 ${fmtFixed(l.delayMs.p95, 1)} ms`
        : `${l.rid}: unavailable, because ${l.reason ?? "it had no samples"}`,
    )
    .join("; ");
}

/** The "Delay per layer" section, in a run with simulcast: pooled rows, then one row per viewer. */
export function layerDelayMarkdown(r: Report): string[] {
  if (r.aggregate.layerDelay === undefined) return [];
  const out = [
    "## Delay per layer",
    "",
    "One-way delay (fingerprint source) of the frames of each simulcast layer.",
    "",
    "| group | layer | viewers | samples | p50 | p95 | |",
    "|---|---|---:|---:|---:|---:|---|",
  ];
  for (const d of layerDelayRows(r))
    out.push(
      `| ${esc(d.group)} | ${d.rid} | ${d.viewers} | ${d.samples} | ${d.p50} | ${d.p95} | ${esc(d.note)} |`,
    );
  out.push("", "| viewer | per layer |", "|---:|---|");
  for (const v of r.viewers ?? [])
    if (v.layers !== undefined) out.push(`| ${v.id} | ${esc(viewerLayerCells(v))} |`);
  out.push("");
  return out;
}
