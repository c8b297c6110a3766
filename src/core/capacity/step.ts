// One capacity step judged from its own report (docs/definitions.md#capacity-search): the client
// near its ceiling first (never a server verdict), then the no-verdict rule, then the thresholds.

import type { Report } from "../report/types.ts";
import { buildSchedule, secondsToNs } from "../scenario/schedule.ts";
import type { Scenario } from "../scenario/types.ts";
import { receiveLag } from "../thresholds/figures.ts";
import type { StepFigures, StepOutcome } from "./types.ts";

export function judgeStep(r: Report, interrupted: boolean): StepOutcome {
  if (interrupted) return { kind: "no-verdict", reason: "interrupted" };
  const ceiling = r.client.ceiling;
  if (ceiling?.nearCeiling === true) return { kind: "client", evidence: ceiling.evidence ?? [] };
  if (!r.aggregate.valid) return { kind: "no-verdict", reason: r.aggregate.verdict };
  const failed = (r.thresholds ?? []).filter((t) => !t.pass).map((t) => t.figure);
  return failed.length === 0 ? { kind: "pass" } : { kind: "fail", failed };
}

/** The step's headline figures from its report; a figure the report has no value for is left out. */
export function stepFigures(r: Report): StepFigures {
  const a = r.aggregate;
  const out: StepFigures = { joined: a.joined, failed: a.failed };
  const fp = a.oneWayDelay.find((b) => b.source === "fingerprint");
  if (fp?.available === true && fp.ms !== undefined && fp.ms.n > 0) {
    out.oneWayDelayP50Ms = fp.ms.p50;
    out.oneWayDelayP99Ms = fp.ms.p99;
  }
  if (a.lossPercentTotal !== null && a.packetsReceived + a.packetsLost > 0)
    out.lossPercent = a.lossPercentTotal;
  if (a.joinFirstKeyframeMs.n > 0) out.joinP95Ms = a.joinFirstKeyframeMs.p95;
  if (a.jitterMs.n > 0) out.jitterP95Ms = a.jitterMs.p95;
  const render = a.render;
  if (render?.available === true && render.frozenPercent.n > 0)
    out.frozenP95Percent = render.frozenPercent.p95;
  if (render?.freezesPerViewerMinute !== undefined)
    out.freezesPerViewerMinute = render.freezesPerViewerMinute;
  const lag = receiveLag(r, "p99");
  if ("value" in lag) out.receiveLagP99Ms = lag.value;
  if (r.client.stampSource !== undefined) out.stampSource = r.client.stampSource;
  return out;
}

/**
 * Where a step's measured window starts (monotonic ns): the ramp's end, or the last viewer's
 * scheduled start when rampOffsetSeed puts it later, plus the settle; never after the step's end.
 * `t0MonoNs` 0: the viewers never ran, the window starts with the step.
 */
export function measuredFromNs(
  s: Scenario,
  settleSeconds: number,
  run: { startMonoNs: number; t0MonoNs: number; endMonoNs: number },
): number {
  if (run.t0MonoNs <= 0) return Math.min(run.endMonoNs, run.startMonoNs + secondsToNs(settleSeconds));
  let lastStartNs = secondsToNs(s.rampSeconds);
  // the first viewers only: with churn the late joiners start during the hold
  for (const start of buildSchedule(s).startNs.slice(0, s.viewers))
    if (start > lastStartNs) lastStartNs = start;
  return Math.min(run.endMonoNs, run.t0MonoNs + lastStartNs + secondsToNs(settleSeconds));
}
