// The reference viewers' block (docs/definitions.md#reference-viewers): libwebrtc's own getStats
// figures pooled over a group's reference viewers, laid beside the render model's block for the
// same group, with the agreement line (docs/definitions.md#reference-agreement). Reference viewers
// are not load: nothing here enters another figure of the report.
import { addCounts } from "../figures.ts";
import { agreement, notJudged, per30s, type ReferenceAgreement } from "../reference/agreement.ts";
import { REFERENCE_FIGURE_KEYS, type ReferenceFigures, zeroReferenceFigures } from "../reference/figures.ts";
import { type ReferenceResult, referencePlan } from "../reference/plan.ts";
import type { Scenario } from "../scenario/types.ts";
import type { ReferenceBlock } from "./reference-types.ts";
import type { PooledRenderBlock } from "./render-types.ts";
import type { Aggregate } from "./types.ts";

const LINK_NOT_APPLIED =
  "the cohort's emulated link is whipbench's own, inside its viewers' sockets; libwebrtc owns its " +
  "sockets, so its reference viewers watched the server without that link";

/** The commonest of some reasons. */
function commonest(reasons: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const r of reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? "";
}

/**
 * The block of some reference viewers beside the model's block for the same viewers (`render`
 * undefined: the model has none). `linkNotApplied`: a cohort's link they were not behind;
 * `mixedLinks`: the whole run's block, some of whose reference viewers were in such a cohort.
 */
export function referenceBlock(
  results: readonly ReferenceResult[],
  render: PooledRenderBlock | undefined,
  opts: { linkNotApplied?: boolean; mixedLinks?: boolean } = {},
): ReferenceBlock {
  const measured = results.filter((r) => r.figures !== undefined);
  const reasons = results.flatMap((r) => (r.figures === undefined ? [r.reason ?? "no figures"] : []));
  const head = {
    available: measured.length > 0,
    ...(measured.length === 0
      ? { reason: commonest(reasons) }
      : reasons.length > 0
        ? {
            reason: `pooled over ${measured.length} of ${results.length} reference viewers; the other ${reasons.length}: ${commonest(reasons)}`,
          }
        : {}),
    viewers: results.length,
    measured: measured.length,
    ...(opts.linkNotApplied ? { linkApplied: false as const } : {}),
  };
  if (measured.length === 0) return { ...head, agreement: notJudged(head.reason ?? "no reference figures") };
  const sums = zeroReferenceFigures();
  let measuredMs = 0;
  for (const r of measured) {
    addCounts(sums, r.figures as ReferenceFigures, REFERENCE_FIGURE_KEYS);
    measuredMs += r.measuredMs ?? 0;
  }
  const measuredSeconds = measuredMs / 1000;
  return {
    ...head,
    ...sums,
    ...(sums.jitterBufferEmitted > 0
      ? { jitterBufferDelayMs: (sums.jitterBufferDelaySeconds / sums.jitterBufferEmitted) * 1000 }
      : {}),
    measuredSeconds,
    agreement: judge(sums, measuredSeconds, render, opts),
  };
}

function judge(
  sums: ReferenceFigures,
  measuredSeconds: number,
  render: PooledRenderBlock | undefined,
  opts: { linkNotApplied?: boolean; mixedLinks?: boolean },
): ReferenceAgreement {
  if (opts.linkNotApplied) return notJudged(LINK_NOT_APPLIED);
  if (opts.mixedLinks)
    return notJudged(
      "some reference viewers are in cohorts whose link they were not behind; see each cohort's line",
    );
  if (measuredSeconds <= 0) return notJudged("the reference viewers showed no frame");
  if (render === undefined || !render.available || render.measuredSeconds <= 0)
    return notJudged(`the model judged no viewer${render?.reason ? ` (${render.reason})` : ""}`);
  return agreement(
    per30s(render.freezes, render.frozenSeconds, render.measuredSeconds),
    per30s(sums.freezes, sums.frozenSeconds, measuredSeconds),
  );
}

/**
 * Sets `aggregate.reference` (every reference viewer) and each cohort entry's `reference` (its
 * group's, where the plan gave it any).
 */
export function addReferenceBlocks(
  aggregate: Aggregate,
  results: readonly ReferenceResult[],
  s: Scenario,
): void {
  const plan = referencePlan(s);
  aggregate.reference = referenceBlock(results, aggregate.render, {
    mixedLinks: plan.some((g) => g.linkNotApplied),
  });
  for (const c of aggregate.cohorts ?? []) {
    const group = c.impaired ? c.name : "";
    const planned = plan.find((g) => g.group === group);
    if (planned === undefined) continue;
    c.reference = referenceBlock(
      results.filter((r) => r.group === group),
      c.render,
      planned.linkNotApplied ? { linkNotApplied: true } : {},
    );
  }
}
