// Which reference viewers a run carries (docs/definitions.md#reference-viewers): per cohort its
// own `referenceViewers` or the scenario's, and the scenario's for the unimpaired viewers (when
// the run has any); what a finished reference viewer hands the report.
import { cohortSizes } from "../link/assign.ts";
import type { Cohort, DirectionProfile } from "../link/types.ts";
import type { Scenario } from "../scenario/types.ts";
import type { ReferenceFigures } from "./figures.ts";

/** The reference viewers of one group of the load: a cohort ("" for the unimpaired viewers). */
export interface ReferenceGroup {
  group: string;
  viewers: number;
  /** the cohort emulates a link that libwebrtc's viewers cannot be put behind */
  linkNotApplied: boolean;
}

/** One reference viewer's outcome: its figures, or why it has none. */
export interface ReferenceResult {
  group: string;
  figures?: ReferenceFigures;
  /** its first frame → its stop, ms (the time its figures cover); with figures only */
  measuredMs?: number;
  reason?: string;
}

function hasLink(p: DirectionProfile): boolean {
  return Object.keys(p).length > 0;
}

/** A cohort's link changes what a viewer receives or sends (a profile or a step). */
export function emulatesLink(c: Cohort): boolean {
  return hasLink(c.down) || hasLink(c.up) || c.steps.length > 0;
}

/** The groups with at least one reference viewer, cohorts in scenario order, then the unimpaired. */
export function referencePlan(s: Scenario): ReferenceGroup[] {
  const all = s.referenceViewers ?? 0;
  const cohorts = s.cohorts ?? [];
  if (cohorts.length === 0) return all > 0 ? [{ group: "", viewers: all, linkNotApplied: false }] : [];
  const sizes = cohortSizes(cohorts, s.viewers);
  const out: ReferenceGroup[] = [];
  for (const [i, c] of cohorts.entries()) {
    const k = c.referenceViewers ?? all;
    if (k > 0 && (sizes[i] ?? 0) > 0)
      out.push({ group: c.name, viewers: k, linkNotApplied: emulatesLink(c) });
  }
  const rest = s.viewers - sizes.reduce((a, b) => a + b, 0);
  if (all > 0 && rest > 0) out.push({ group: "", viewers: all, linkNotApplied: false });
  return out;
}

/** Why no reference viewer can watch this run's stream, from the scenario alone; null when one can. */
export function referenceScenarioProblem(s: Scenario): string | null {
  if (s.codec === "h264")
    return "libwebrtc for Node (@roamhq/wrtc, M106) offers no H.264, so it cannot watch an H.264 stream";
  return null;
}
