// What every viewer of a shard shares, and the live counters a viewer reports as it goes.

import type { WallAnchor } from "../../core/clock/clock.ts";
import type { AudioTable } from "../../core/delay/audio-pipeline.ts";
import type { ClipTable, Hasher } from "../../core/delay/fingerprint.ts";
import type { SendLog } from "../../core/delay/sendlog.ts";
import type { LayerSwitchSpec } from "../../core/layer/layer-switch.ts";
import type { Cohort } from "../../core/link/types.ts";
import type { KeyframeRequestMode } from "../../core/scenario/defaults.ts";
import type { IceOptions, ViewerProfile } from "../../net/rtc.ts";
import type { ReceivePath } from "../protocol.ts";
import type { ViewerThread } from "../thread.ts";

export interface ShardContext {
  whep: string;
  bearer: string | undefined;
  ice: IceOptions;
  joinTimeoutNs: number;
  stallNs: number;
  excludeFirstNs: number;
  anchor: WallAnchor;
  hasher: Hasher | null;
  table: ClipTable | null;
  sendLog: SendLog | null;
  /**
   * the publisher's wall clock minus the monotonic clock at [0], for the stamp source; null: this
   * process's own wall clock
   */
  publisherWallMinusMono: Float64Array | null;
  /** see ShardTask.logWaitNs */
  logWaitNs: number;
  /** aborted at the viewers' deadline or on interrupt: every viewer stops at that instant */
  stop: AbortSignal;
  /** shard-wide counters (per-second deltas): packets, payload bytes, transport feedback, RTX */
  counters: { packets: number; bytes: number; transportFeedbackSent: number; rtxReceived: number };
  /** what the viewers offer and honour (docs/definitions.md#viewer-profile) */
  viewerProfile: ViewerProfile;
  /** how inbound media reaches the pipeline (../receive/chain.ts) */
  receivePath: ReceivePath;
  /** the thread's context: its intake, arena reader and socket sharing (../thread.ts) */
  thread: ViewerThread;
  /** when viewers ask for a keyframe (docs/definitions.md#keyframe-requests) */
  keyframeRequests: KeyframeRequestMode;
  /** the scenario's cohorts (empty: none) and the instant their steps count from (the run's t0) */
  cohorts: Cohort[];
  t0MonoNs: number;
  /** the viewers' layer choice and the scenario's layers (docs/definitions.md#layer-switches); null: none */
  layerSwitch: { spec: LayerSwitchSpec | null; rids: string[] } | null;
  /**
   * viewers receive the audio track (docs/definitions.md#audio-track), matched when the table and
   * log are here
   */
  audio: boolean;
  audioTable: AudioTable | null;
  audioLog: SendLog | null;
}

/** Live counters a viewer reports as it goes (per-second deltas and /metrics). */
export interface ViewerLive {
  started(): void;
  joined(): void;
  failed(): void;
  dropped(): void;
  left(): void;
  /** `layer`: the simulcast layer's index, -1 for one encoding (docs/definitions.md#layer-metrics) */
  delaySample?: (delayNs: number, keyframe: boolean, layer: number) => void;
  /** with simulcast: a change of layer, and a switch's ask to its first complete keyframe */
  layerSwitch?: (from: number, to: number) => void;
  layerSwitchTime?: (layer: number, ns: number) => void;
  stampSample?: (delayNs: number) => void;
  transitSample?: (transitNs: number) => void;
  /** a freeze was counted between two shown frames (monotonic ns) */
  freeze?: (startNs: number, endNs: number) => void;
}
