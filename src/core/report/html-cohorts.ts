// The HTML report's cohort section (docs/definitions.md#cohort-figures): one column per entry of
// aggregate.cohorts[] (the cohorts in scenario order, the unimpaired viewers last), one row per
// figure, shown only with a valid verdict, as the aggregate is. Every value is escaped.

import { FIGURE_REGISTRY } from "../figures/registry.ts";
import type { FigureDecl } from "../figures/types.ts";
import { fmtFixed } from "../go-compat/fmt.ts";
import type { LinkCounts } from "../link/types.ts";
import { escapeHtml } from "./html-sections.ts";
import { lossCell } from "./reasons.ts";
import type { CohortReport, PooledDelayBlock, Report } from "./types.ts";

const DASH = "—";

type Row = readonly [label: string, cell: (c: CohortReport) => string];

/** A row and its place among the table's rows (equal places keep their order). */
type PlacedRow = readonly [at: number, label: string, cell: (c: CohortReport) => string];

function ms(v: number | undefined): string {
  return v === undefined ? DASH : `${fmtFixed(v, 1)} ms`;
}

function fingerprint(c: CohortReport): PooledDelayBlock | undefined {
  const b = c.oneWayDelay.find((x) => x.source === "fingerprint");
  return b?.available === true ? b : undefined;
}

function delayRows(): Row[] {
  const out: Row[] = [];
  for (const stat of ["p50", "p95", "p99"] as const) {
    out.push([`one-way delay ${stat}`, (c) => ms(fingerprint(c)?.ms?.[stat])]);
  }
  for (const stat of ["p50", "p95"] as const) {
    out.push([`keyframes ${stat}`, (c) => ms(fingerprint(c)?.keyframes.ms?.[stat])]);
    out.push([`delta frames ${stat}`, (c) => ms(fingerprint(c)?.deltaFrames.ms?.[stat])]);
  }
  out.push([
    "delay samples",
    (c) => {
      const f = fingerprint(c);
      return f === undefined ? DASH : String(f.samples);
    },
  ]);
  return out;
}

function linkRows(dir: "down" | "up", words: string): Row[] {
  const cell = (f: keyof LinkCounts) => (c: CohortReport) => {
    const counts = c.link?.[dir];
    return counts === undefined ? DASH : String(counts[f]);
  };
  return [
    [`emulated ${words}: datagrams`, cell("datagrams")],
    [`emulated ${words}: delayed`, cell("delayed")],
    [`emulated ${words}: lost`, cell("droppedLoss")],
    [`emulated ${words}: queue-dropped`, cell("droppedQueue")],
  ];
}

/** The rows written by hand: several figures in one cell, or a figure no declaration pools. */
const HAND_ROWS: readonly PlacedRow[] = [
  [0, "joined", (c) => `${c.joined} of ${c.viewers}`],
  ...delayRows().map(([label, cell]) => [1, label, cell] as const),
  [2, "join p50", (c) => (c.joinFirstKeyframeMs.n > 0 ? ms(c.joinFirstKeyframeMs.p50) : DASH)],
  [2, "join p95", (c) => (c.joinFirstKeyframeMs.n > 0 ? ms(c.joinFirstKeyframeMs.p95) : DASH)],
  [
    3,
    "loss after repair",
    (c) => `${lossCell(c.lossPercentTotal, 3)} (${c.packetsLost} of ${c.packetsLost + c.packetsReceived})`,
  ],
  [5, "late-completed frames", (c) => String(c.lateCompletedFrames)],
  [5, "incomplete frames", (c) => String(c.incompleteFrames)],
  ...[...linkRows("down", "down (server → viewer)"), ...linkRows("up", "up (viewer → server)")].map(
    ([label, cell]) => [11, label, cell] as const,
  ),
];

/**
 * A declared figure's cell: read at its report key within the cohort, a dash where it or a block
 * on the way is unavailable (a cohort with no judged render block); counts whole, seconds to a
 * tenth (the label names them), % and other values to two places.
 */
function figureCell(d: FigureDecl, path: string): (c: CohortReport) => string {
  return (c) => {
    let v: unknown = c;
    for (const k of path.split(".")) {
      if (typeof v !== "object" || v === null || (v as { available?: unknown }).available === false)
        return DASH;
      v = (v as Record<string, unknown>)[k];
    }
    if (typeof v !== "number") return DASH;
    if (d.unit === "%") return `${fmtFixed(v, 2)}%`;
    if (d.unit === "ms") return ms(v);
    if (d.unit === "s") return fmtFixed(v, 1);
    return d.kind === "counter" ? String(v) : fmtFixed(v, 2);
  };
}

/** The rows of one declared figure each, from the declarations' `cohortRow`. */
export function cohortFigureRows(): PlacedRow[] {
  return FIGURE_REGISTRY.flatMap((d): PlacedRow[] => {
    const row = d.cohortRow;
    if (row === undefined || typeof d.html !== "string") return [];
    const label = row.label ?? d.html;
    const key = d.report.replace(/^aggregate\./, "");
    if (row.stats === undefined) return [[row.at, label, figureCell(d, key)]];
    return row.stats.map((s) => [row.at, `${label} ${s}`, figureCell(d, `${key}.${s}`)] as const);
  });
}

/** Every row in place order (a stable sort: equal places keep their order, the hand rows first). */
const ROWS: readonly Row[] = [...HAND_ROWS, ...cohortFigureRows()]
  .sort((x, y) => x[0] - y[0])
  .map(([, label, cell]) => [label, cell] as const);

/** The cohort section; empty without cohorts. */
export function cohortSection(r: Report): string {
  const list = r.aggregate.cohorts;
  if (list === undefined) return "";
  const head = `<section id="cohorts" class="card"><h2>Cohorts</h2>`;
  if (!r.aggregate.valid) {
    return `${head}<p>No verdict: the cohorts' figures stay in the JSON report and are not shown here as results.</p></section>`;
  }
  const th = list.map((c) => `<th scope="col" class="num">${escapeHtml(c.name)}</th>`).join("");
  const body = ROWS.map(
    ([label, cell]) =>
      `<tr><th scope="row">${escapeHtml(label)}</th>${list.map((c) => `<td class="num">${escapeHtml(cell(c))}</td>`).join("")}</tr>`,
  ).join("");
  return `${head}<p class="note">Each cohort's viewers pooled as the aggregate pools all of them; the unimpaired viewers last; the emulator's counts per direction.</p><div class="wrap"><table class="data cohorts"><thead><tr><th>figure</th>${th}</tr></thead><tbody>${body}</tbody></table></div></section>`;
}
