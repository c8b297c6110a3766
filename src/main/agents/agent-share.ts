// An agent's share of a run (docs/definitions.md#many-hosts): the scenario the coordinator sent,
// checked by the project's validator and stripped to its viewers (no publisher, no metrics, no
// thresholds); the coordinator's clock exchange and send log followed exactly as a split `view`
// follows a publisher's; then its viewers in this host's own worker pool, from the coordinator's
// t0 moved onto this host's monotonic clock, through the runner's own steps (its clocks, the
// viewers' phase, the report input). What the run leaves is a report input of its own.
import { monoNs } from "../../core/clock/clock.ts";
import { AgentError, ScenarioError } from "../../core/errors.ts";
import { layerSwitchProblem } from "../../core/layer/layer-switch.ts";
import type { ReportInput } from "../../core/report/input.ts";
import {
  decodeScenario,
  normaliseScenario,
  type Scenario,
  validateScenario,
} from "../../core/scenario-file/scenario.ts";
import type { ViewerRecord } from "../../core/types.ts";
import type { ShardProfile, ShardTick } from "../../workers/protocol.ts";
import type { Logger } from "../observe/log.ts";
import { iceFor } from "../process/ice-choice.ts";
import type { Engine } from "../run/engine.ts";
import {
  followedSendSide,
  type PhaseOptions,
  phaseInput,
  type RunClocks,
  runMeasuredPhase,
  startClocks,
  type ViewerPlan,
} from "../run/viewer-phase.ts";
import { SplitPeers } from "../split/split-peers.ts";
import { mergeTicks } from "./tick-merge.ts";

/**
 * The keys of a scenario an agent drops (matched as the scenario parser matches keys, without
 * case): it runs viewers only, and the WHEP bearer comes from the agent's own --bearer-env,
 * never from a variable the coordinator names.
 */
const NOT_FOR_AGENTS = new Set(["whip", "metrics", "thresholds", "workers", "bearerenv"]);

/** The coordinator's scenario as this agent runs it; throws ScenarioError naming a bad key. */
export function agentScenario(raw: unknown): Scenario {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    throw new AgentError("the scenario is not an object");
  const copy: Record<string, unknown> = {};
  let seed: unknown;
  for (const [k, v] of Object.entries(raw)) {
    const lower = k.toLowerCase();
    if (lower === "rampoffsetseed") seed = v;
    else if (!NOT_FOR_AGENTS.has(lower)) copy[k] = v;
  }
  const s = decodeScenario(JSON.stringify(copy));
  // the seed travels as a decimal string (JSON has no int64); the schedule itself comes from the coordinator
  if (typeof seed === "string" && /^-?\d{1,20}$/.test(seed)) s.rampOffsetSeed = BigInt(seed);
  // simulcast needs whip, which the coordinator kept: it publishes the layers, the agent's
  // viewers only receive them (their table's layers come with the send log) and may choose one
  // (docs/definitions.md#layer-switches): the layer keys are checked against simulcast here
  const { simulcast, layerSwitch, ...rest } = s;
  const cohorts = rest.cohorts;
  if (cohorts !== undefined) rest.cohorts = cohorts.map(({ layer: _l, layerSwitch: _s, ...c }) => c);
  const out = validateScenario(normaliseScenario(rest));
  if (!out.whep) throw new AgentError("the scenario has no whep");
  const problem = layerSwitchProblem(layerSwitch, simulcast, cohorts);
  if (problem !== null) throw new ScenarioError(problem);
  return {
    ...out,
    ...(simulcast !== undefined ? { simulcast } : {}),
    ...(layerSwitch !== undefined ? { layerSwitch } : {}),
    ...(cohorts !== undefined ? { cohorts } : {}),
  };
}

export interface StartMessage {
  t0WallNs: string;
  deadlineOffsetNs: number;
  /** `cohort`: the index in the scenario's cohorts the coordinator assigned (absent: unimpaired) */
  viewers: { id: number; startOffsetNs: number; cohort?: number }[];
}

/**
 * A start message whose viewer ids are distinct ids of the scenario's viewers (fewer than `max`)
 * and whose cohorts index the scenario's `cohorts` of them.
 */
export function startOk(m: Record<string, unknown>, max: number, cohorts: number): boolean {
  const v = m.viewers;
  if (!Array.isArray(v) || new Set(v.map((x: { id?: unknown }) => x?.id)).size !== v.length) return false;
  return (
    typeof m.t0WallNs === "string" &&
    /^\d{1,20}$/.test(m.t0WallNs) &&
    typeof m.deadlineOffsetNs === "number" &&
    m.deadlineOffsetNs >= 0 &&
    m.deadlineOffsetNs < 86_400e9 &&
    v.every(
      (x: { id?: unknown; startOffsetNs?: unknown; cohort?: unknown }) =>
        Number.isSafeInteger(x?.id) &&
        (x.id as number) >= 0 &&
        (x.id as number) < max &&
        typeof x.startOffsetNs === "number" &&
        x.startOffsetNs >= 0 &&
        x.startOffsetNs < 86_400e9 &&
        (x.cohort === undefined ||
          (Number.isSafeInteger(x.cohort) && (x.cohort as number) >= 0 && (x.cohort as number) < cohorts)),
    )
  );
}

export interface ShareOptions {
  scenario: Scenario;
  coordinatorHost: string;
  clockPort: number;
  sendLogPort: number;
  token: string | undefined;
  bearer: string | undefined;
  engine: Engine;
  log: Logger;
}

export interface ShareOutcome {
  input: ReportInput;
  /** the local t0 (monotonic ns): record instants go out relative to it */
  t0MonoNs: number;
  /** as the worker threads sent them (encoded histograms) */
  records: ViewerRecord[];
  profiles: ShardProfile[];
}

/** Prepared: clock point, send log, warm threads. Then `run` once, through the runner's steps. */
export class AgentShare {
  private readonly o: ShareOptions;
  private readonly clocks: RunClocks = startClocks();
  readonly split: SplitPeers;

  constructor(o: ShareOptions) {
    this.o = o;
    const host = o.coordinatorHost;
    this.split = new SplitPeers({
      clockPeer: { host, port: o.clockPort },
      sendLogPeer: { host, port: o.sendLogPort },
      bearer: o.token,
      anchor: this.clocks.anchor,
      log: o.log,
    });
  }

  /** the scenario's viewers (all hosts'): every viewer id is below it */
  get viewersAsked(): number {
    return this.o.scenario.viewers;
  }

  /** the scenario's cohorts: every viewer's cohort index is below it */
  get cohortsAsked(): number {
    return this.o.scenario.cohorts?.length ?? 0;
  }

  async prepare(): Promise<void> {
    await Promise.all([this.split.start(), this.o.engine.warmUp?.(Math.max(1, this.o.engine.workers))]);
    if (this.split.sendLog === null) throw new AgentError("the coordinator's send log did not arrive");
  }

  /** The share's viewers until their deadline or `stop`; ticks go out merged, one per second. */
  async run(start: StartMessage, stop: AbortSignal, onTick: (t: ShardTick) => void): Promise<ShareOutcome> {
    const s = this.o.scenario;
    const { ice, autoLoopback } = iceFor([s.whep], s, this.o.log);
    // the coordinator's t0 (its wall clock) on this host's monotonic clock, through the offset
    const publisherWallMinusMonoNs = new Float64Array(this.split.publisherWallMinusMono)[0] ?? 0;
    const plan: ViewerPlan = {
      schedule: {
        startNs: start.viewers.map((v) => v.startOffsetNs),
        rampOffsetNs: null,
        viewersPhaseNs: start.deadlineOffsetNs,
      },
      t0MonoNs: Number(start.t0WallNs) - publisherWallMinusMonoNs,
      ids: start.viewers.map((v) => v.id),
      // the coordinator assigned the cohorts over the whole run's viewers (docs/definitions.md#many-hosts)
      cohorts: start.viewers.map((v) => v.cohort ?? -1),
    };
    const opts: PhaseOptions = {
      scenario: s,
      bearer: this.o.bearer,
      engine: this.o.engine,
      log: this.o.log,
      interrupt: stop,
      onTick: (entry, ticks) => {
        const merged = mergeTicks(ticks);
        if (merged && (entry !== null || merged.final)) onTick(merged);
      },
    };
    const send = followedSendSide(this.split);
    const measured = await runMeasuredPhase(opts, this.clocks, ice, send, this.split, plan);
    await this.split.finish();
    const input = phaseInput({
      command: "view",
      interrupted: stop.aborted,
      scenario: { ...s, viewers: start.viewers.length },
      workers: this.o.engine.workers,
      clocks: this.clocks,
      send,
      split: this.split,
      publisher: null,
      // the coordinator holds the schedule: a share's start offsets are its viewers' own
      measured: { ...measured, schedule: null },
      autoLoopback,
      endMonoNs: monoNs(),
    });
    return { input, t0MonoNs: plan.t0MonoNs, records: measured.records, profiles: measured.profiles };
  }
}
