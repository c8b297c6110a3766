// The reference viewers' block of the report (docs/definitions.md#reference-viewers), keys in
// serialisation order; built by reference.ts.
import type { ReferenceAgreement } from "../reference/agreement.ts";
import type { ReferenceFigures } from "../reference/figures.ts";

/**
 * `aggregate.reference` and `aggregate.cohorts[].reference`: after `measured` the figures of
 * core/reference/figures.ts in its order (only when available), then the derived ones.
 */
export type ReferenceBlock = {
  available: boolean;
  reason?: string;
  /** reference viewers asked for */
  viewers: number;
  /** those that gave figures */
  measured: number;
  /** false on a cohort whose emulated link they could not be put behind */
  linkApplied?: false;
} & Partial<ReferenceFigures> & {
    /** jitterBufferDelaySeconds / jitterBufferEmitted, ms; only when a frame was emitted */
    jitterBufferDelayMs?: number;
    /** their first frame → their stop, summed; only when available */
    measuredSeconds?: number;
    agreement: ReferenceAgreement;
  };
