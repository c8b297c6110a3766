// The HTML report's cohort section (docs/definitions.md#cohort-figures): one column per entry of
// aggregate.cohorts[] (the cohorts in scenario order, the unimpaired viewers last), one row per
// figure, shown only with a valid verdict, as the aggregate is. Every value is escaped.

import { fmtFixed } from "../go-compat/fmt.ts";
import type { LinkCounts } from "../link/types.ts";
import { COHORT_RENDER_ROWS } from "./html-render.ts";
import { escapeHtml } from "./html-sections.ts";
import type { CohortReport, PooledDelayBlock, Report } from "./types.ts";

const DASH = "—";

type Row = readonly [label: string, cell: (c: CohortReport) => string];

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

const ROWS: readonly Row[] = [
  ["joined", (c) => `${c.joined} of ${c.viewers}`],
  ...delayRows(),
  ["join p50", (c) => (c.joinFirstKeyframeMs.n > 0 ? ms(c.joinFirstKeyframeMs.p50) : DASH)],
  ["join p95", (c) => (c.joinFirstKeyframeMs.n > 0 ? ms(c.joinFirstKeyframeMs.p95) : DASH)],
  [
    "loss after repair",
    (c) => `${fmtFixed(c.lossPercentTotal, 3)}% (${c.packetsLost} of ${c.packetsLost + c.packetsReceived})`,
  ],
  ["NACKs sent", (c) => String(c.nacksSent)],
  ["late-completed frames", (c) => String(c.lateCompletedFrames)],
  ["incomplete frames", (c) => String(c.incompleteFrames)],
  ["stalls", (c) => String(c.stalls)],
  ...COHORT_RENDER_ROWS,
  ...linkRows("down", "down (server → viewer)"),
  ...linkRows("up", "up (viewer → server)"),
];

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
