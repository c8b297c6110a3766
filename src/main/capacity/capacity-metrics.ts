// What a capacity search pushes beside each step's own registry (docs/definitions.md#pushgateway):
// which step runs and with how many viewers, and how many steps have ended, by outcome, so a
// dashboard follows the search while it lasts.
import { Counter, Gauge, Registry } from "prom-client";
import type { StepOutcome } from "../../core/capacity/types.ts";

const OUTCOMES: readonly StepOutcome["kind"][] = ["pass", "fail", "client", "no-verdict"];

export class CapacityMetrics {
  readonly registry = new Registry();
  private readonly step: Gauge;
  private readonly viewers: Gauge;
  private readonly ended: Counter<"outcome">;

  constructor() {
    const registers = [this.registry];
    this.step = new Gauge({
      name: "whipbench_capacity_step",
      help: "The capacity search's step now running or last run (1 is the first).",
      registers,
    });
    this.viewers = new Gauge({
      name: "whipbench_capacity_step_viewers",
      help: "The viewers of that step.",
      registers,
    });
    this.ended = new Counter({
      name: "whipbench_capacity_steps_total",
      help: "The search's steps that have ended, by outcome (pass, fail, client, no-verdict).",
      labelNames: ["outcome"],
      registers,
    });
    for (const o of OUTCOMES) this.ended.inc({ outcome: o }, 0);
  }

  /** Step `index` (from 1) starts with `viewers`. */
  stepStarted(index: number, viewers: number): void {
    this.step.set(index);
    this.viewers.set(viewers);
  }

  stepEnded(outcome: StepOutcome["kind"]): void {
    this.ended.inc({ outcome });
  }
}
