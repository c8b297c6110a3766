// The capacity search (docs/definitions.md#capacity-search): grow the viewers geometrically while
// every step passes, then bisect between the last passing and the first failing count down to
// the resolution. A step with no verdict ends the search, and so does a client-bound first step:
// neither is a verdict on the server. A client-bound step above a passing one caps the search
// instead: the bisection goes on below it, and the result is the server's knee when a failing
// step lies below the cap, else "client-bound" with the last passing count. Pure: the command
// runs the steps and hands each outcome back.

import type { CapacityResult, CapacitySpec, LimitedBy, StepOutcome } from "./types.ts";

export class CapacitySearch {
  private readonly spec: CapacitySpec;
  private lastPass: number | undefined;
  private firstFail: number | undefined;
  /** the failing step's failed thresholds at `firstFail` */
  private failedAtFirstFail: string[] = [];
  private stopped: { limitedBy: LimitedBy; at: number; evidence: string[] } | null = null;
  /** the fewest viewers a client-bound step had, above a passing step, and why */
  private clientAt: number | undefined;
  private clientEvidence: string[] = [];
  private done = false;
  steps = 0;

  constructor(spec: CapacitySpec) {
    this.spec = spec;
  }

  /** The viewers of the next step, or null when the search is over. */
  next(): number | null {
    if (this.done || this.stopped !== null) return null;
    const { start, max, growth, resolution } = this.spec;
    if (this.steps === 0) return start;
    const top = Math.min(
      this.firstFail ?? Number.POSITIVE_INFINITY,
      this.clientAt ?? Number.POSITIVE_INFINITY,
    );
    if (top === Number.POSITIVE_INFINITY) {
      const last = this.lastPass ?? start;
      if (last >= max) return this.finish();
      return Math.min(max, Math.max(last + 1, Math.ceil(last * growth)));
    }
    if (this.lastPass === undefined) return this.finish();
    if (top - this.lastPass <= resolution) return this.finish();
    return Math.floor((this.lastPass + top) / 2);
  }

  private finish(): null {
    this.done = true;
    return null;
  }

  record(viewers: number, outcome: StepOutcome): void {
    this.steps++;
    switch (outcome.kind) {
      case "pass":
        if (this.lastPass === undefined || viewers > this.lastPass) this.lastPass = viewers;
        return;
      case "fail":
        if (this.firstFail === undefined || viewers < this.firstFail) {
          this.firstFail = viewers;
          this.failedAtFirstFail = outcome.failed;
        }
        return;
      case "client":
        if (this.lastPass === undefined || viewers <= this.lastPass) {
          this.stopped = { limitedBy: "client", at: viewers, evidence: outcome.evidence };
        } else if (this.clientAt === undefined || viewers < this.clientAt) {
          this.clientAt = viewers;
          this.clientEvidence = outcome.evidence;
        }
        return;
      case "no-verdict":
        this.stopped = { limitedBy: "no-verdict", at: viewers, evidence: [outcome.reason] };
        return;
    }
  }

  /** Steps a linear sweep from `start` in steps of `resolution` would run to bracket the same knee. */
  private linearSteps(): number | undefined {
    const { start, resolution } = this.spec;
    const top = this.firstFail ?? this.lastPass;
    if (top === undefined) return undefined;
    return Math.max(1, Math.ceil((top - start) / resolution) + 1);
  }

  result(wallSeconds: number): CapacityResult {
    const base = {
      ...(this.lastPass !== undefined ? { maxViewers: this.lastPass } : {}),
      ...(this.firstFail !== undefined ? { firstFailingViewers: this.firstFail } : {}),
      steps: this.steps,
      wallSeconds,
    };
    const linear = this.linearSteps();
    const sweep = linear !== undefined ? { linearSweepSteps: linear } : {};
    if (this.stopped?.limitedBy === "client") {
      const at = this.stopped.at;
      return {
        ...base,
        limitedBy: "client",
        summary: `client-bound at ${at} viewers: add worker threads or hosts (no knee is reported: the client, not the server, was near its ceiling)`,
        clientBoundAt: at,
        clientEvidence: this.stopped.evidence,
      };
    }
    if (this.stopped !== null) {
      const reason = this.stopped.evidence[0] ?? "";
      return {
        ...base,
        limitedBy: "no-verdict",
        summary: `no verdict at ${this.stopped.at} viewers: ${reason}`,
        reason,
      };
    }
    const clientCap =
      this.clientAt !== undefined && (this.firstFail === undefined || this.clientAt < this.firstFail);
    if (clientCap && this.clientAt !== undefined) {
      return {
        ...base,
        limitedBy: "client",
        summary: `${this.lastPass} viewers hold the thresholds; at ${this.clientAt} the client was near its own ceiling: add worker threads or hosts (the server's knee, if any, is above ${this.lastPass})`,
        clientBoundAt: this.clientAt,
        clientEvidence: this.clientEvidence,
      };
    }
    if (this.firstFail !== undefined) {
      const figure = this.failedAtFirstFail[0] ?? "unknown";
      const summary =
        this.lastPass === undefined
          ? `even ${this.firstFail} viewers (capacity.start) fail the thresholds (${this.failedAtFirstFail.join(", ")})`
          : `${this.lastPass} viewers hold the thresholds; ${this.firstFail} fail ${this.failedAtFirstFail.join(", ")}`;
      return {
        ...base,
        ...sweep,
        limitedBy: `threshold:${figure}`,
        summary,
        failedThresholds: this.failedAtFirstFail,
      };
    }
    if (this.lastPass !== undefined && this.lastPass >= this.spec.max) {
      return {
        ...base,
        ...sweep,
        limitedBy: "max",
        summary: `${this.lastPass} viewers (capacity.max) hold the thresholds`,
      };
    }
    return {
      ...base,
      limitedBy: "no-verdict",
      summary: "the search ended before a verdict",
      reason: "interrupted",
    };
  }
}

/**
 * The exit code of a search (docs/definitions.md#capacity-exit-codes): 0 knee or max, 99 start
 * fails, 3 client or no verdict.
 */
export function capacityExitCode(r: CapacityResult): number {
  if (r.limitedBy === "client" || r.limitedBy === "no-verdict") return 3;
  if (r.maxViewers === undefined) return 99;
  return 0;
}
