// The scenario's defaults (docs/definitions.md#scenario-keys) in one table: normaliseScenario
// applies them, and a reader of a scenario that was not normalised falls back to the same
// values. Also the closed lists of the keys of ours that name a choice: the receive path, the
// stamp source, the viewers' sockets and their keyframe requests.

/**
 * How inbound media reaches a viewer's pipeline (docs/definitions.md#receive-paths): werift's own
 * path, the lean one, or the lean pipeline read in batches into the thread's arena.
 */
export type ReceivePath = "werift" | "lean" | "arena";
export const RECEIVE_PATHS: readonly ReceivePath[] = ["werift", "lean", "arena"];

/**
 * Which clock gives a media datagram its arrival instant (docs/definitions.md#arrival-stamps):
 * the kernel's receive stamp, or the viewer thread's own reading when JavaScript first sees it.
 */
export type StampSource = "kernel" | "thread";
export const STAMP_SOURCES: readonly StampSource[] = ["kernel", "thread"];
/**
 * The stamp source a thread, a second or a run reports (client.stampSource,
 * docs/definitions.md#arrival-stamps): one of the sources, or "mixed" where they differ.
 */
export type StampSourceSeen = StampSource | "mixed";

/**
 * Whether an arena-path viewer thread's viewers share one UDP socket where the server allows it
 * (docs/definitions.md#receive-paths), or each keeps its own.
 */
export type ViewerSockets = "shared" | "own";
export const VIEWER_SOCKETS: readonly ViewerSockets[] = ["shared", "own"];

/**
 * When a viewer asks for a keyframe (docs/definitions.md#keyframe-requests): by libwebrtc's rules,
 * or only until its first complete keyframe.
 */
export type KeyframeRequestMode = "browser" | "join";
export const KEYFRAME_REQUESTS: readonly KeyframeRequestMode[] = ["browser", "join"];
/** What a viewer offers and honours (docs/definitions.md#viewer-profile). */
export type ViewerProfile = "browser" | "minimal";
export const VIEWER_PROFILES: readonly ViewerProfile[] = ["browser", "minimal"];

/** The `clip` values beside the codec's own clip (docs/definitions.md#vp8-temporal-layer-clip). */
export const CLIP_CHOICES: readonly string[] = ["vp8-tl"];

/** Each default and when it applies (docs/definitions.md#scenario-keys). */
export const SCENARIO_DEFAULTS = {
  codec: "vp8",
  /** with rampOffsetSeed */
  rampOffsetMaxSeconds: 1,
  /** with whip */
  warmupSeconds: 2,
  joinTimeoutSeconds: 10,
  stallMs: 500,
  /** when absent (an explicit 0 is kept) */
  excludeFirstSeconds: 5,
  /** test/e2e/receive-path.test.ts holds it and "lean" to werift's figures */
  receivePath: "arena" as ReceivePath,
  /** on the arena path, where the server gives each session its own address (probed per thread) */
  viewerSockets: "shared" as ViewerSockets,
  /** in a publishing run (with whip) */
  keyframeOnRequest: true,
  keyframeRequests: "browser" as KeyframeRequestMode,
  viewerProfile: "browser" as ViewerProfile,
} as const;
