// The report's clock block (docs/definitions.md#clock-block), apart from the rest of the model in
// types.ts, which re-exports it.

/** docs/definitions.md#clock-block: how the two ends share a time base. */
export type ClockMethod = "monotonic" | "exchange" | "none" | "same-wall-clock" | "";

export interface ClockPoint {
  tS: number;
  offsetMs: number;
  rttMs: number;
}

/** docs/definitions.md#clock-block `clock`. */
export interface ClockBlock {
  method: ClockMethod;
  offsetMs?: number;
  uncertaintyMs?: number;
  points?: ClockPoint[];
  reason?: string;
  stepDetected: boolean;
}
