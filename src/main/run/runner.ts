// A run (docs/definitions.md#a-run-step-by-step) as a sequence of named steps: the clocks start;
// the publisher connects (when the scenario has `whip`) or a split run opens its peers; after the
// warmup the viewers run, sharded over the engine, with the per-second timeline; then everything
// stops in order and the report builder gets what it needs.

import { loadSimulcastClips } from "../../core/clip/simulcast.ts";
import { scenarioClip } from "../../core/clip/temporal.ts";
import { monoNs, type WallAnchor } from "../../core/clock/clock.ts";
import { ClipTable, clipIdentity, createHasher } from "../../core/delay/fingerprint.ts";
import { SendLog } from "../../core/delay/sendlog.ts";
import { errorMessage } from "../../core/errors.ts";
import { host } from "../../core/redact.ts";
import type { ReferenceFigures } from "../../core/reference/figures.ts";
import type { CeilingThresholds } from "../../core/report/ceiling.ts";
import type { ReportInput } from "../../core/report/input.ts";
import type { IceOptions } from "../../net/rtc.ts";
import type { PublisherCounters } from "../observe/metrics.ts";
import { iceFor } from "../process/ice-choice.ts";
import { audioSide } from "../publisher/audio-side.ts";
import { Publisher, PublisherError, type PublisherResult } from "../publisher/publisher.ts";
import type { FrameSent } from "../publisher/send-instant.ts";
import { ReferenceViewers } from "../reference/reference-viewers.ts";
import { type HostPort, openSplitPeers } from "../split/split-peers.ts";
import {
  followedSendSide,
  type PhaseOptions,
  phaseInput,
  runMeasuredPhase,
  type SendSide,
  startClocks,
} from "./viewer-phase.ts";

export interface RunOptions extends PhaseOptions {
  command: "run" | "view";
  /** aborted on SIGINT/SIGTERM: the run ends early and the report is marked interrupted */
  interrupt: AbortSignal;
  /** publisher without abs-capture-time */
  noStamp?: boolean;
  /** every frame the publisher sent: its index and send instant (bench:truth) */
  onFrameSent?: FrameSent;
  /** the publisher's live counters (for /metrics), handed over once it exists */
  onPublisher?: (counters: PublisherCounters) => void;
  /** split runs (view): the publisher's clock responder and send-log channel */
  clockPeer?: HostPort | undefined;
  sendLogPeer?: HostPort | undefined;
  /** mid-run clock points this often (30 s by default) */
  clockIntervalMs?: number;
  /** thresholds of the ceiling verdict (tests make them tiny) */
  ceiling?: CeilingThresholds;
  /** the wall anchor to share (a many-host coordinator's clock exchange and send log read it too) */
  anchor?: WallAnchor;
  /** each reading of a reference viewer's getStats figures (docs/definitions.md#reference-viewers) */
  onReferenceFigures?: (group: string, index: number, figures: ReferenceFigures) => void;
}

export async function run(opts: RunOptions): Promise<ReportInput> {
  const clocks = startClocks(opts.anchor);
  const s = opts.scenario;
  const { ice, autoLoopback } = iceFor([s.whip, s.whep], s, opts.log);
  const send = await connectPublisher(opts, clocks.anchor, ice);
  const split = openSplitPeers(opts, send.publishing, clocks.anchor);
  const stopPublisher = new AbortController();
  const streaming =
    send.publisher && !send.publisherFailed ? send.publisher.stream(stopPublisher.signal) : null;
  const reference = ReferenceViewers.forRun({
    scenario: s,
    bearer: opts.bearer,
    log: opts.log,
    onFigures: opts.onReferenceFigures,
  });
  reference?.prepare();
  await reference?.loaded();
  const phaseOpts = reference
    ? { ...opts, onViewersStart: (ms: number) => reference.start(ms, opts.interrupt) }
    : opts;
  const measured = await runMeasuredPhase(phaseOpts, clocks, ice, send, split);
  const referenceResults = await reference?.finish();
  await split?.finish();
  stopPublisher.abort();
  const publisher: PublisherResult | null = streaming ? await streaming : (send.publisher?.result ?? null);
  const input = phaseInput({
    command: opts.command,
    interrupted: opts.interrupt.aborted,
    scenario: opts.scenario,
    workers: opts.engine.workers,
    ceiling: opts.ceiling,
    clocks,
    send,
    split,
    publisher,
    measured,
    autoLoopback,
    endMonoNs: monoNs(),
  });
  return referenceResults ? { ...input, reference: referenceResults } : input;
}

/** With `whip`: the clip, its send log and the publisher, connected (or failed, with its error). */
export async function connectPublisher(
  opts: RunOptions,
  anchor: WallAnchor,
  ice: IceOptions,
): Promise<SendSide> {
  const { scenario: s, log } = opts;
  if (s.whip === undefined || s.whip === "") return followedSendSide(null);
  const codec = s.codec === "h264" ? "h264" : "vp8";
  // simulcast: the layers' frames as one table (docs/definitions.md#simulcast-publisher)
  const layers = s.simulcast !== undefined ? loadSimulcastClips(codec, s.simulcast) : undefined;
  const clip = layers?.combined ?? scenarioClip(codec, s.clip);
  const hasher = await createHasher();
  const identity = { ...clipIdentity(hasher, clip), ...(layers ? { layers: layers.layers.length } : {}) };
  const sendLog = SendLog.create(clip.frames.length);
  const audio = audioSide(s.audio, hasher);
  const publisher = new Publisher({
    whip: s.whip,
    bearer: opts.bearer,
    clip,
    ice,
    noStamp: opts.noStamp ?? false,
    sendLog,
    anchor,
    keyframeOnRequest: s.keyframeOnRequest !== false,
    ...(audio !== null ? { audio: { clip: audio.clip, sendLog: audio.sendLog } } : {}),
    ...(opts.onFrameSent !== undefined ? { onFrameSent: opts.onFrameSent } : {}),
    ...(layers !== undefined ? { simulcast: layers } : {}),
  });
  const side: SendSide = {
    publishing: true,
    publisher,
    publisherFailed: false,
    sendLog,
    identity,
    duplicateFrames: new ClipTable(null, identity).duplicateFrames,
    audio,
  };
  opts.onPublisher?.({
    get packetsSent() {
      return publisher.result.packetsSent;
    },
    get framesSent() {
      return publisher.result.framesSent;
    },
    sendLagP99Ns: () => publisher.sendLagP99Ns(),
  });
  const what = layers
    ? `${clip.codec} simulcast (${layers.layers.map((l) => l.rid).join(", ")})`
    : clip.codec;
  log.line(`publishing ${what} to ${host(s.whip)}`);
  try {
    await publisher.connect(opts.interrupt);
    log.line(
      `publisher connected in ${Math.round(publisher.result.connectNs / 1e6)} ms; send-time stamp negotiated: ${publisher.result.stamped}`,
    );
  } catch (err) {
    side.publisherFailed = true;
    publisher.result.errorKind = err instanceof PublisherError ? err.kind : "webrtc";
    publisher.result.error = errorMessage(err);
    log.line(`publisher failed: ${publisher.result.error}`);
  }
  return side;
}
