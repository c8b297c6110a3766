// The HTML report: one self-contained page beside the JSON and the Markdown, in the shared page
// shell (html-page.ts: style, uPlot, the page's script, a CSP that forbids every fetch). Pure:
// the caller hands in the texts.

import type { DelayDistribution } from "./distribution.ts";
import { audioSection } from "./html-audio.ts";
import { churnSection } from "./html-churn.ts";
import { cohortSection } from "./html-cohorts.ts";
import { chartData } from "./html-data.ts";
import { layerDelaySection, layersSection } from "./html-layers.ts";
import { type HtmlAssets, htmlPage } from "./html-page.ts";
import { referenceSection } from "./html-reference.ts";
import { renderSection } from "./html-render.ts";
import { escapeHtml, headerFacts, titleOf, verdictSection, viewerTable } from "./html-sections.ts";
import { thresholdsHtml } from "./threshold-render.ts";

export type { HtmlAssets };

import type { Report } from "./types.ts";

/** The charts, in page order: id, title, what the axes hold. */
export const CHARTS = [
  {
    id: "chart-timeline",
    title: "Viewers and packets per second",
    note: "active viewers (left), packets/s (right)",
  },
  {
    id: "chart-client",
    title: "Client CPU and event-loop delay per second",
    note: "process CPU, % of all cores (left); worst shard thread's p99 event-loop delay, ms (right)",
  },
  {
    id: "chart-frozen",
    title: "Viewers frozen per second",
    note: "mean viewers whose picture was frozen in each second (their frozen time in it / 1 s; docs: viewers frozen per second), active viewers beside",
  },
  {
    id: "chart-delay-hist",
    title: "One-way delay distribution",
    note: "% of each series' samples per bin (log-spaced bins, 20 a decade), pooled over joined viewers",
  },
  {
    id: "chart-delay-cdf",
    title: "One-way delay CDF",
    note: "cumulative % of samples at or below each delay",
  },
  {
    id: "chart-joins",
    title: "Join time per viewer, in start order",
    note: "WHEP POST → first complete keyframe, ms; viewers that did not join are left out and counted in the title",
  },
] as const;

/** The chart that compares the cohorts' delay, after the others, only in a report with cohorts. */
export const COHORT_CHART = {
  id: "chart-cohort-delay",
  title: "One-way delay CDF per cohort",
  note: "cumulative % of each cohort's samples at or below each delay (all frames), the unimpaired viewers last",
} as const;

export function reportToHtml(r: Report, d: DelayDistribution | null, assets: HtmlAssets): string {
  const title = titleOf(r);
  // like the Markdown, a run without a verdict shows no delay figure (the JSON keeps them)
  const valid = r.aggregate.valid;
  const data = {
    charts: chartData(r, valid ? d : null),
    noDelayReason: valid
      ? (r.aggregate.oneWayDelay.find((b) => b.source === "fingerprint")?.reason ?? "no one-way delay figure")
      : "no verdict: the one-way delay figures stay in the JSON report",
  };
  const list = r.aggregate.cohorts === undefined ? [...CHARTS] : [...CHARTS, COHORT_CHART];
  const charts = list
    .map(
      (c) =>
        `<div class="chart"><h3>${escapeHtml(c.title)}</h3><p class="note">${escapeHtml(c.note)}</p><div id="${c.id}" data-chart></div></div>`,
    )
    .join("\n");
  return htmlPage({
    title: `${title} — whipbench report`,
    heading: title,
    body: `${verdictSection(r)}
${thresholdsHtml(r)}
<section class="card">${headerFacts(r)}</section>
${renderSection(r)}
<section class="charts">
${charts}
</section>
${cohortSection(r)}${referenceSection(r)}
${audioSection(r)}${layerDelaySection(r)}${layersSection(r)}
${churnSection(r)}
<section class="card"><h2>Viewers</h2><div class="wrap">${viewerTable(r)}</div></section>`,
    footer: `whipbench ${escapeHtml(r.whipbenchVersion)}, schema ${escapeHtml(r.schema)}.`,
    data,
    assets,
  });
}
