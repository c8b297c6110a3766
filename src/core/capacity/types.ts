// Capacity (docs/definitions.md#capacity): the most viewers a server holds within the scenario's
// thresholds, found by a search over viewer counts. The types the search, the report and the
// command share.

import type { CeilingReport } from "../report/client-types.ts";
import type { CapacitySpec } from "../scenario/capacity-spec.ts";
import type { ThresholdResult } from "../scenario/threshold-types.ts";

export { CAPACITY_DEFAULTS, type CapacitySpec } from "../scenario/capacity-spec.ts";

/**
 * How a step went: all thresholds held, one or more failed, the client was near its ceiling, or no
 * verdict.
 */
export type StepOutcome =
  | { kind: "pass" }
  | { kind: "fail"; failed: string[] }
  | { kind: "client"; evidence: string[] }
  | { kind: "no-verdict"; reason: string };

/** What limited the search: a threshold's figure, the client, `max`, or nothing decidable. */
export type LimitedBy = `threshold:${string}` | "client" | "max" | "no-verdict";

export interface CapacityResult {
  /** the most viewers a step passed with (absent: no step passed) */
  maxViewers?: number;
  /** the fewest viewers a step failed with (absent: none failed) */
  firstFailingViewers?: number;
  limitedBy: LimitedBy;
  /** one sentence for people */
  summary: string;
  /** the failing step's thresholds that failed (limitedBy threshold) */
  failedThresholds?: string[];
  /** the step at which the client was near its ceiling (limitedBy client), and why */
  clientBoundAt?: number;
  clientEvidence?: string[];
  /** limitedBy no-verdict: why */
  reason?: string;
  steps: number;
  wallSeconds: number;
  /** steps a linear sweep from `start` in steps of `resolution` would have run to reach the same bracket */
  linearSweepSteps?: number;
}

/** A figure summarised over a window: a value, or why there is none. */
export type Measured<T> = T | { unavailable: string };

/** The server's resources over a step's window (`--server-pid`, `--server-metrics`). */
export interface StepServer {
  cpuCores?: Measured<{ mean: number; max: number }>;
  rssMiB?: Measured<{ max: number; last: number }>;
  series?: Record<
    string,
    Measured<{ kind: "counter"; ratePerS: number } | { kind: "gauge"; mean: number; last: number }>
  >;
}

/** One step's headline figures, read from its own report (absent: unavailable in that report). */
export interface StepFigures {
  joined: number;
  failed: number;
  oneWayDelayP50Ms?: number;
  oneWayDelayP99Ms?: number;
  lossPercent?: number;
  joinP95Ms?: number;
  jitterP95Ms?: number;
  receiveLagP99Ms?: number;
  /**
   * what its viewers would have seen (docs/definitions.md#viewer-experience-pooled): the frozen
   * share p95 and the freezes a viewer-minute
   */
  frozenP95Percent?: number;
  freezesPerViewerMinute?: number;
  /** the step's client.stampSource (docs/definitions.md#arrival-stamps) */
  stampSource?: string;
}

export interface CapacityStep {
  index: number;
  viewers: number;
  /** seconds since the search started: the step's viewers' start, and the window's start and end */
  window: { startS: number; measuredFromS: number; endS: number };
  outcome: StepOutcome["kind"];
  verdict: string;
  thresholds: ThresholdResult[];
  ceiling?: CeilingReport;
  figures: StepFigures;
  server?: StepServer;
  /** the step's own report (JSON), relative to the capacity report's directory */
  report?: string;
}

export interface CapacityReport {
  schema: "whipbench.capacity/v0";
  whipbenchVersion: string;
  startedAt: string;
  finishedAt: string;
  interrupted?: boolean;
  scenario: { name?: string; codec?: string; rampSeconds: number; workers: number };
  capacity: CapacitySpec;
  /** the thresholds that define passing, as written */
  thresholds: { figure: string; condition: string; value: number; unit: string }[];
  /** what was watched on the server side, the endpoint's host only */
  serverWatch?: { pid?: number; metricsHost?: string; series?: string[] };
  result: CapacityResult;
  steps: CapacityStep[];
  method: string[];
}
