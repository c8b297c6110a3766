// The typed protocol between the main thread and a shard, whether the shard runs in a worker
// thread or (--workers 0) in the main thread: every type that crosses the thread boundary lives
// here, so the main thread needs nothing else from src/workers but the shard entry. Nothing
// crosses as a thrown object: a worker's failure arrives as a rejected task.
import type { MessagePort } from "node:worker_threads";
import type { WallAnchor } from "../core/clock/clock.ts";
import type { ClipIdentity } from "../core/delay/fingerprint.ts";
import type { LayerSwitchSpec } from "../core/layer/layer-switch.ts";
import type { Cohort } from "../core/link/types.ts";
import type { ThreadCarried } from "../core/report/client-types.ts";
import type {
  KeyframeRequestMode,
  ReceivePath,
  StampSource,
  StampSourceSeen,
  ViewerProfile,
  ViewerSockets,
} from "../core/scenario/defaults.ts";
import type { CohortTickCounts, TickCounts } from "../core/tick-counts.ts";
import type { EncodedHistogram, ViewerRecord } from "../core/types.ts";
import type { IceOptions } from "../net/rtc.ts";
import type { ThreadFigures } from "../net/thread-profile.ts";

/** The receive path and stamp source a task names: the scenario's choices (core/scenario/defaults.ts). */
export type { ReceivePath, StampSource };

/**
 * A viewer thread's stamps over a shard: the source ("mixed" when both stamped), counts, the
 * thread's reason.
 */
export interface StampSources {
  source: StampSourceSeen;
  kernelStamped: number;
  threadStamped: number;
  /** why datagrams were stamped by the thread (absent when none was) */
  threadReason?: string;
  /**
   * a mixed thread's receive lag of its thread-stamped datagrams alone, ms (the ceiling's rule for
   * them: docs/definitions.md#client-ceiling); absent when not mixed or none had a lag
   */
  threadLagMs?: { p50: number; p99: number; max: number };
}

export interface ShardTask {
  shard: number;
  /**
   * viewer ids with their absolute start instants (monotonic ns); with churn, each one's stop
   * instant (docs/definitions.md#churn-schedule; absent: the shard's deadline)
   */
  viewers: { id: number; startMonoNs: number; stopMonoNs?: number; cohort?: number }[];
  t0MonoNs: number;
  deadlineMonoNs: number;
  whep: string;
  bearer: string | undefined;
  ice: IceOptions;
  joinTimeoutNs: number;
  stallNs: number;
  excludeFirstNs: number;
  anchor: WallAnchor;
  /**
   * the publisher's send log and its clip's identity: a run that publishes, or a view following a
   * send-log peer
   */
  sendLog: { buffer: SharedArrayBuffer; identity: ClipIdentity } | null;
  /**
   * the publisher's wall clock minus the monotonic clock (Float64 at [0]) for the stamp source;
   * null: this process's own
   */
  publisherWallMinusMono: SharedArrayBuffer | null;
  /**
   * 0: match each frame at once; else wait for the send log to pass the frame's arrival, at most
   * this long (a split run's log arrives over its own channel)
   */
  logWaitNs: number;
  /** werift's receive path or a lean one; absent: SCENARIO_DEFAULTS.receivePath */
  receivePath?: ReceivePath;
  /** "thread" forces the thread's stamp; absent or "kernel": the kernel's where it can be had */
  stampSource?: StampSource;
  /** arena path: "own" keeps a socket per viewer; absent: SCENARIO_DEFAULTS.viewerSockets */
  viewerSockets?: ViewerSockets;
  /** when viewers ask for a keyframe; absent: SCENARIO_DEFAULTS.keyframeRequests */
  keyframeRequests?: KeyframeRequestMode;
  /** what viewers offer and honour; absent: SCENARIO_DEFAULTS.viewerProfile */
  viewerProfile?: ViewerProfile;
  /** the scenario's cohorts; a viewer's `cohort` indexes it (absent: unimpaired) */
  cohorts?: Cohort[];
  /**
   * the viewers' layer choice and the scenario's layers (docs/definitions.md#layer-switches); `spec`
   * null: only the cohorts' viewers choose (docs/definitions.md#cohort-layers)
   */
  layerSwitch?: { spec: LayerSwitchSpec | null; rids: string[] };
  /** viewers receive the audio track (the scenario's `audio`); absent: video only */
  audio?: boolean;
  /** the audio send log and its clip's packet fingerprints: a publishing run with audio */
  audioLog?: AudioShare | null;
}

/**
 * The audio send log's buffer and what a viewer matches its packets against
 * (docs/definitions.md#audio-track).
 */
export interface AudioShare {
  buffer: SharedArrayBuffer;
  fingerprints: bigint[];
  ticks: number;
}

/**
 * Deltas since the previous tick, plus the active gauge at the tick: the counts of
 * core/tick-counts.ts, then the live samples and the thread's figures.
 */
export interface ShardTick extends TickCounts {
  shard: number;
  /**
   * seconds since t0; the final tick (`final`) flushes the partial last second and is not a
   * timeline entry
   */
  second: number;
  final: boolean;
  delaySamples: number[];
  stampSamples: number[];
  transitSamples: number[];
  /** freezes its viewers counted since the previous tick (docs/definitions.md#viewers-frozen-per-second) */
  freezes: number;
  /** their frozen viewer-time by run second: pairs [second, ns, …] (core/report/frozen-seconds.ts) */
  frozenNs: number[];
  /** this shard's thread over the second: CPU, event-loop utilisation and delay */
  thread: ThreadFigures;
  /**
   * datagrams the kernel dropped on the thread's own sockets since the shard began
   * (docs/definitions.md#udp-drops); null: unreadable
   */
  socketDrops?: number | null;
  /** with cohorts: each cohort's part of the tick, the unimpaired viewers last */
  cohorts?: CohortTick[];
  /** with simulcast, when any came: the live layer figures (docs/definitions.md#layer-metrics) */
  layers?: LayerTick;
}

/** Pairs by layer index (lowest first) since the previous tick. */
export interface LayerTick {
  /** [layer, one-way delay ns, …] (fingerprint source) */
  delays: number[];
  /** [from, to, …]: changes of layer */
  switches: number[];
  /** [layer, ns, …]: a switch's ask to the new layer's first complete keyframe */
  switchNs: number[];
}

/**
 * One cohort's part of a shard's tick: deltas, its active viewers, its fingerprint delay samples
 * (when live samples are on).
 */
export interface CohortTick extends CohortTickCounts {
  /** the cohort's name, or "unimpaired" */
  cohort: string;
  delaySamples: number[];
  /** the cohort's freezes and frozen viewer-time by run second, as the shard tick's */
  freezes: number;
  frozenNs: number[];
}

/**
 * What a shard's thread did over the whole run (the client's own ceiling): what the report carries
 * as it is (ThreadCarried, core/report/client-types.ts), and what the main thread merges or derives.
 */
export interface ShardProfile extends ThreadFigures, ThreadCarried {
  /** the receive lag of every media datagram this thread stamped during the shard (exact, mergeable) */
  receiveLagHist: EncodedHistogram;
  /** datagrams the intake dropped because its queue was full */
  intakeDropped: number;
  /** which clock stamped this thread's media datagrams */
  stamps: StampSources;
  /** frames this shard's viewers completed with a late packet (a repair: the ceiling rule's late feedback) */
  repairedFrames: number;
  /** every thread names the path that read its media: the task's, or the arena's fallback (lean, mixed) */
  receivePath: ReceivePath | "mixed";
}

export interface ShardResult {
  records: ViewerRecord[];
  profile: ShardProfile;
}

/** The one long-lived task a worker runs: a whole shard. */
export interface ShardJob {
  task: ShardTask;
  /** the worker's end of a MessageChannel: ticks go out, "stop" comes in */
  port: MessagePort;
  liveDelays: boolean;
  /**
   * the run was interrupted before the shard started: its viewers do not start (a "stop" on the
   * port could arrive after a warmed worker has started its first viewer)
   */
  stopped?: boolean;
}

/**
 * The task that warms a worker before t0 (its modules, the xxhash wasm): every warm task holds
 * its worker until `threads` have arrived at the barrier (an Int32 at [0]), so each of the
 * pool's threads warms once.
 */
export interface WarmJob {
  warm: { barrier: SharedArrayBuffer; threads: number };
}

export type MainToWorker = { type: "stop" };
export type WorkerToMain = { type: "tick"; tick: ShardTick };
