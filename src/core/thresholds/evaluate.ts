// Judging thresholds on a finished report: each on the pooled, exactly merged figure the report
// carries; a figure that is unavailable fails with its reason. The report gains `thresholds[]`
// (after `aggregate`) and, for a valid run, a verdict that counts the failures.

import { stopText } from "../report/threshold-render.ts";
import type { Report } from "../report/types.ts";
import type { Operator, Threshold, ThresholdResult, ThresholdStop } from "../scenario/threshold-types.ts";
import { figureOfKey } from "./cohort-figures.ts";

/** Exit code of a valid run with a failed threshold (k6's convention). */
export const EXIT_THRESHOLD_FAILED = 99;

export function holds(observed: number, op: Operator, wanted: number): boolean {
  switch (op) {
    case "<":
      return observed < wanted;
    case "<=":
      return observed <= wanted;
    case ">":
      return observed > wanted;
    case ">=":
      return observed >= wanted;
    case "==":
      return observed === wanted;
    case "!=":
      return observed !== wanted;
  }
}

export function evaluateThreshold(r: Report, t: Threshold): ThresholdResult {
  const f = figureOfKey(t.figure);
  const unit = f?.unit ?? "";
  const v = f === undefined ? { unavailable: `unknown figure ${t.figure}` } : f.read(r);
  const base = { figure: t.figure, condition: t.condition.text, unit };
  const abort = t.abortOnFail ? { abortOnFail: true } : {};
  if ("unavailable" in v) return { ...base, unavailable: v.unavailable, pass: false, ...abort };
  return { ...base, observed: v.value, pass: holds(v.value, t.condition.op, t.condition.value), ...abort };
}

/** Every threshold judged; the one that stopped the run (if any) fails whatever its final value. */
export function evaluateThresholds(
  r: Report,
  list: readonly Threshold[],
  stop: ThresholdStop | null,
): ThresholdResult[] {
  return list.map((t, i) => {
    const res = evaluateThreshold(r, t);
    if (stop === null || stop.index !== i) return res;
    return { ...res, pass: false, stoppedRun: { atS: stop.atS, liveObserved: stop.observed } };
  });
}

/** "valid, 2 of 5 thresholds failed" (or "valid, 5 of 5 thresholds passed"). */
export function thresholdsHeadline(results: readonly ThresholdResult[]): string {
  const failed = results.filter((x) => !x.pass).length;
  return failed === 0
    ? `valid, ${results.length} of ${results.length} thresholds passed`
    : `valid, ${failed} of ${results.length} thresholds failed`;
}

/**
 * The report with `thresholds[]` inserted after `aggregate` and, for a valid run, the verdict
 * "valid, k of n thresholds failed[; stopped at …]: j of m viewers joined". A run with no verdict
 * keeps its verdict (its exit code stays 3).
 */
export function applyThresholds(r: Report, results: ThresholdResult[]): Report {
  const a = r.aggregate;
  let verdict = a.verdict;
  if (a.valid) {
    const stop = results.map(stopText).find((s) => s !== null);
    const rest = verdict.replace(/^valid: /, "");
    verdict = `${thresholdsHeadline(results)}${stop !== undefined ? `; ${stop}` : ""}: ${rest}`;
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(r)) {
    out[k] = k === "aggregate" ? { ...a, verdict } : v;
    if (k === "aggregate") out.thresholds = results;
  }
  return out as unknown as Report;
}

/** True when a valid report has a threshold that failed (exit 99). */
export function thresholdsFailed(r: Report): boolean {
  return r.aggregate.valid && (r.thresholds ?? []).some((x) => !x.pass);
}
