// Thresholds: a scenario's pass/fail conditions on report figures, k6-style: the types the scenario's
// `thresholds` key parses to (scenario/types.ts holds them) and the results judged on a report
// (report/types.ts carries them); thresholds/ parses, reads and judges.

/** A figure's value, or why it has none (never a 0 standing in for "not measured"). */
export type FigureValue = { value: number } | { unavailable: string };

/** The statistics a figure over a summary may name. */
export const STATS = ["min", "mean", "p50", "p95", "p99", "max"] as const;
export type Stat = (typeof STATS)[number];

/** The unit a figure is read in: milliseconds, seconds, percent, or a plain count. */
export type FigureUnit = "ms" | "s" | "%" | "";

export type Operator = "<" | "<=" | ">" | ">=" | "==" | "!=";

/** One parsed condition: `value` is already in the figure's own unit. */
export interface Condition {
  op: Operator;
  value: number;
  /** the condition as written, trimmed ("< 40ms") */
  text: string;
}

export interface Threshold {
  /** the scenario key, e.g. "oneWayDelay.p95" */
  figure: string;
  condition: Condition;
  abortOnFail: boolean;
  /** live evaluation starts this long after the viewers' start (abortOnFail only), s */
  delayAbortEvalS: number;
}

/** What stopped a run early: the threshold, when, and the live value it saw. */
export interface ThresholdStop {
  /** index into the scenario's threshold list */
  index: number;
  /** seconds since the viewers' start (the timeline's t) */
  atS: number;
  observed: number;
}

/** One entry of the report's `thresholds[]`, keys in serialisation order. */
export interface ThresholdResult {
  figure: string;
  condition: string;
  unit: string;
  observed?: number;
  unavailable?: string;
  pass: boolean;
  abortOnFail?: boolean;
  /** present on the threshold whose live evaluation stopped the run */
  stoppedRun?: { atS: number; liveObserved: number };
}
