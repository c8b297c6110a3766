// Whether the render model and libwebrtc's reference viewers agree on one group
// (docs/definitions.md#reference-agreement), with the calibration's tolerance: freezes within ±1
// per 30 s, frozen seconds within ±15 % of libwebrtc's (at least ±0.25 s) per 30 s.
import { fmtFixed } from "../go-compat/fmt.ts";

/** Tolerances of the calibration (test/e2e/libwebrtc-calibration.test.ts, bench/calibration.ts). */
export const AGREEMENT = { freezesPer30s: 1, frozenShare: 0.15, frozenFloorSeconds: 0.25 } as const;

export interface RatePer30s {
  freezesPer30s: number;
  frozenSecondsPer30s: number;
}

export interface ReferenceAgreement {
  /** false when model and reference cannot be compared on this group (the line says why) */
  judged: boolean;
  /** within the tolerance; only when judged */
  agrees?: boolean;
  model?: RatePer30s;
  reference?: RatePer30s;
  line: string;
}

/** Freezes and frozen seconds per 30 s of viewing. */
export function per30s(freezes: number, frozenSeconds: number, measuredSeconds: number): RatePer30s {
  return {
    freezesPer30s: (freezes * 30) / measuredSeconds,
    frozenSecondsPer30s: (frozenSeconds * 30) / measuredSeconds,
  };
}

export function notJudged(reason: string): ReferenceAgreement {
  return { judged: false, line: `not judged: ${reason}` };
}

/** The agreement of two rates, with the line that states it. */
export function agreement(model: RatePer30s, reference: RatePer30s): ReferenceAgreement {
  const freezesOff = Math.abs(model.freezesPer30s - reference.freezesPer30s);
  const frozenTolerance = Math.max(
    AGREEMENT.frozenShare * reference.frozenSecondsPer30s,
    AGREEMENT.frozenFloorSeconds,
  );
  const frozenOff = Math.abs(model.frozenSecondsPer30s - reference.frozenSecondsPer30s);
  const agrees = freezesOff <= AGREEMENT.freezesPer30s && frozenOff <= frozenTolerance;
  const line =
    `${agrees ? "agree within" : "differ beyond"} the calibration's tolerance: per 30 s, freezes ` +
    `${fmtFixed(model.freezesPer30s, 1)} (model) vs ${fmtFixed(reference.freezesPer30s, 1)} (libwebrtc), ` +
    `±${AGREEMENT.freezesPer30s} allowed; frozen ${fmtFixed(model.frozenSecondsPer30s, 2)} s vs ` +
    `${fmtFixed(reference.frozenSecondsPer30s, 2)} s, ±${fmtFixed(frozenTolerance, 2)} s allowed`;
  return { judged: true, agrees, model, reference, line };
}
