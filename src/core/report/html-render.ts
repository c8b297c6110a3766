// The HTML report's "What viewers saw" card (docs/definitions.md#viewer-experience-pooled): the
// frozen share p50/p95 and freezes per viewer-minute first (big stats declared in the figure
// registry, htmlBig), then the other pooled figures; shown only with a valid verdict, as the
// aggregate is.
// Every value is escaped.

import { FIGURE_REGISTRY, type RegistryUnit, valueAt } from "../figures/registry.ts";
import type { HtmlTable } from "../figures/types.ts";
import { fmtFixed } from "../go-compat/fmt.ts";
import type { Summary } from "../types.ts";
import { escapeHtml } from "./html-sections.ts";
import { frameEndsText } from "./markdown-cells.ts";
import type { PooledRenderBlock } from "./render-types.ts";
import type { Report } from "./types.ts";

const DASH = "—";

const pct = (v: number) => `${fmtFixed(v, 2)}%`;
const ms0 = (v: number) => `${fmtFixed(v, 0)} ms`;

function big(label: string, value: string): string {
  return `<div class="stat"><div class="label">${escapeHtml(label)}</div><div class="value">${escapeHtml(value)}</div></div>`;
}

/** A row of the facts table: its place, label and value. */
type FactRow = readonly [at: number, label: string, value: string];

/** The rows written by hand: each combines several figures in one sentence, or is no figure. */
function handRows(b: PooledRenderBlock): FactRow[] {
  return [
    [0, "viewers judged", `${b.viewers} (reference finder: ${frameEndsText(b.viewersByFinder)})`],
    [1, "frames", `${b.framesShown} shown, ${b.framesNotDecodable} not decodable, ${b.framesLate} late`],
    [
      2,
      "freezes",
      `${b.freezes}, ${fmtFixed(b.frozenSeconds, 1)} s frozen of ${fmtFixed(b.measuredSeconds, 1)} s judged; the longest ${ms0(b.longestFreezeMs)}`,
    ],
    [4, "pauses", `${b.pauses} (${fmtFixed(b.pausedSeconds, 1)} s)`],
    [
      6,
      "recovery (broken chain → next frame shown)",
      b.recoveryMs === undefined
        ? `${b.recoveries}`
        : `${b.recoveries}, p50 ${ms0(b.recoveryMs.p50)}, p95 ${ms0(b.recoveryMs.p95)}, max ${ms0(b.recoveryMs.max)}`,
    ],
    [
      7,
      "PLIs sent",
      b.pliKeyframeMs === undefined
        ? `${b.plisSent}, ${b.plisAnswered} answered by a shown keyframe`
        : `${b.plisSent}, ${b.plisAnswered} answered by a shown keyframe, p50 ${ms0(b.pliKeyframeMs.p50)} after`,
    ],
  ];
}

/** A summary's value in the facts table, in its declared unit. */
function factValue(v: number, unit: RegistryUnit): string {
  return unit === "%" ? pct(v) : unit === "ms" ? ms0(v) : `${fmtFixed(v, 2)}${unit === "" ? "" : ` ${unit}`}`;
}

/**
 * The rows of one figure each, from the registry's declarations with an `htmlRow` in `table`:
 * labelled with the HTML label, read at the report key, the row's stats (one: the value alone).
 */
export function figureRows(r: Report, table: HtmlTable): FactRow[] {
  return FIGURE_REGISTRY.flatMap((d) => {
    const row = d.htmlRow;
    if (row?.table !== table || typeof d.html !== "string") return [];
    const s = valueAt(r, d.report) as Summary | undefined;
    const cell = (k: (typeof row.stats)[number]) => (s === undefined ? DASH : factValue(s[k], d.unit));
    const value =
      row.stats.length === 1 && row.stats[0] !== undefined
        ? cell(row.stats[0])
        : row.stats.map((k) => `${k} ${cell(k)}`).join(", ");
    return [[row.at, d.html, value] as const];
  });
}

/**
 * A card's big stats, from the registry's declarations with an `htmlBig` on that card, in their
 * order: label and value (in the declared unit; a dash where the report has none).
 */
export function bigStats(r: Report, card: HtmlTable): [label: string, value: string][] {
  const decls = FIGURE_REGISTRY.filter((d) => d.htmlBig?.card === card);
  decls.sort((x, y) => (x.htmlBig?.at ?? 0) - (y.htmlBig?.at ?? 0));
  return decls.flatMap((d): [string, string][] => {
    const big = d.htmlBig;
    if (big === undefined) return [];
    const label = big.label ?? (typeof d.html === "string" ? d.html : d.name);
    const v = valueAt(r, d.report);
    if (big.stats === undefined) return [[label, typeof v === "number" ? factValue(v, d.unit) : DASH]];
    const s = v as Summary | undefined;
    return big.stats.map((k) => [`${label} ${k}`, s === undefined ? DASH : factValue(s[k], d.unit)]);
  });
}

function facts(r: Report, b: PooledRenderBlock): string {
  const rows = [...handRows(b), ...figureRows(r, "render")].sort((x, y) => x[0] - y[0]);
  return `<table class="facts">${rows.map(([, k, v]) => `<tr><th scope="row">${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`).join("")}</table>`;
}

/** The card; empty for a report without the block (an older one). */
export function renderSection(r: Report): string {
  const b = r.aggregate.render;
  if (b === undefined) return "";
  const head = `<section id="render" class="card"><h2>What viewers saw</h2>`;
  if (!r.aggregate.valid) {
    return `${head}<p>No verdict: these figures stay in the JSON report and are not shown here as results.</p></section>`;
  }
  if (!b.available) return `${head}<p>Unavailable: ${escapeHtml(b.reason ?? "")}.</p></section>`;
  const stats = bigStats(r, "render")
    .map(([label, value]) => big(label, value))
    .join("");
  const partial = (b.reason ?? "") === "" ? "" : `<p class="note">${escapeHtml(b.reason ?? "")}.</p>`;
  return `${head}<p class="note">A freeze as a browser counts it: a frame shown at least max(3 × the mean interval, mean + 150 ms) after the one before; the frozen share is each viewer's frozen time over its judged time.</p><div class="stats">${stats}</div>${partial}${facts(r, b)}</section>`;
}
