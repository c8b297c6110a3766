// What the Markdown and HTML reports show of the reference viewers
// (docs/definitions.md#reference-viewers): the groups that had any — the whole run first, then each
// cohort entry's — and one cell per figure, the figures' list (core/reference/figures.ts) giving
// the columns, beside the model's freezes and frozen seconds for the same group.
import { fmtFixed } from "../go-compat/fmt.ts";
import { REFERENCE_FIGURES } from "../reference/figures.ts";
import type { ReferenceBlock } from "./reference-types.ts";
import type { PooledRenderBlock } from "./render-types.ts";
import type { Report } from "./types.ts";

export interface ReferenceGroupView {
  /** "all" for the whole run, else the cohort entry's name */
  name: string;
  block: ReferenceBlock;
  render: PooledRenderBlock | undefined;
}

/** The whole run's block, then each cohort entry's; empty without reference viewers. */
export function referenceGroups(r: Report): ReferenceGroupView[] {
  const all = r.aggregate.reference;
  if (all === undefined) return [];
  return [
    { name: "all", block: all, render: r.aggregate.render },
    ...(r.aggregate.cohorts ?? []).flatMap((c) =>
      c.reference === undefined ? [] : [{ name: c.name, block: c.reference, render: c.render }],
    ),
  ];
}

/** A figure's cell: seconds with 2 decimals, counts whole; "n/a" where the block has none. */
export function figureCell(b: ReferenceBlock, key: (typeof REFERENCE_FIGURES)[number]["key"]): string {
  const v = b[key];
  if (v === undefined) return "n/a";
  return key.endsWith("Seconds") ? fmtFixed(v, 2) : String(v);
}

/** The cells after the group's name: measured, each figure, jitter-buffer delay, the model's two. */
export function referenceCells(g: ReferenceGroupView): string[] {
  const b = g.block;
  const model = g.render?.available === true ? g.render : undefined;
  return [
    `${b.measured}/${b.viewers}`,
    b.measuredSeconds === undefined ? "n/a" : `${fmtFixed(b.measuredSeconds, 1)} s`,
    ...REFERENCE_FIGURES.map((f) => figureCell(b, f.key)),
    b.jitterBufferDelayMs === undefined ? "n/a" : `${fmtFixed(b.jitterBufferDelayMs, 1)} ms`,
    model === undefined ? "n/a" : String(model.freezes),
    model === undefined ? "n/a" : fmtFixed(model.frozenSeconds, 2),
    model === undefined ? "n/a" : `${fmtFixed(model.measuredSeconds, 1)} s`,
  ];
}

/** The column heads after the group's. */
export const REFERENCE_HEADS: readonly string[] = [
  "measured",
  "their time",
  ...REFERENCE_FIGURES.map((f) => f.key),
  "jitter-buffer delay",
  "model freezes",
  "model frozenSeconds",
  "model time",
];

/** The sentence about one group's block: unavailable with its reason, else its agreement line. */
export function referenceSentence(g: ReferenceGroupView): string {
  const b = g.block;
  const link = b.linkApplied === false ? " (without the cohort's emulated link)" : "";
  if (!b.available) return `${g.name}: unavailable, because ${b.reason ?? "no reference figures"}`;
  return `${g.name}${link}: ${b.agreement.line}${b.reason !== undefined ? ` (${b.reason})` : ""}`;
}

/** How many reference viewers the run had, in words. */
export function referenceCountText(r: Report): string {
  const n = r.aggregate.reference?.viewers ?? 0;
  return `${n} libwebrtc reference viewer${n === 1 ? "" : "s"} (M106, @roamhq/wrtc) watched beside the load, each in a process of its own; they are not load: no figure above counts them.`;
}
