// The docs/definitions.md#report key lists of whipbench.report/v0, written out from the spec tables, and a walker that
// holds a parsed report to them: every key path (arrays collapsed to `[]`, map keys to `*`) must
// be a spec key or one of our documented additions, every key the spec says is always present
// must be in every object instance whose parent is there, and keys keep the schema order.

import { REFERENCE_FIGURE_KEYS } from "../../src/core/reference/figures.ts";

/** `?` marks a key the spec lets be absent; a bare key is always present once its parent is. */
const SUMMARY = ["n", "min", "mean", "p50", "p95", "p99", "max"];

function summary(path: string, optional: boolean): string[] {
  return [`${path}${optional ? "?" : ""}`, ...SUMMARY.map((k) => `${path}.${k}`)];
}

function frameKindSplit(path: string): string[] {
  return [path, `${path}.samples`, ...summary(`${path}.ms`, true)];
}

/** Event-loop delay of one thread (our addition). */
function delayMs(path: string, optional: boolean): string[] {
  return [`${path}${optional ? "?" : ""}`, ...["p50", "p99", "max"].map((k) => `${path}.${k}`)];
}

/** One thread's own load (our addition). */
function thread(path: string, optional: boolean): string[] {
  return [
    `${path}${optional ? "?" : ""}`,
    `${path}.cpuSeconds`,
    `${path}.eventLoopUtilisation`,
    ...delayMs(`${path}.eventLoopDelayMs`, false),
  ];
}

/** What an emulated link did, both directions (docs/definitions.md#emulator-counts). */
function linkKeys(path: string): string[] {
  const counts = ["datagrams", "delayed", "droppedLoss", "droppedQueue"];
  const dirs = ["down", "up"].flatMap((d) => [`${path}.${d}`, ...counts.map((k) => `${path}.${d}.${k}`)]);
  return [`${path}?`, ...dirs];
}

/** libwebrtc's reference viewers' block (docs/definitions.md#reference-viewers). */
function referenceKeys(path: string): string[] {
  const rate = (p: string) => [`${p}?`, `${p}.freezesPer30s`, `${p}.frozenSecondsPer30s`];
  return [
    `${path}?`,
    ...["available", "reason?", "viewers", "measured", "linkApplied?"].map((k) => `${path}.${k}`),
    ...REFERENCE_FIGURE_KEYS.map((k) => `${path}.${k}?`),
    `${path}.jitterBufferDelayMs?`,
    `${path}.measuredSeconds?`,
    `${path}.agreement`,
    `${path}.agreement.judged`,
    `${path}.agreement.agrees?`,
    ...rate(`${path}.agreement.model`),
    ...rate(`${path}.agreement.reference`),
    `${path}.agreement.line`,
  ];
}

/** A link profile in the scenario's notation (docs/definitions.md#link-profile). */
function profileKeys(path: string): string[] {
  const keys = ["delay", "jitter", "distribution", "reorder", "loss"].map((k) => `${path}.${k}?`);
  const burst = ["enter", "leave", "lossBad", "lossGood"].map((k) => `${path}.burst.${k}`);
  return [`${path}?`, ...keys, `${path}.burst?`, ...burst, `${path}.rate?`, `${path}.queue?`];
}

/** The audio track's delay and A/V offset blocks (docs/definitions.md#audio-track). */
function audioBlocks(path: string, optional: boolean): string[] {
  const q = optional ? "?" : "";
  const d = `${path}.oneWayDelay`;
  const o = `${path}.avOffset`;
  return [
    `${d}${q}`,
    `${d}.available`,
    `${d}.reason?`,
    ...["samples", "invalid", "unmatchedPackets", "duplicatePackets", "excludedPackets"].map(
      (k) => `${d}.${k}`,
    ),
    ...summary(`${d}.ms`, true),
    `${o}${q}`,
    `${o}.available`,
    `${o}.reason?`,
    `${o}.seconds`,
    ...summary(`${o}.ms`, true),
  ];
}

/** What the viewers would have seen: a viewer's render block, or the pooled one (docs/definitions.md#viewer-experience-pooled). */
function renderKeys(path: string, pooled: boolean): string[] {
  const k = (keys: string[]) => keys.map((x) => `${path}.${x}`);
  if (!pooled) {
    return [
      path,
      ...k(["available", "reason?", "finder?", "framesShown", "framesNotDecodable", "framesLate"]),
      ...k(["freezes", "frozenMs", "frozenPercent?", "longestFreezeMs", "pauses", "pausedMs"]),
      ...k(["measuredMs", "endGapMs?", "recoveries"]),
      ...summary(`${path}.recoveryMs`, true),
      ...k(["plisSent", "plisAnswered"]),
      ...summary(`${path}.pliKeyframeMs`, true),
    ];
  }
  return [
    path,
    ...k(["available", "reason?", "viewers", "viewersByFinder", "viewersByFinder.*?", "framesShown"]),
    ...k(["framesNotDecodable", "framesLate", "freezes", "freezesPerViewerMinute?", "frozenSeconds"]),
    ...k(["pauses", "pausedSeconds", "measuredSeconds"]),
    ...summary(`${path}.frozenPercent`, false),
    `${path}.longestFreezeMs`,
    ...summary(`${path}.endGapMs`, false),
    `${path}.recoveries`,
    ...summary(`${path}.recoveryMs`, true),
    ...k(["plisSent", "plisAnswered"]),
    ...summary(`${path}.pliKeyframeMs`, true),
  ];
}

/** One-way delay per simulcast layer, pooled (docs/definitions.md#layer-delay). */
function layerDelayKeys(path: string): string[] {
  return [
    `${path}?`,
    ...["rid", "viewers", "samples", "reason?"].map((k) => `${path}[].${k}`),
    ...summary(`${path}[].delayMs`, true),
  ];
}

function scenarioCohortKeys(): string[] {
  const c = "+scenario.cohorts";
  return [
    `${c}?`,
    `${c}[].name`,
    `${c}[].viewers?`,
    `${c}[].share?`,
    ...profileKeys(`${c}[].down`),
    ...profileKeys(`${c}[].up`),
    `${c}[].steps?`,
    `${c}[].steps[].at`,
    `${c}[].steps[].for?`,
    ...profileKeys(`${c}[].steps[].down`),
    ...profileKeys(`${c}[].steps[].up`),
    `${c}[].seed?`,
    // a cohort's own layer choice (docs/definitions.md#cohort-layers)
    `${c}[].layer?`,
    `${c}[].layerSwitch?`,
    ...["startRid?", "atSeconds?", "rid?"].map((k) => `${c}[].layerSwitch.${k}`),
  ];
}

/** aggregate.cohorts[] (docs/definitions.md#cohort-figures); its delay blocks are the aggregate's, clip keys on fingerprint only. */
function cohortKeys(): string[] {
  const c = "+aggregate.cohorts";
  const fields = ["name", "impaired", "viewers", "joined"].map((k) => `${c}[].${k}`);
  const sums = [
    "packetsReceived",
    "packetsLost",
    "lossPercentTotal",
    "lossPercentTotalReason?",
    "nacksSent",
    "stalls",
  ];
  const frames = ["lateCompletedFrames", "incompleteFrames"];
  const block = REPORT_BASE_DELAY_KEYS.map((k) => {
    const key = `${c}[].oneWayDelay${k}`;
    return /\.(duplicateFrames|loopFrames)$/.test(key) ? `${key}?` : key;
  });
  return [
    `${c}?`,
    ...fields,
    ...summary(`${c}[].joinFirstKeyframeMs`, false),
    ...[...sums, ...frames].map((k) => `${c}[].${k}`),
    ...block,
    ...renderKeys(`${c}[].render`, true),
    ...linkKeys(`${c}[].link`),
    ...layerDelayKeys(`${c}[].layerDelay`),
    ...referenceKeys(`${c}[].reference`),
  ];
}

/** The pooled delay block's keys below `aggregate.oneWayDelay` (`""` is the list itself). */
const REPORT_BASE_DELAY_KEYS: readonly string[] = [
  "",
  ...[
    "[].source",
    "[].available",
    "[].reason?",
    "[].viewers",
    "[].viewersByFrameEnd",
    "[].viewersByFrameEnd.*?",
    "[].completeFrames",
    "[].incompleteFrames",
    "[].samples",
    "[].invalid",
    "[].unmatchedFrames",
    "[].excludedFrames",
    "[].lateCompletedFrames",
    "[].duplicateFrames",
    "[].loopFrames",
    "[].loopMinMs?",
    "[].clipHash?",
  ],
  ...summary("[].ms", true),
  ...frameKindSplit("[].keyframes"),
  ...frameKindSplit("[].deltaFrames"),
  "[].uncertaintyMs?",
  "[].comparable",
  "[].notComparableReason?",
];

/**
 * docs/definitions.md#top-level to #method-lines, in serialisation order. Keys marked `+` are our deliberate additions (DESIGN
 * "Report compatibility" and "Client ceiling"; declared in src/core/report/types.ts): Node's
 * resource figures in place of goroutines, client.workers, client.ceiling, the timeline's
 * cpuPercent, eventLoopDelayMs and receiveLagMs, client.receiveLagMs and publisherSendLagMs,
 * scenario.workers and viewers[].whepFlow. A new report key must be added here.
 */
export const REPORT_KEYS: readonly string[] = [
  "schema",
  "whipbenchVersion",
  "command",
  "interrupted?",
  "startedAt",
  "finishedAt",
  "server",
  "server.whipHost?",
  "server.whepHost",
  "+server.serverVersion?",
  "+server.plan?",
  "+server.region?",
  "+server.permission?",
  "client",
  "client.os",
  "client.arch",
  "client.cpus",
  "client.go",
  "client.resources?",
  "client.resources.cpuSeconds?",
  "client.resources.cpuUtilisationPercent?",
  "client.resources.cpuReason?",
  // the spec's always-present peakGoroutines is replaced by Node's figures (docs/definitions.md#client-resources)
  "client.resources.peakGoroutines?",
  "+client.resources.peakHeapBytes",
  "+client.resources.peakRssBytes",
  "+client.resources.workers",
  ...thread("+client.resources.mainThread", true),
  "+client.resources.udpReceiveErrors?",
  "+client.resources.udpReceiveErrors.rcvbufErrors",
  "+client.resources.udpReceiveErrors.inErrors",
  // per-shard breakdown and the ceiling verdict (DESIGN "Client ceiling", worker-thread engine)
  "+client.workers?",
  "+client.workers[].shard",
  "+client.workers[].thread",
  "+client.workers[].viewers",
  "+client.workers[].packets",
  "+client.workers[].cpuSeconds",
  "+client.workers[].usPerPacket?",
  "+client.workers[].eventLoopUtilisation",
  ...delayMs("+client.workers[].eventLoopDelayMs", false),
  // what the client itself adds (issue 11): receive lag per thread and pooled, the publisher's send lag
  ...delayMs("+client.workers[].receiveLagMs", true),
  "+client.workers[].intakeDropped?",
  ...delayMs("+client.workers[].processingWaitMs", true),
  // which clock stamped the arrivals (docs/definitions.md#arrival-stamps)
  "+client.workers[].receivePath?",
  "+client.workers[].receivePathReason?",
  "+client.workers[].rtcpSend?",
  "+client.workers[].rtcpSendReason?",
  "+client.workers[].viewerSockets?",
  "+client.workers[].viewerSocketsReason?",
  "+client.workers[].unroutedDatagrams?",
  // whose drops (docs/definitions.md#udp-drops)
  "+client.workers[].socketDrops?",
  "+client.workers[].socketDropsReason?",
  "+client.workers[].stampSource?",
  "+client.workers[].kernelStamped?",
  "+client.workers[].threadStamped?",
  "+client.workers[].stampReason?",
  ...delayMs("+client.workers[].threadStampedLagMs", true),
  ...delayMs("+client.receiveLagMs", true),
  "+client.stampSource?",
  "+client.stampReasons?",
  ...delayMs("+client.publisherSendLagMs", true),
  ...delayMs("+client.publisherCaptureLeadMs", true),
  "+client.sendStampSource?",
  "+client.sendStamps?",
  "+client.sendStamps.kernel",
  "+client.sendStamps.handover",
  "+client.sendStamps.reasons?",
  "+client.udpDrops?",
  "+client.udpDrops.own?",
  "+client.udpDrops.ownReason?",
  "+client.udpDrops.relay?",
  "+client.udpDrops.relayReason?",
  "+client.udpDrops.host?",
  "+client.udpDrops.host.rcvbufErrors",
  "+client.udpDrops.host.inErrors",
  "+client.ceiling?",
  "+client.ceiling.nearCeiling",
  "+client.ceiling.thresholds",
  "+client.ceiling.thresholds.eventLoopUtilisation",
  "+client.ceiling.thresholds.eventLoopDelayP99Ms",
  "+client.ceiling.thresholds.receiveLagP99Ms?",
  "+client.ceiling.thresholds.keepUpWaitP50Ms?",
  "+client.ceiling.thresholds.publisherSendLagP99Ms?",
  "+client.ceiling.evidence?",
  "+client.hosts?",
  "+client.hosts[].name",
  "+client.hosts[].viewers",
  "+client.hosts[].workers",
  "+client.hosts[].lost?",
  "+client.hosts[].cpuSeconds?",
  "+client.hosts[].ceiling?",
  "+client.hosts[].ceiling.nearCeiling",
  "+client.hosts[].ceiling.evidence?",
  "+client.hosts[].clock",
  "+client.hosts[].clock.method",
  "+client.hosts[].clock.offsetMs?",
  "+client.hosts[].clock.uncertaintyMs?",
  "+client.hosts[].clock.reason?",
  "+client.agentMessagesRejected?",
  "topology",
  "clock",
  "clock.method",
  "clock.offsetMs?",
  "clock.uncertaintyMs?",
  "clock.points?",
  "clock.points[].tS",
  "clock.points[].offsetMs",
  "clock.points[].rttMs",
  "clock.reason?",
  "clock.stepDetected",
  "scenario",
  "scenario.name?",
  "scenario.whip?",
  "scenario.whep",
  "scenario.codec", // omitempty, but normalise always sets it
  "+scenario.clip?", // the clip the scenario names (docs/definitions.md#vp8-temporal-layer-clip)
  "scenario.viewers",
  "scenario.rampSeconds",
  "scenario.holdSeconds",
  "scenario.rampOffsetSeed?",
  "scenario.rampOffsetMaxSeconds?",
  "scenario.warmupSeconds?",
  "scenario.joinTimeoutSeconds", // normalised to 10
  "scenario.stallMs", // normalised to 500
  "scenario.excludeFirstSeconds", // always present after normalisation (docs/definitions.md#scenario-keys)
  "scenario.bearerEnv?",
  "scenario.metrics?",
  "scenario.includeLoopback?",
  "scenario.loopbackOnly?",
  "+scenario.workers?", // the scenario key of the worker-thread engine
  "+scenario.receivePath?", // the viewers' receive path (werift or lean)
  "+scenario.stampSource?", // the arrival stamps' clock, when the scenario names it
  "+scenario.viewerSockets?", // arena path: shared or own sockets, when the scenario names it
  "+scenario.keyframeOnRequest?", // whether the publisher answers PLI/FIR (present when the run publishes)
  "+scenario.keyframeRequests?", // when viewers ask for a keyframe (docs/definitions.md#keyframe-requests)
  "+scenario.viewerProfile?", // what the viewers offer and honour (docs/definitions.md#viewer-profile)
  "+scenario.audio?", // the audio track (docs/definitions.md#audio-track)
  "+scenario.referenceViewers?", // libwebrtc beside the load (docs/definitions.md#reference-viewers)
  "+scenario.simulcast?", // the layers' rids (docs/definitions.md#simulcast-publisher)
  "+scenario.layerSwitch?", // the viewers' layer choice (docs/definitions.md#layer-switches)
  "+scenario.layerSwitch.startRid?",
  "+scenario.layerSwitch.atSeconds?",
  "+scenario.layerSwitch.rid?",
  ...scenarioCohortKeys(),
  "+scenario.churn?", // viewers leave and join (docs/definitions.md#churn)
  "+scenario.churn.meanLifetimeSeconds",
  "+scenario.churn.minLifetimeSeconds",
  "+scenario.churn.seed",
  "publisher?",
  "publisher.codec",
  "publisher.stamped",
  "publisher.connectMs",
  "publisher.framesSent",
  "publisher.packetsSent",
  "publisher.bytesSent",
  "publisher.loops",
  "publisher.scheduleSlips",
  "publisher.sendingSeconds",
  "publisher.pliReceived",
  "publisher.firReceived",
  "publisher.keyframesOnRequest",
  "publisher.keyframeRequestsPerJoin?",
  "publisher.error?",
  "publisher.errorKind?",
  "publisher.disconnectedLate?",
  "+publisher.audio?", // the audio track's sending (docs/definitions.md#audio-track)
  "+publisher.audio.packetsSent",
  "+publisher.audio.bytesSent",
  "+publisher.audio.loops",
  "+publisher.audio.scheduleSlips",
  "aggregate",
  "aggregate.valid",
  "aggregate.verdict",
  "aggregate.viewers",
  "aggregate.joined",
  "aggregate.failed",
  "aggregate.failedPercent",
  "aggregate.droppedAfterJoin",
  ...summary("aggregate.signallingMs", false),
  ...summary("aggregate.joinFirstRtpMs", false),
  ...summary("aggregate.joinFirstKeyframeMs", false),
  ...summary("aggregate.lossPercent", false),
  ...summary("aggregate.jitterMs", false),
  ...summary("aggregate.keyframeIntervalMeanS", false),
  "aggregate.stalls",
  "aggregate.packetsReceived",
  "aggregate.packetsLost",
  "aggregate.lossPercentTotal",
  "aggregate.lossPercentTotalReason?", // only where it is null: no packet was expected
  "aggregate.nacksSent",
  "+aggregate.transportFeedbackSent", // docs/definitions.md#transport-feedback
  "+aggregate.rtxReceived", // docs/definitions.md#rtx-received
  "aggregate.oneWayDelay",
  "aggregate.oneWayDelay[].source",
  "aggregate.oneWayDelay[].available",
  "aggregate.oneWayDelay[].reason?",
  "aggregate.oneWayDelay[].viewers",
  "aggregate.oneWayDelay[].viewersByFrameEnd",
  "aggregate.oneWayDelay[].viewersByFrameEnd.*?",
  "aggregate.oneWayDelay[].completeFrames",
  "aggregate.oneWayDelay[].incompleteFrames",
  "aggregate.oneWayDelay[].samples",
  "aggregate.oneWayDelay[].invalid",
  "aggregate.oneWayDelay[].unmatchedFrames",
  "aggregate.oneWayDelay[].excludedFrames",
  "aggregate.oneWayDelay[].lateCompletedFrames",
  "aggregate.oneWayDelay[].duplicateFrames", // fingerprint blocks only (see CLIP_KEYS)
  "aggregate.oneWayDelay[].loopFrames", // fingerprint blocks only
  "aggregate.oneWayDelay[].loopMinMs?",
  "+aggregate.oneWayDelay[].clipHash?", // fingerprint blocks with a send log only
  ...summary("aggregate.oneWayDelay[].ms", true),
  ...frameKindSplit("aggregate.oneWayDelay[].keyframes"),
  ...frameKindSplit("aggregate.oneWayDelay[].deltaFrames"),
  "aggregate.oneWayDelay[].uncertaintyMs?",
  "aggregate.oneWayDelay[].comparable",
  "aggregate.oneWayDelay[].notComparableReason?",
  "aggregate.packetTransit",
  "aggregate.packetTransit.available",
  "aggregate.packetTransit.reason?",
  "aggregate.packetTransit.viewers",
  ...summary("aggregate.packetTransit.ms", true),
  ...renderKeys("+aggregate.render", true),
  ...cohortKeys(),
  "+aggregate.churn?", // docs/definitions.md#churn-figures
  "+aggregate.churn.viewers",
  "+aggregate.churn.lateJoiners",
  "+aggregate.churn.joins",
  "+aggregate.churn.lateJoins",
  "+aggregate.churn.leaves",
  ...summary("+aggregate.churn.lateSignallingMs", false),
  ...summary("+aggregate.churn.lateIceConnectedMs", false),
  ...summary("+aggregate.churn.lateJoinFirstKeyframeMs", false),
  "+aggregate.audio", // always: pooled, or why there is none (docs/definitions.md#audio-track)
  "+aggregate.audio.available",
  "+aggregate.audio.reason?",
  "+aggregate.audio.viewers",
  "+aggregate.audio.packetsReceived",
  "+aggregate.audio.packetsLost",
  "+aggregate.audio.lossPercentTotal",
  ...summary("+aggregate.audio.jitterMs", true),
  ...summary("+aggregate.audio.firstAudioMs", true),
  ...audioBlocks("+aggregate.audio", true),
  ...referenceKeys("+aggregate.reference"),
  "+aggregate.layerSwitches?", // with layerSwitch (docs/definitions.md#layer-switches)
  ...["viewers", "withExtension", "reason?", "asked", "reached", "unasked"].map(
    (k) => `+aggregate.layerSwitches.${k}`,
  ),
  ...summary("+aggregate.layerSwitches.switchMs", true),
  "+aggregate.layerSwitches.framesLost?", // absent when no switch's loss was measured
  ...layerDelayKeys("+aggregate.layerDelay"),
  "errors",
  "errors.*?",
  "timeline?",
  "timeline[].t",
  "timeline[].active",
  "timeline[].packets",
  "+timeline[].cpuPercent?",
  "+timeline[].eventLoopDelayMs?",
  "+timeline[].receiveLagMs?",
  "+timeline[].viewersFrozen?", // docs/definitions.md#viewers-frozen-per-second
  "+timeline[].viewersFrozenByCohort?", // with cohorts
  "+timeline[].viewersFrozenByCohort.*?",
  "viewers",
  "viewers[].id",
  "viewers[].startOffsetMs",
  "viewers[].rampOffsetMs?",
  "+viewers[].stopOffsetMs?", // with churn (docs/definitions.md#churn-figures)
  "+viewers[].lateJoiner?",
  "+viewers[].left?",
  "viewers[].joined",
  "viewers[].codec?",
  "+viewers[].whepFlow?",
  "+viewers[].cohort?",
  "viewers[].signallingMs?",
  "viewers[].iceConnectedMs?",
  "viewers[].firstRtpMs?",
  "viewers[].firstKeyframeMs?",
  "viewers[].rtp",
  ...[
    "received",
    "expected",
    "lost",
    "duplicates",
    "tooLate",
    "lossPercent",
    "jitterMs",
    // only where jitterMs is null: fewer than two packets arrived (the reference tool writes 0)
    "+jitterMsReason?",
    "receivingSeconds",
    "stalls",
    "stalledMs",
    "longestGapMs",
    "keyframes",
    "keyframeIntervalMinS",
    "keyframeIntervalMeanS",
    "keyframeIntervalMaxS",
  ].map((k) => (k.startsWith("+") ? `+viewers[].rtp.${k.slice(1)}` : `viewers[].rtp.${k}`)),
  "viewers[].nacksSent",
  "+viewers[].transportFeedbackSent",
  "+viewers[].rtxReceived",
  "viewers[].oneWayDelay",
  "viewers[].oneWayDelay[].source",
  "viewers[].oneWayDelay[].available",
  "viewers[].oneWayDelay[].reason?",
  "viewers[].oneWayDelay[].frameEnd?",
  "viewers[].oneWayDelay[].completeFrames",
  "viewers[].oneWayDelay[].incompleteFrames",
  "viewers[].oneWayDelay[].samples",
  "viewers[].oneWayDelay[].invalid",
  "viewers[].oneWayDelay[].unmatchedFrames",
  "viewers[].oneWayDelay[].excludedFrames",
  "viewers[].oneWayDelay[].lateCompletedFrames",
  ...summary("viewers[].oneWayDelay[].ms", true),
  ...frameKindSplit("viewers[].oneWayDelay[].keyframes"),
  ...frameKindSplit("viewers[].oneWayDelay[].deltaFrames"),
  "viewers[].oneWayDelay[].uncertaintyMs?",
  "viewers[].oneWayDelay[].comparable",
  "viewers[].oneWayDelay[].notComparableReason?",
  "viewers[].packetTransit",
  "viewers[].packetTransit.available",
  "viewers[].packetTransit.reason?",
  "viewers[].packetTransit.negotiated",
  "viewers[].packetTransit.stamped",
  "viewers[].packetTransit.invalid",
  ...summary("viewers[].packetTransit.ms", true),
  ...renderKeys("+viewers[].render", false),
  ...linkKeys("+viewers[].link"),
  "viewers[].droppedAfterJoin?",
  "viewers[].errorKind?",
  "viewers[].error?",
  "+viewers[].audio?", // a run with audio (docs/definitions.md#audio-track)
  "+viewers[].audio.available",
  "+viewers[].audio.reason?",
  "+viewers[].audio.packetsReceived",
  "+viewers[].audio.packetsExpected",
  "+viewers[].audio.packetsLost",
  "+viewers[].audio.lossPercent",
  "+viewers[].audio.jitterMs",
  "+viewers[].audio.jitterMsReason?", // only where jitterMs is null: fewer than two audio packets
  "+viewers[].audio.firstAudioMs?",
  ...audioBlocks("+viewers[].audio", false),
  "+viewers[].layers?", // with simulcast (docs/definitions.md#layer)
  "+viewers[].layers[].rid",
  "+viewers[].layers[].samples",
  "+viewers[].layers[].timeMs",
  ...summary("+viewers[].layers[].delayMs", true), // docs/definitions.md#layer-delay
  "+viewers[].layers[].reason?",
  "+viewers[].layerChoice?", // with layerSwitch (docs/definitions.md#layer-switches)
  "+viewers[].layerChoice.available",
  "+viewers[].layerChoice.reason?",
  "+viewers[].layerChoice.asks",
  ...["rid", "askedMs", "status", "error?"].map((k) => `+viewers[].layerChoice.asks[].${k}`),
  "+viewers[].layerChoice.switches",
  ...["from", "to", "askedMs", "switchMs", "framesLost"].map((k) => `+viewers[].layerChoice.switches[].${k}`),
  "method",
];

interface KeySpec {
  path: string;
  optional: boolean;
  addition: boolean;
  order: number;
}

const SPECS = new Map<string, KeySpec>();
for (const [order, raw] of REPORT_KEYS.entries()) {
  const addition = raw.startsWith("+");
  const optional = raw.endsWith("?");
  const path = raw.slice(addition ? 1 : 0, optional ? -1 : undefined);
  SPECS.set(path, { path, optional, addition, order });
}

/** Children of a collapsed parent path, in schema order. */
function childrenOf(parent: string): KeySpec[] {
  const out: KeySpec[] = [];
  for (const s of SPECS.values()) {
    const i = s.path.lastIndexOf(".");
    const p = i < 0 ? "" : s.path.slice(0, i);
    if (p === parent) out.push(s);
  }
  return out;
}

/**
 * The pooled block's clip keys: always on a `fingerprint` block (docs/definitions.md#one-way-delay-pooled), never on a `stamp`
 * block (WB-39: the stamp needs no clip; src/core/report/stamp-blocks.ts).
 */
const CLIP_KEYS = new Set([
  "aggregate.oneWayDelay[].duplicateFrames",
  "aggregate.oneWayDelay[].loopFrames",
  "aggregate.oneWayDelay[].loopMinMs",
]);
const SOURCES = ["fingerprint", "stamp"];

const MAP_PATHS = new Set([
  "errors",
  "aggregate.oneWayDelay[].viewersByFrameEnd",
  "aggregate.cohorts[].oneWayDelay[].viewersByFrameEnd",
  "aggregate.render.viewersByFinder",
  "timeline[].viewersFrozenByCohort",
  "aggregate.cohorts[].render.viewersByFinder",
]);
const MAP_KEY: Record<string, RegExp> = {
  "aggregate.render.viewersByFinder": /^(frame-id|seq-num)$/,
  "timeline[].viewersFrozenByCohort": /^[A-Za-z0-9_.-]{1,64}$/,
  "aggregate.cohorts[].render.viewersByFinder": /^(frame-id|seq-num)$/,
  "aggregate.cohorts[].oneWayDelay[].viewersByFrameEnd": /^(marker|timestamp)$/,
  errors: /^(publisher_)?[a-z][a-z0-9_]*$/,
  "aggregate.oneWayDelay[].viewersByFrameEnd": /^(marker|timestamp)$/,
};

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Problems with a parsed report's keys: unknown keys, missing always-present keys (per object
 * instance), keys out of schema order, bad map keys. Also collects every collapsed key path.
 */
export function checkReportKeys(report: unknown): { problems: string[]; paths: Set<string> } {
  const problems: string[] = [];
  const paths = new Set<string>();
  const visit = (v: unknown, path: string, where: string): void => {
    if (Array.isArray(v)) {
      for (const [i, item] of v.entries()) visit(item, `${path}[]`, `${where}[${i}]`);
      return;
    }
    if (!isObject(v)) return;
    const keys = Object.keys(v);
    if (MAP_PATHS.has(path)) {
      for (const k of keys) {
        paths.add(`${path}.*`);
        if (!MAP_KEY[path]!.test(k)) problems.push(`${where}: map key ${JSON.stringify(k)}`);
        if (typeof v[k] !== "number") problems.push(`${where}.${k}: not a count`);
      }
      return;
    }
    let lastOrder = -1;
    for (const k of keys) {
      const p = path === "" ? k : `${path}.${k}`;
      paths.add(p);
      const spec = SPECS.get(p);
      if (!spec) {
        problems.push(
          `${where === "" ? k : `${where}.${k}`}: not a report key (docs/definitions.md#report) nor a documented addition`,
        );
        continue;
      }
      if (spec.order < lastOrder) problems.push(`${where}.${k}: out of schema order`);
      lastOrder = spec.order;
      visit(v[k], p, where === "" ? k : `${where}.${k}`);
    }
    for (const c of childrenOf(path)) {
      const key = c.path.slice(path === "" ? 0 : path.length + 1);
      if (CLIP_KEYS.has(c.path) && v["source"] !== "fingerprint") {
        if (key in v) problems.push(`${where}: ${key} on a ${String(v["source"])} block`);
        continue;
      }
      if (!c.optional && !(key in v)) problems.push(`${where === "" ? "$" : where}: missing ${key}`);
    }
  };
  visit(report, "", "");
  // one delay block per source, fingerprint first (docs/definitions.md#one-way-delay), in every list of blocks
  const r = report as {
    aggregate?: { oneWayDelay?: { source?: unknown }[] };
    viewers?: { oneWayDelay?: { source?: unknown }[] }[] | null;
  };
  const lists = [r.aggregate?.oneWayDelay ?? [], ...(r.viewers ?? []).map((v) => v.oneWayDelay ?? [])];
  for (const blocks of lists) {
    const sources = blocks.map((b) => String(b.source));
    const want = SOURCES.filter((s) => sources.includes(s));
    if (sources.join() !== want.join() || sources[0] !== "fingerprint") {
      problems.push(`oneWayDelay sources ${sources.join(", ")}: want fingerprint first, each source once`);
    }
  }
  return { problems: [...new Set(problems)], paths };
}
