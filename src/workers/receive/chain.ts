// A viewer's receive chain, written as a list (stages.ts ChainPlan) in one place per path
// (buildReceiveChain) and folded in one loop (stages.ts foldChain) when the viewer's SRTP starts,
// in the manner of pion's interceptor registry. From the socket to the histogram, one media
// datagram goes:
//   source (werift-claim.ts): read in batches by the thread's arena reader (arena-reader.ts,
//     arena path: processed at once, the intake only counts it), or stamped and queued by the
//     thread's intake beneath werift's UDP transport (intake.ts, lean and werift paths);
//   1. link (link.ts): the viewer's emulated downlink, where it has one;
//   2. SRTP and RTP: ours (receiver.ts: our unprotect from src/net/srtp/, the header fields read
//      in place, reception statistics, NACK, receiver reports) on the lean and arena paths,
//      werift's (werift-stage.ts, with our NACK and transport feedback) on werift's;
//   3. the pipeline's feed (stages.ts PipelineStage), until the viewer's end, into the viewer's
//      pipeline (src/core/delay/viewer-pipeline.ts) and its histograms; the audio track's packets
//      leave step 2 for a last stage of their own (stages.ts AudioStage, the viewer's audio sink).
// Every path feeds the same pipeline call and NACKs with the same generator (nack.ts), so the
// figures of one stream are the same on each (test/e2e/receive-path.test.ts;
// docs/definitions.md#receive-paths). The thread's shared things come in its context (../thread.ts).
import type { ViewerPipeline } from "../../core/delay/viewer-pipeline.ts";
import type { ViewerProfile } from "../../core/scenario/defaults.ts";
import { SRTP_AEAD_AES_128_GCM } from "../../core/srtp/kdf.ts";
import { absCaptureId, type IceOptions } from "../../net/rtc.ts";
import type { RTCPeerConnection, RTCRtpTransceiver } from "../../net/werift/api.ts";
import { silenceWeriftNack, silenceWeriftTwcc } from "../../net/werift/srtp-start.ts";
import type { ReceivePath } from "../protocol.ts";
import type { OwnSrtpDiagnostics, ViewerThread } from "../thread.ts";
import type { ViewerLink } from "./link.ts";
import { NackGenerator } from "./nack.ts";
import { NackSender } from "./nack-sender.ts";
import {
  codecName,
  dependencyDescriptorId,
  mediaCodecs,
  rtxPayloadTypes,
  rtxTimeMs,
  transportCcId,
} from "./negotiated.ts";
import { OwnSrtpStage } from "./receiver.ts";
import {
  type AudioPacketSink,
  AudioStage,
  type ChainPlan,
  type FoldedChain,
  foldChain,
  type PacketStage,
  PipelineStage,
  type ReceiveStage,
  type StageFactory,
} from "./stages.ts";
import { TwccSender } from "./twcc-sender.ts";
import { claimMedia, transceiverRtcpSender } from "./werift-claim.ts";
import { WeriftSrtpStage } from "./werift-stage.ts";

export interface ChainOptions {
  /** shard-wide packet and payload-byte counters */
  counters: { packets: number; bytes: number };
  /** the viewer's pipeline, made once the codec is known */
  pipelineFor: (codec: string) => ViewerPipeline;
  /** after every packet (join detection) */
  afterPacket: () => void;
  /** one NACK message written */
  onNack: () => void;
  /** one transport feedback message written (docs/definitions.md#transport-feedback) */
  onTransportFeedback: () => void;
  /** one retransmission received on the RTX payload type (docs/definitions.md#viewer-profile) */
  onRtx: () => void;
  /** our SRTP could not take over (werift internals moved) */
  onError: (err: Error) => void;
  /** what the viewer offers and honours; its RTCP follows it (docs/definitions.md#viewer-profile) */
  viewerProfile: ViewerProfile;
  /** the viewer's emulated link (docs/definitions.md#link-emulator); null: unimpaired */
  link: ViewerLink | null;
  /** the viewer's ICE options (the arena path may put its host candidate on the shared socket) */
  ice: IceOptions;
  /** the audio track's transceiver and where its packets go (docs/definitions.md#audio-track) */
  audio?: { tr: RTCRtpTransceiver; sink: AudioSink };
}

/** An audio packet, as the video's reach their pipeline (no abs-capture-time: audio carries none). */
export type AudioSink = AudioPacketSink;

export interface ReceiveChain {
  readonly path: ReceivePath;
  /** The viewer's end (monotonic ns): no packet that arrives after it reaches the pipeline. */
  stop(endNs: number): void;
  close(): void;
}

/**
 * Builds a viewer's chain on a transceiver just added (before signalling): its list, and the claim
 * that folds it when SRTP starts. Throws WeriftInternalsError.
 */
export function buildReceiveChain(
  thread: ViewerThread,
  path: ReceivePath,
  pc: RTCPeerConnection,
  tr: RTCRtpTransceiver,
  opts: ChainOptions,
): ReceiveChain {
  const feed = new PipelineStage(opts);
  const audio = opts.audio !== undefined ? new AudioStage(opts.audio.sink) : null;
  const link = opts.link;
  const datagram: StageFactory<ReceiveStage>[] = link !== null ? [(next) => link.downStage(next)] : [];
  const ours = path !== "werift";
  const rtp = ours
    ? ownSrtp(thread, path === "arena", tr, { feed, audio }, opts)
    : weriftSrtp(thread, pc, tr, { feed, audio }, opts);
  const plan: ChainPlan = { datagram, rtp: rtp.factory, last: feed, audio };
  let folded: FoldedChain | null = null;
  let closed = false;
  // the source: before the peer gathers, its host candidate may go on the thread's shared socket
  if (path === "arena") thread.sharing.offer(pc, opts.ice);
  const release = claimMedia(tr, {
    thread,
    srtp: ours ? "ours" : "werift",
    arena: path === "arena",
    head: (start) => {
      const f = foldChain(plan, start);
      folded = f;
      if (closed) f.close();
      return f.head;
    },
    fail: (err) => opts.onError(err),
  });
  return {
    path,
    stop: (endNs) => feed.stop(endNs),
    close() {
      closed = true;
      release();
      folded?.close();
      rtp.closed();
      audio?.close();
    },
  };
}

/** The chain's last stages: the video's, and the audio track's where there is one. */
interface LastStages {
  feed: PipelineStage;
  audio: AudioStage | null;
}

/** The SRTP and RTP stage of a path: its factory, and what its chain's close adds. */
interface RtpStagePlan {
  factory: StageFactory<PacketStage>;
  closed(): void;
}

/** Ours (lean and arena paths): made when DTLS is up and the keys are known. */
function ownSrtp(
  thread: ViewerThread,
  arena: boolean,
  tr: RTCRtpTransceiver,
  { feed, audio }: LastStages,
  opts: ChainOptions,
): RtpStagePlan {
  let rx: OwnSrtpStage | null = null;
  const keyframes = () => feed.current?.render ?? null;
  const factory: StageFactory<PacketStage> = (next, start) => {
    // internal: invariant, the claim made below with srtp "ours" starts with the keys
    if (start.srtp !== "ours") throw new Error("our SRTP stage folded without the remote keys");
    const { keys, sendRtcp } = start;
    const codecs = mediaCodecs(tr);
    const pipeline = negotiatedPipeline(opts, tr, codecs[0]?.mimeType ?? "");
    // the arena path hands the pipeline views of its arena, decrypted in place: pending frames
    // keep copies in the thread's payload chunks
    if (arena) pipeline.reusesPayloads(thread.payloads);
    feed.feed(pipeline);
    const audioTr = opts.audio?.tr;
    const r = new OwnSrtpStage({
      ...keys,
      inPlace: arena,
      payloadTypes: codecs.map((c) => c.payloadType),
      clockRate: codecs[0]?.clockRate ?? 90000,
      absId: absCaptureId(tr.headerExtensions),
      twccId: transportCcId(tr),
      ddId: dependencyDescriptorId(tr),
      onDescriptor: descriptorSink(pipeline),
      rtxPayloadTypes: rtxPayloadTypes(tr),
      senderSsrc: tr.receiver.rtcpSsrc,
      sendRtcp,
      onNack: opts.onNack,
      onTransportFeedback: opts.onTransportFeedback,
      onRtx: opts.onRtx,
      keyframes,
      viewerProfile: opts.viewerProfile,
      timerDone: () => thread.intake.mark(),
      ...(audioTr !== undefined && audio !== null
        ? { audio: { payloadTypes: audioTr.codecs.map((c) => c.payloadType), next: audio } }
        : {}),
      next,
    });
    rx = r;
    sessionStarted(thread.diagnostics, keys.profile, r);
    return r;
  };
  return {
    factory,
    closed: () => {
      if (rx !== null) sessionClosed(thread.diagnostics, rx);
    },
  };
}

/** Where a packet's dependency descriptor goes: the pipeline's render model (its generic finder). */
function descriptorSink(
  pipeline: ViewerPipeline,
): (seq: number, b: Uint8Array, off: number, len: number) => void {
  return (seq, b, off, len) => pipeline.render.model?.descriptor(seq, b, off, len);
}

/**
 * The viewer's pipeline for the negotiated codec, its keyframe waits set by the answer's rtx-time
 * (libwebrtc's NACK history: docs/definitions.md#keyframe-requests).
 */
function negotiatedPipeline(opts: ChainOptions, tr: RTCRtpTransceiver, mime: string): ViewerPipeline {
  const pipeline = opts.pipelineFor(codecName(mime));
  pipeline.render.requests.nackHistory(rtxTimeMs(tr));
  return pipeline;
}

/** werift's (werift path): werift's own silenced where ours stand in, made with the transceiver. */
function weriftSrtp(
  thread: ViewerThread,
  pc: RTCPeerConnection,
  tr: RTCRtpTransceiver,
  last: LastStages,
  opts: ChainOptions,
): RtpStagePlan {
  const feed = last.feed;
  silenceWeriftNack(tr);
  // no NACK for audio on any path (docs/definitions.md#audio-track): werift's own generator too
  if (opts.audio !== undefined) silenceWeriftNack(opts.audio.tr);
  const rtcp = transceiverRtcpSender(tr);
  const timerDone = () => thread.intake.mark();
  const keyframes = () => feed.current?.render ?? null;
  const nack = new NackSender(
    new NackGenerator(),
    rtcp,
    tr.receiver.rtcpSsrc,
    opts.onNack,
    keyframes,
    timerDone,
  );
  // transport feedback from our stamps where transport-cc was negotiated; werift's is silenced
  silenceWeriftTwcc(tr);
  const twcc = new TwccSender(rtcp, tr.receiver.rtcpSsrc, opts.onTransportFeedback, timerDone);
  const werift = new WeriftSrtpStage(nack, twcc, opts.onRtx);
  takeTracks(pc, tr, werift, last, opts);
  return {
    factory: (next, start) => werift.bind(start.srtp === "werift" ? start.dispatch : null, next),
    // werift's stage made before SRTP started: its chain may close without folding
    closed: () => werift.close(),
  };
}

/** werift's path: the video track (made once the codec is known) and the audio track to the stage. */
function takeTracks(
  pc: RTCPeerConnection,
  tr: RTCRtpTransceiver,
  werift: WeriftSrtpStage,
  { feed, audio: audioStage }: LastStages,
  opts: ChainOptions,
): void {
  let taken = false;
  let audioTaken = false;
  const audio = opts.audio;
  const video = (track: Parameters<WeriftSrtpStage["takeVideo"]>[0]) => {
    if (taken) return;
    taken = true;
    const pipeline = negotiatedPipeline(opts, tr, track.codec?.mimeType ?? tr.codecs[0]?.mimeType ?? "");
    feed.feed(pipeline);
    const dd = dependencyDescriptorId(tr) !== 0 ? descriptorSink(pipeline) : null;
    werift.takeVideo(track, transportCcId(tr) !== 0, rtxPayloadTypes(tr), dd);
  };
  const sound = (track: Parameters<WeriftSrtpStage["takeAudio"]>[0]) => {
    if (audioStage === null || audioTaken) return;
    audioTaken = true;
    werift.takeAudio(track, audioStage);
  };
  pc.onTrack.subscribe((track) => (track.kind !== "audio" ? video(track) : sound(track)));
  // a transceiver made by a remote offer already has its track
  const existing = tr.receiver.tracks[0];
  if (existing) video(existing);
  const existingAudio = audio?.tr.receiver.tracks[0];
  if (existingAudio) sound(existingAudio);
}

function sessionStarted(d: OwnSrtpDiagnostics, profile: number, rx: OwnSrtpStage): void {
  d.sessions++;
  if (profile === SRTP_AEAD_AES_128_GCM) d.gcm++;
  else d.cm++;
  if (rx.srtpBackend === "openssl") d.openssl++;
}

function sessionClosed(d: OwnSrtpDiagnostics, rx: OwnSrtpStage): void {
  d.maxRoc = Math.max(d.maxRoc, rx.maxRoc);
  d.srtpRejected += rx.dropped.srtp;
  d.reportsSent += rx.reportsSent;
}
