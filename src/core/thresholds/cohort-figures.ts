// docs/definitions.md#thresholds-on-a-cohort: a threshold key `cohort:<name> <figure>` judges one
// figure on one entry of the report's `aggregate.cohorts[]` instead of the whole run. Only the
// figures a cohort entry carries can be named; they are known only at the end of a run.

import type { CohortReport, Report } from "../report/types.ts";
import type { FigureValue } from "../scenario/threshold-types.ts";
import { FIGURES, type Figure } from "./figures.ts";
import { isLayerDelayFigure } from "./layer-figures.ts";
import { isRenderFigure } from "./render-figures.ts";

const KEY_RE = /^cohort:([A-Za-z0-9_.-]{1,64})\s+(\S+)$/;

/** A threshold key split into its cohort and its figure; null for a key that names no cohort. */
export function splitCohortKey(key: string): { cohort: string; figure: string } | null {
  const m = KEY_RE.exec(key.trim());
  return m === null ? null : { cohort: m[1] ?? "", figure: m[2] ?? "" };
}

/** Whether a key starts like a cohort key (so a malformed one is not taken for a figure name). */
export function looksLikeCohortKey(key: string): boolean {
  return key.trimStart().startsWith("cohort:");
}

/**
 * The figures a cohort entry can be judged on: its delay blocks, join, loss after repair, NACKs,
 * stalls, what its viewers would have seen, and its delay per simulcast layer.
 */
export function isCohortFigure(figure: string): boolean {
  if (!FIGURES.has(figure)) return false;
  return (
    figure.startsWith("oneWayDelay.") ||
    (figure.startsWith("join.") && !figure.startsWith("join.firstRtp.")) ||
    figure === "loss" ||
    figure === "nacks" ||
    figure === "stalls" ||
    isRenderFigure(figure) ||
    isLayerDelayFigure(figure)
  );
}

/** The run's report seen through one cohort: its aggregate's figures replaced by the cohort's. */
function throughCohort(r: Report, c: CohortReport): Report {
  // the run's render block never stands in for a cohort's (an older report's cohort has none)
  // nor does the run's reason for a loss it could not measure
  const { render: _run, layerDelay: _layers, lossPercentTotalReason: _why, ...aggregate } = r.aggregate;
  return {
    ...r,
    aggregate: {
      ...aggregate,
      oneWayDelay: c.oneWayDelay,
      joinFirstKeyframeMs: c.joinFirstKeyframeMs,
      packetsReceived: c.packetsReceived,
      packetsLost: c.packetsLost,
      lossPercentTotal: c.lossPercentTotal,
      ...(c.lossPercentTotalReason !== undefined ? { lossPercentTotalReason: c.lossPercentTotalReason } : {}),
      nacksSent: c.nacksSent,
      stalls: c.stalls,
      ...(c.render !== undefined ? { render: c.render } : {}),
      ...(c.layerDelay !== undefined ? { layerDelay: c.layerDelay } : {}),
    },
  };
}

/** A cohort figure's value in a report; unavailable when the report has no entry for the cohort. */
export function readCohortFigure(r: Report, cohort: string, figure: string): FigureValue {
  const f = FIGURES.get(figure);
  if (f === undefined || !isCohortFigure(figure)) return { unavailable: `${figure} is not a cohort figure` };
  const c = (r.aggregate.cohorts ?? []).find((x) => x.name === cohort);
  if (c === undefined) return { unavailable: `the report has no cohort ${cohort}` };
  return f.read(throughCohort(r, c));
}

/** The figure a threshold key names, whole-run or per cohort (its `read` then reads that cohort). */
export function figureOfKey(key: string): Figure | undefined {
  const split = splitCohortKey(key);
  if (split === null) return FIGURES.get(key);
  const f = FIGURES.get(split.figure);
  if (f === undefined || !isCohortFigure(split.figure)) return undefined;
  return {
    unit: f.unit,
    about: `${f.about}, cohort ${split.cohort}`,
    read: (r) => readCohortFigure(r, split.cohort, split.figure),
  };
}
