// The run's viewers split into shard tasks: one per engine thread (at least one), consecutive
// viewers on consecutive shards so that a ramp loads them evenly.

import type { WallAnchor } from "../../core/clock/clock.ts";
import type { ClipIdentity } from "../../core/delay/fingerprint.ts";
import type { SendLog } from "../../core/delay/sendlog.ts";
import { cohortLayerSpec } from "../../core/layer/layer-switch.ts";
import { assignCohorts } from "../../core/link/assign.ts";
import { SCENARIO_DEFAULTS } from "../../core/scenario/defaults.ts";
import type { Schedule } from "../../core/scenario/schedule.ts";
import type { Scenario } from "../../core/scenario/types.ts";
import type { IceOptions } from "../../net/rtc.ts";
import type { AudioShare, ShardTask } from "../../workers/protocol.ts";

export interface ShardTaskOptions {
  /** engine worker threads; 0 (viewers in the main thread) still makes one shard */
  workers: number;
  scenario: Scenario;
  schedule: Schedule;
  bearer: string | undefined;
  t0MonoNs: number;
  anchor: WallAnchor;
  ice: IceOptions;
  /** the send log the viewers match against, with its clip's identity; null: no fingerprint source */
  sendLog: SendLog | null;
  identity: ClipIdentity | null;
  /** a split run's publisher clock for the stamp source; null: this process's own */
  publisherWallMinusMono: SharedArrayBuffer | null;
  /** the audio send log and fingerprints (a publishing run with audio); null: none */
  audioLog?: AudioShare | null;
  /**
   * each viewer's cohort index by place in the schedule (−1: unimpaired) as someone else assigned
   * it over the whole run (an agent's share); absent: assigned here
   */
  cohortOf?: readonly number[];
}

/**
 * A split run's send log arrives over its own channel, possibly after the frame it times: a frame
 * waits for the log to pass its arrival, at most this long (docs/definitions.md#clock-model).
 */
const SPLIT_LOG_WAIT_NS = 3e9;

export function shardTasks(opts: ShardTaskOptions): ShardTask[] {
  const s = opts.scenario;
  const shards = Math.max(1, opts.workers);
  const tasks: ShardTask[] = [];
  // viewers choose a layer with the scenario's layerSwitch or a cohort's (docs/definitions.md#cohort-layers)
  const chooses =
    s.layerSwitch !== undefined || (s.cohorts ?? []).some((c) => cohortLayerSpec(c) !== undefined);
  for (let i = 0; i < shards; i++) {
    tasks.push({
      shard: i,
      viewers: [],
      t0MonoNs: opts.t0MonoNs,
      deadlineMonoNs: opts.t0MonoNs + opts.schedule.viewersPhaseNs,
      whep: s.whep,
      bearer: opts.bearer,
      ice: opts.ice,
      joinTimeoutNs: (s.joinTimeoutSeconds ?? SCENARIO_DEFAULTS.joinTimeoutSeconds) * 1e9,
      stallNs: (s.stallMs ?? SCENARIO_DEFAULTS.stallMs) * 1e6,
      excludeFirstNs: (s.excludeFirstSeconds ?? SCENARIO_DEFAULTS.excludeFirstSeconds) * 1e9,
      anchor: opts.anchor,
      sendLog:
        opts.sendLog && opts.identity ? { buffer: opts.sendLog.buffer, identity: opts.identity } : null,
      publisherWallMinusMono: opts.publisherWallMinusMono,
      logWaitNs: opts.publisherWallMinusMono !== null && opts.sendLog !== null ? SPLIT_LOG_WAIT_NS : 0,
      receivePath: s.receivePath ?? SCENARIO_DEFAULTS.receivePath,
      ...(s.stampSource !== undefined ? { stampSource: s.stampSource } : {}),
      ...(s.viewerSockets !== undefined ? { viewerSockets: s.viewerSockets } : {}),
      ...(s.keyframeRequests !== undefined ? { keyframeRequests: s.keyframeRequests } : {}),
      ...(s.viewerProfile !== undefined ? { viewerProfile: s.viewerProfile } : {}),
      ...(s.cohorts !== undefined ? { cohorts: s.cohorts } : {}),
      ...(chooses ? { layerSwitch: { spec: s.layerSwitch ?? null, rids: s.simulcast ?? [] } } : {}),
      ...(s.audio === true ? { audio: true, audioLog: opts.audioLog ?? null } : {}),
    });
  }
  const churn = opts.schedule.churn ?? null;
  // a late joiner takes its place's cohort, so each cohort keeps its share of the audience
  const cohortOf =
    s.cohorts === undefined
      ? []
      : (opts.cohortOf ??
        assignCohorts(s.cohorts, churn !== null ? s.viewers : opts.schedule.startNs.length));
  opts.schedule.startNs.forEach((start, id) => {
    const place = churn?.placeOf[id] ?? id;
    const cohort = cohortOf[place] ?? -1;
    const stop = churn?.stopNs[id];
    tasks[place % shards]?.viewers.push({
      id,
      startMonoNs: opts.t0MonoNs + start,
      ...(stop !== undefined && stop < opts.schedule.viewersPhaseNs
        ? { stopMonoNs: opts.t0MonoNs + stop }
        : {}),
      ...(cohort >= 0 ? { cohort } : {}),
    });
  });
  return tasks;
}
