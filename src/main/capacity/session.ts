// A capacity search's session (docs/definitions.md#capacity-search): the clocks, the ICE choice
// and the publisher start once and stream across every step; each step runs its own viewers
// (fresh ones, joining over the scenario's ramp) in the run's engine and hands back exactly what
// one `run` hands the report builder, with that step's viewers, timeline, threads and resources
// only. A step's report is therefore built, judged and ranked like any run's.

import type { CapacitySpec } from "../../core/capacity/types.ts";
import type { KeyframeRequests } from "../../core/clip/keyframe-requests.ts";
import { monoNs, wallNowUnixNs } from "../../core/clock/clock.ts";
import type { ReportInput } from "../../core/report/input.ts";
import type { Scenario } from "../../core/scenario/types.ts";
import type { IceOptions } from "../../net/rtc.ts";
import { ResourceWatch } from "../observe/resources.ts";
import { iceFor } from "../process/ice-choice.ts";
import { connectPublisher, type RunOptions } from "../run/runner.ts";
import {
  phaseInput,
  type RunClocks,
  runMeasuredPhase,
  type SendSide,
  startClocks,
} from "../run/viewer-phase.ts";

/** One step's run, with the instants the capacity report places it by (monotonic ns). */
export interface StepRun {
  input: ReportInput;
  startMonoNs: number;
  /** the viewers' t0 (0 when they never ran) */
  t0MonoNs: number;
  endMonoNs: number;
}

/** The scenario one step runs: `viewers` joining over the ramp, held for stepSeconds, settle left out. */
export function stepScenario(s: Scenario, spec: CapacitySpec, viewers: number, first: boolean): Scenario {
  const out: Scenario = {
    ...s,
    viewers,
    holdSeconds: spec.stepSeconds,
    excludeFirstSeconds: spec.settleSeconds,
  };
  // the publisher's warmup happens once, before the first step
  if (!first) delete out.warmupSeconds;
  delete out.metrics;
  return out;
}

export class CapacitySession {
  private readonly opts: RunOptions;
  private readonly clocks: RunClocks;
  private readonly ice: IceOptions;
  private readonly autoLoopback: boolean;
  private readonly send: SendSide;
  private readonly stopPublisher = new AbortController();
  private streaming: Promise<unknown> | null = null;

  private constructor(
    opts: RunOptions,
    clocks: RunClocks,
    ice: IceOptions,
    autoLoopback: boolean,
    send: SendSide,
  ) {
    this.opts = opts;
    this.clocks = clocks;
    this.ice = ice;
    this.autoLoopback = autoLoopback;
    this.send = send;
  }

  /** The clocks start and the publisher (when the scenario has `whip`) connects and starts streaming. */
  static async open(opts: RunOptions): Promise<CapacitySession> {
    const clocks = startClocks();
    const s = opts.scenario;
    const { ice, autoLoopback } = iceFor([s.whip, s.whep], s, opts.log);
    const send = await connectPublisher(opts, clocks.anchor, ice);
    const session = new CapacitySession(opts, clocks, ice, autoLoopback, send);
    if (send.publisher && !send.publisherFailed) {
      session.streaming = send.publisher.stream(session.stopPublisher.signal);
    }
    return session;
  }

  /** The publisher was asked for and did not connect: no step can run. */
  get publisherFailed(): boolean {
    return this.send.publisherFailed;
  }

  /**
   * Runs one step of `s` (a stepScenario) to its end, or until `stop` (the interrupt, or a live
   * threshold's stop), and returns its report input; only the interrupt marks it interrupted.
   * `hooks`, when given, replace the session's per-second hook (`onTick`) and shard-tick hook
   * (`onShardTick`: every tick as the engine delivers it, for a step's pushed metrics) for this step.
   */
  async step(
    s: Scenario,
    interrupt: AbortSignal,
    stop: AbortSignal = interrupt,
    hooks: Pick<RunOptions, "onTick" | "onShardTick"> = {},
  ): Promise<StepRun> {
    const startMonoNs = monoNs();
    const startedAtUnixNs = wallNowUnixNs(this.clocks.anchor);
    const clocks: RunClocks = { ...this.clocks, resources: new ResourceWatch(startMonoNs) };
    const opts: RunOptions = { ...this.opts, ...hooks, scenario: s, interrupt: stop };
    const before = requestCounts(this.send.publisher?.requests);
    const measured = await runMeasuredPhase(opts, clocks, this.ice, this.send, null);
    const endMonoNs = monoNs();
    const pub = this.send.publisher?.result;
    const during = requestCounts(this.send.publisher?.requests);
    const input = phaseInput({
      command: "run",
      interrupted: interrupt.aborted,
      scenario: s,
      workers: this.opts.engine.workers,
      ceiling: this.opts.ceiling,
      clocks,
      startedAtUnixNs,
      send: this.send,
      split: null,
      // the publisher's figures so far: it streams across the steps; its keyframe requests are
      // the step's own (docs/definitions.md#keyframes-on-request)
      publisher: pub
        ? {
            ...pub,
            pliReceived: during.pliReceived - before.pliReceived,
            firReceived: during.firReceived - before.firReceived,
            keyframesOnRequest: during.keyframesOnRequest - before.keyframesOnRequest,
          }
        : null,
      measured,
      autoLoopback: this.autoLoopback,
      endMonoNs,
    });
    return { input, startMonoNs, t0MonoNs: measured.t0MonoNs, endMonoNs };
  }

  /** Stops the publisher. */
  async close(): Promise<void> {
    this.stopPublisher.abort();
    if (this.streaming) await this.streaming.catch(() => {});
  }
}

/** The publisher's keyframe request counts at this instant (all 0 without a publisher). */
function requestCounts(k: KeyframeRequests | undefined): {
  pliReceived: number;
  firReceived: number;
  keyframesOnRequest: number;
} {
  return {
    pliReceived: k?.pliReceived ?? 0,
    firReceived: k?.firReceived ?? 0,
    keyframesOnRequest: k?.keyframesOnRequest ?? 0,
  };
}
