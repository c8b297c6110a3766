// The scenario's type (docs/definitions.md#scenario-keys): its keys in serialisation order, with
// no parsing, so that the report model derives its scenario block from it (core/report/types.ts)
// without importing the parser's own imports. Parsing and validation: scenario-file/scenario.ts.

import type { LayerSwitchSpec } from "../layer/layer-switch.ts";
import type { Cohort } from "../link/types.ts";
import type { CapacitySpec } from "./capacity-spec.ts";
import type { ChurnSpec } from "./churn.ts";
import type {
  KeyframeRequestMode,
  ReceivePath,
  StampSource,
  ViewerProfile,
  ViewerSockets,
} from "./defaults.ts";
import type { Threshold } from "./threshold-types.ts";

/**
 * docs/definitions.md#scenario-keys keys in serialisation order, plus `workers` and `receivePath`
 * (ours, not in the Go tool).
 */
export interface Scenario {
  name?: string;
  whip?: string;
  whep: string;
  codec?: string;
  /** absent: the codec's embedded clip; "vp8-tl": VP8 with two temporal layers */
  clip?: string;
  viewers: number;
  rampSeconds: number;
  holdSeconds: number;
  /** int64; present = seeded ramp offsets on (0 is a valid seed) */
  rampOffsetSeed?: bigint;
  rampOffsetMaxSeconds?: number;
  warmupSeconds?: number;
  joinTimeoutSeconds?: number;
  stallMs?: number;
  excludeFirstSeconds?: number;
  bearerEnv?: string;
  metrics?: string;
  includeLoopback?: boolean;
  loopbackOnly?: boolean;
  /** worker threads (0..256; 0 = let the engine decide) */
  workers?: number;
  /**
   * how viewers receive media: werift's own path, the lean one or the arena one (default
   * SCENARIO_DEFAULTS.receivePath)
   */
  receivePath?: ReceivePath;
  /**
   * where a viewer's arrival instants come from: "kernel" (absent: the kernel's where it can be
   * had) or "thread" (forced)
   */
  stampSource?: StampSource;
  /**
   * arena path: the viewers of a thread share one socket where the server allows it ("shared",
   * the default) or each keeps its own
   */
  viewerSockets?: ViewerSockets;
  /**
   * the publisher answers PLI/FIR with a keyframe (docs/definitions.md#keyframes-on-request); true
   * when absent in a publishing run
   */
  keyframeOnRequest?: boolean;
  /**
   * when viewers ask for a keyframe (docs/definitions.md#keyframe-requests): "browser" (the
   * default) or "join"
   */
  keyframeRequests?: KeyframeRequestMode;
  /**
   * what viewers offer and honour (docs/definitions.md#viewer-profile): "browser" (the default:
   * transport-cc feedback, rtx) or "minimal" (neither)
   */
  viewerProfile?: ViewerProfile;
  /**
   * the publisher sends the Opus clip as a second track and viewers receive it
   * (docs/definitions.md#audio-track); absent: video only
   */
  audio?: boolean;
  /**
   * libwebrtc viewers beside the load, per cohort and for the unimpaired viewers, as the run's
   * reference (docs/definitions.md#reference-viewers); absent or 0: none
   */
  referenceViewers?: number;
  /**
   * the publisher sends these simulcast layers, by rid, lowest first
   * (docs/definitions.md#simulcast-publisher); absent: one encoding
   */
  simulcast?: string[];
  /**
   * the layer every viewer asks for at its start and the one it switches to, through the WHEP
   * layer extension (docs/definitions.md#layer-switches); absent: viewers take the server's choice
   */
  layerSwitch?: LayerSwitchSpec;
  /** pass/fail conditions on report figures (not serialised into the report's scenario) */
  thresholds?: Threshold[];
  /** the capacity search's settings (`whipbench capacity`; other commands ignore it) */
  capacity?: CapacitySpec;
  /** emulated links per viewer cohort (docs/definitions.md#cohorts); absent: every viewer unimpaired */
  cohorts?: Cohort[];
  /** viewers leave and new ones join during the hold (docs/definitions.md#churn); absent: no churn */
  churn?: ChurnSpec;
  /**
   * A managed-service run (docs/load-testing-etiquette.md): the server's version, the plan or
   * tier, the region, and the permission the run was made under. The report records them in its
   * `server` block beside the hosts; they do not take part in ranking.
   */
  serverVersion?: string;
  plan?: string;
  region?: string;
  permission?: string;
}

/** The managed-service keys, in report order. */
export const SERVER_KEYS = ["serverVersion", "plan", "region", "permission"] as const;
