// An agent's share of a run (docs/definitions.md#many-hosts): the scenario the coordinator sent,
// checked by the project's validator and stripped to its viewers (no publisher, no metrics, no
// thresholds); the coordinator's clock exchange and send log followed exactly as a split `view`
// follows a publisher's; then its viewers in this host's own worker pool, from the coordinator's
// t0 moved onto this host's monotonic clock. What the run leaves is a report input of its own.
import { cpus } from "node:os";
import {
  edgeWallReading,
  monoNs,
  takeWallAnchor,
  type WallAnchor,
  wallNowUnixNs,
} from "../../core/clock/clock.ts";
import { StepWatch } from "../../core/clock/stepwatch.ts";
import type { ReportInput } from "../../core/report/input.ts";
import {
  normaliseScenario,
  parseScenario,
  type Scenario,
  validateScenario,
} from "../../core/scenario/scenario.ts";
import type { Schedule } from "../../core/scenario/schedule.ts";
import type { ViewerRecord } from "../../core/types.ts";
import { ThreadProfile } from "../../net/thread-profile.ts";
import type { ShardProfile, ShardTick } from "../../workers/protocol.ts";
import type { Logger } from "../observe/log.ts";
import { ResourceWatch } from "../observe/resources.ts";
import { udpErrorsDelta, udpReceiveErrors } from "../observe/udp-drops.ts";
import type { Engine } from "../run/engine.ts";
import { iceFor } from "../run/ice-choice.ts";
import { reportInput } from "../run/report-input.ts";
import { shardTasks } from "../run/shard-tasks.ts";
import { Timeline } from "../run/timeline.ts";
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
    throw new Error("the scenario is not an object");
  const copy: Record<string, unknown> = {};
  let seed: unknown;
  for (const [k, v] of Object.entries(raw)) {
    const lower = k.toLowerCase();
    if (lower === "rampoffsetseed") seed = v;
    else if (!NOT_FOR_AGENTS.has(lower)) copy[k] = v;
  }
  const s = parseScenario(JSON.stringify(copy));
  // the seed travels as a decimal string (JSON has no int64); the schedule itself comes from the coordinator
  if (typeof seed === "string" && /^-?\d{1,20}$/.test(seed)) s.rampOffsetSeed = BigInt(seed);
  const out = validateScenario(normaliseScenario(s));
  if (!out.whep) throw new Error("the scenario has no whep");
  return out;
}

export interface StartMessage {
  t0WallNs: string;
  deadlineOffsetNs: number;
  viewers: { id: number; startOffsetNs: number }[];
}

/** A start message whose viewer ids are distinct ids of the scenario's viewers (fewer than `max`). */
export function startOk(m: Record<string, unknown>, max: number): boolean {
  const v = m.viewers;
  if (!Array.isArray(v) || new Set(v.map((x: { id?: unknown }) => x?.id)).size !== v.length) return false;
  return (
    typeof m.t0WallNs === "string" &&
    /^\d{1,20}$/.test(m.t0WallNs) &&
    typeof m.deadlineOffsetNs === "number" &&
    m.deadlineOffsetNs >= 0 &&
    m.deadlineOffsetNs < 86_400e9 &&
    Array.isArray(v) &&
    v.every(
      (x: { id?: unknown; startOffsetNs?: unknown }) =>
        Number.isSafeInteger(x?.id) &&
        (x.id as number) >= 0 &&
        (x.id as number) < max &&
        typeof x.startOffsetNs === "number" &&
        x.startOffsetNs >= 0 &&
        x.startOffsetNs < 86_400e9,
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

/** Prepared: clock point, send log, warm threads. Then `run` once. */
export class AgentShare {
  private readonly o: ShareOptions;
  private readonly anchor: WallAnchor = takeWallAnchor();
  private readonly startedAtUnixNs: bigint;
  private readonly startMono = monoNs();
  private readonly steps = new StepWatch();
  private readonly resources: ResourceWatch;
  readonly split: SplitPeers;

  constructor(o: ShareOptions) {
    this.o = o;
    this.startedAtUnixNs = wallNowUnixNs(this.anchor);
    this.resources = new ResourceWatch(this.startMono);
    this.observeStep();
    const host = o.coordinatorHost;
    this.split = new SplitPeers({
      clockPeer: { host, port: o.clockPort },
      sendLogPeer: { host, port: o.sendLogPort },
      bearer: o.token,
      anchor: this.anchor,
      log: o.log,
    });
  }

  private observeStep(): void {
    const r = edgeWallReading();
    this.steps.observe(r.wallNs, r.monoNs);
  }

  /** the scenario's viewers (all hosts'): every viewer id is below it */
  get viewersAsked(): number {
    return this.o.scenario.viewers;
  }

  async prepare(): Promise<void> {
    await Promise.all([this.split.start(), this.o.engine.warmUp?.(Math.max(1, this.o.engine.workers))]);
    if (this.split.sendLog === null) throw new Error("the coordinator's send log did not arrive");
  }

  /** The share's viewers until their deadline or `stop`; ticks go out merged, one per second. */
  async run(start: StartMessage, stop: AbortSignal, onTick: (t: ShardTick) => void): Promise<ShareOutcome> {
    const s = this.o.scenario;
    const { ice, autoLoopback } = iceFor([s.whep], s, this.o.log);
    // the coordinator's t0 (its wall clock) on this host's monotonic clock, through the offset
    const stampClockNs = new Float64Array(this.split.stampClock)[0] ?? 0;
    const t0MonoNs = Number(start.t0WallNs) - stampClockNs;
    const schedule: Schedule = {
      startNs: start.viewers.map((v) => v.startOffsetNs),
      rampOffsetNs: null,
      viewersPhaseNs: start.deadlineOffsetNs,
    };
    const tasks = shardTasks({
      workers: this.o.engine.workers,
      scenario: s,
      schedule,
      bearer: this.o.bearer,
      t0MonoNs,
      anchor: this.anchor,
      ice,
      sendLog: this.split.sendLog,
      identity: this.split.identity,
      stampClock: this.split.stampClock,
    });
    // shardTasks numbers viewers by their place in this share: back to the run's ids
    for (const t of tasks) for (const v of t.viewers) v.id = start.viewers[v.id]?.id ?? v.id;
    const timeline = new Timeline({
      shards: tasks.length,
      resources: this.resources,
      cpuCount: cpus().length || 1,
      onSecond: () => this.observeStep(),
      onTick: (entry, ticks) => {
        const merged = mergeTicks(ticks);
        if (merged && (entry !== null || merged.final)) onTick(merged);
      },
    });
    const main = new ThreadProfile();
    const udpStart = udpReceiveErrors();
    const result = await this.o.engine.run(tasks, stop, (t) => timeline.tick(t));
    const mainThread = main.finish();
    const udp = udpErrorsDelta(udpStart, udpReceiveErrors());
    await this.split.finish();
    this.observeStep();
    const input = reportInput({
      command: "view",
      interrupted: stop.aborted,
      scenario: { ...s, viewers: start.viewers.length },
      workers: this.o.engine.workers,
      startedAtUnixNs: this.startedAtUnixNs,
      finishedAtUnixNs: wallNowUnixNs(this.anchor),
      publishing: false,
      publisherFailed: false,
      publisher: null,
      clock: this.split.clockBlock(this.startMono, this.steps.stepDetected),
      sendLog: this.split.sendLog,
      identity: this.split.identity,
      duplicateFrames: this.split.table?.duplicateFrames ?? 0,
      schedule: null,
      t0MonoNs,
      autoLoopback,
      records: result.records,
      profiles: result.profiles,
      timeline: timeline.entries(),
      mainThread,
      udp,
      resources: this.resources.finish(monoNs()),
    });
    return { input, t0MonoNs, records: result.records, profiles: result.profiles };
  }
}
