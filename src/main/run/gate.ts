// The run's pass/fail gate, wired around a run and a capacity search's step: the live judge of the
// abortOnFail thresholds (it stops the run through its own abort signal, not as an interrupt), the
// final judgement on the report; the CI files it names (--junit, --summary-md) are outputs
// (../output/outputs.ts).

import { stopText } from "../../core/report/threshold-render.ts";
import type { Report, TimelineEntry } from "../../core/report/types.ts";
import type { ThresholdStop } from "../../core/scenario/threshold-types.ts";
import type { Scenario } from "../../core/scenario/types.ts";
import { applyThresholds, evaluateThresholds, thresholdsFailed } from "../../core/thresholds/evaluate.ts";
import { LIVE_THRESHOLD_METHOD, LiveThresholds } from "../../core/thresholds/live.ts";
import type { ShardTick } from "../../workers/protocol.ts";
import type { Logger } from "../observe/log.ts";

export interface GateFiles {
  junit?: string | undefined;
  summaryMd?: string | undefined;
}

export class Gate {
  private readonly s: Scenario;
  private readonly log: Logger;
  private readonly live: LiveThresholds | null;
  private readonly ctl = new AbortController();
  /** the live evaluation's stop, when one threshold stopped the run */
  stop: ThresholdStop | null = null;

  private readonly what: string;

  /** `what` names what a live stop ends in its log line: a run, or a capacity search's step. */
  constructor(s: Scenario, log: Logger, what: "run" | "step" = "run") {
    this.s = s;
    this.log = log;
    this.what = what;
    this.live = LiveThresholds.wanted(s.thresholds)
      ? new LiveThresholds(s.thresholds ?? [], s.viewers)
      : null;
  }

  /** The signal the run stops on: the user's interrupt or a live threshold failure. */
  signal(interrupt: AbortSignal): AbortSignal {
    return this.live === null ? interrupt : AbortSignal.any([interrupt, this.ctl.signal]);
  }

  /** The live judge's share of the per-second hook: it records the ticks and judges each complete second. */
  tick(entry: TimelineEntry | null, ticks: ShardTick[]): void {
    const live = this.live;
    if (live === null) return;
    live.record(ticks);
    if (entry === null || this.stop !== null) return;
    const stop = live.judge(entry.t);
    if (stop === null) return;
    this.stop = stop;
    const t = this.s.thresholds?.[stop.index];
    this.log.line(
      `threshold ${t?.figure ?? "?"} ${t?.condition.text ?? ""} failed live at ${entry.t} s: stopping the ${this.what} (the report is still written)`,
    );
    this.ctl.abort();
  }

  /** The report judged against the scenario's thresholds (unchanged without any). */
  judge(r: Report): Report {
    const list = this.s.thresholds;
    if (list === undefined || list.length === 0) return r;
    const judged = applyThresholds(r, evaluateThresholds(r, list, this.stop));
    if (this.live !== null) judged.method = [...judged.method, LIVE_THRESHOLD_METHOD];
    const stopped = judged.thresholds?.map(stopText).find((x) => x !== null);
    if (stopped !== undefined) this.log.line(stopped);
    return judged;
  }
}

export { thresholdsFailed };
