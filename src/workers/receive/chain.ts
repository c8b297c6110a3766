// A viewer's receive chain, built in one place (buildReceiveChain), in the manner of pion's
// interceptors: each stage takes a datagram, its length and its arrival instant (stages.ts) and
// hands it on. From the socket to the histogram, one media datagram goes:
//   1. source (werift-claim.ts): read in batches by the thread's arena reader (arena-reader.ts,
//      arena path: processed at once, the intake only counts it), or stamped and queued by the
//      thread's intake beneath werift's UDP transport (intake.ts, lean and werift paths);
//   2. link (link.ts): the viewer's emulated downlink, where it has one;
//   3. SRTP and RTP (receiver.ts: our unprotect from src/net/srtp/, the header fields read in
//      place, reception statistics, NACK, receiver reports; werift-stage.ts on werift's path);
//   4. the pipeline's feed (stages.ts PipelineStage), until the viewer's end, into the viewer's
//      pipeline (src/core/delay/viewer-pipeline.ts) and its histograms.
// Every path feeds the same pipeline call and NACKs with the same generator (nack.ts), so the
// figures of one stream are the same on each (test/e2e/receive-path.test.ts;
// docs/definitions.md#receive-paths). The thread's shared things come in its context (../thread.ts).
import type { ViewerPipeline } from "../../core/delay/viewer-pipeline.ts";
import { SRTP_AEAD_AES_128_GCM } from "../../core/srtp/kdf.ts";
import { absCaptureId, extensionId, type IceOptions, TRANSPORT_CC_URI } from "../../net/rtc.ts";
import type { RTCPeerConnection, RTCRtpTransceiver } from "../../net/werift/api.ts";
import { silenceWeriftNack, silenceWeriftTwcc } from "../../net/werift/srtp-start.ts";
import type { ReceivePath } from "../protocol.ts";
import type { LeanDiagnostics, ViewerThread } from "../thread.ts";
import type { ViewerLink } from "./link.ts";
import { NackGenerator } from "./nack.ts";
import { NackSender } from "./nack-sender.ts";
import { LeanReceiver } from "./receiver.ts";
import { type AudioPacketSink, PipelineStage, type ReceiveStage } from "./stages.ts";
import { TwccSender } from "./twcc-sender.ts";
import { claimMedia, type LeanKeys, releaseMedia, transceiverRtcpSender } from "./werift-claim.ts";
import { WeriftStage } from "./werift-stage.ts";

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
  /** the lean hook could not take over (werift internals moved) */
  onError: (err: Error) => void;
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

function isRtx(mime: string): boolean {
  return mime.toLowerCase() === "video/rtx";
}

/**
 * The transport-wide sequence number's extension id where transport-cc was negotiated (the
 * feedback type on the media codec and the extension both, as libwebrtc requires), else 0.
 */
export function transportCcId(tr: RTCRtpTransceiver): number {
  const media = tr.codecs.find((c) => !isRtx(c.mimeType));
  if (media?.rtcpFeedback.some((f) => f.type === "transport-cc") !== true) return 0;
  return extensionId(tr.headerExtensions, TRANSPORT_CC_URI);
}

/** The negotiated rtx codecs' payload types (RFC 4588), none where rtx was not negotiated. */
function rtxPayloadTypes(tr: RTCRtpTransceiver): number[] {
  return tr.codecs.filter((c) => isRtx(c.mimeType)).map((c) => c.payloadType);
}

function codecName(mime: string): string {
  const m = mime.toLowerCase();
  return m.startsWith("video/") ? m.slice(6) : m;
}

/**
 * Builds a viewer's chain on a transceiver just added (before signalling), the innermost stage
 * first and the source last. Throws WeriftInternalsError.
 */
export function buildReceiveChain(
  thread: ViewerThread,
  path: ReceivePath,
  pc: RTCPeerConnection,
  tr: RTCRtpTransceiver,
  opts: ChainOptions,
): ReceiveChain {
  // 4. the pipeline's feed
  const feed = new PipelineStage(opts);
  const keyframes = () => feed.current?.render ?? null;
  // 2. the emulated downlink in front of a stage (the stage itself where the link is transparent)
  const linked = (s: ReceiveStage): ReceiveStage => opts.link?.downStage(s) ?? s;
  const timerDone = () => thread.intake.mark();
  if (path === "werift") {
    silenceWeriftNack(tr);
    // no NACK for audio on any path (docs/definitions.md#audio-track): werift's own generator too
    if (opts.audio !== undefined) silenceWeriftNack(opts.audio.tr);
    // 3. werift's SRTP and RTP, our NACK
    const rtcp = transceiverRtcpSender(tr);
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
    const werift = new WeriftStage(nack, feed.packet, twcc, opts.onRtx);
    takeTracks(pc, tr, werift, feed, opts);
    // 1. the source: stamped and queued, then werift's own dispatch behind the link
    claimMedia(tr, { kind: "stamp", thread, head: (exec) => linked(werift.attach(exec)) });
    return {
      path,
      stop: (endNs) => feed.stop(endNs),
      close: () => {
        releaseMedia(tr);
        nack.close();
        twcc.close();
      },
    };
  }
  const arena = path === "arena";
  let rx: LeanReceiver | null = null;
  let closed = false;
  // 3. our SRTP and RTP, made when DTLS is up and the keys are known
  const start = (keys: LeanKeys, sendRtcp: (rtcp: Buffer) => void): ReceiveStage => {
    const codecs = tr.codecs.filter((c) => !isRtx(c.mimeType));
    const rtx = rtxPayloadTypes(tr);
    const pipeline = opts.pipelineFor(codecName(codecs[0]?.mimeType ?? ""));
    // the arena path hands the pipeline views of its arena, decrypted in place: pending frames
    // keep copies in the thread's payload chunks
    if (arena) pipeline.reusesPayloads(thread.payloads);
    feed.feed(pipeline);
    const audio = opts.audio;
    const r = new LeanReceiver({
      ...keys,
      inPlace: arena,
      payloadTypes: codecs.map((c) => c.payloadType),
      clockRate: codecs[0]?.clockRate ?? 90000,
      absId: absCaptureId(tr.headerExtensions),
      twccId: transportCcId(tr),
      rtxPayloadTypes: rtx,
      senderSsrc: tr.receiver.rtcpSsrc,
      sendRtcp,
      onNack: opts.onNack,
      onTransportFeedback: opts.onTransportFeedback,
      onRtx: opts.onRtx,
      keyframes,
      timerDone,
      ...(audio !== undefined
        ? { audio: { payloadTypes: audio.tr.codecs.map((c) => c.payloadType), sink: audio.sink } }
        : {}),
      sink: feed.packet,
    });
    rx = r;
    sessionStarted(thread.diagnostics, keys.profile, r);
    if (closed) r.close();
    return linked(r);
  };
  // 1. the source: before the peer gathers, its host candidate may go on the thread's shared socket
  if (arena) thread.sharing.offer(pc, opts.ice);
  claimMedia(tr, { kind: "lean", thread, arena, start, fail: (err) => opts.onError(err) });
  return {
    path,
    stop: (endNs) => feed.stop(endNs),
    close() {
      closed = true;
      releaseMedia(tr);
      if (rx !== null) {
        rx.close();
        sessionClosed(thread.diagnostics, rx);
      }
    },
  };
}

/** werift's path: the video track (made once the codec is known) and the audio track to the stage. */
function takeTracks(
  pc: RTCPeerConnection,
  tr: RTCRtpTransceiver,
  werift: WeriftStage,
  feed: PipelineStage,
  opts: ChainOptions,
): void {
  let taken = false;
  let audioTaken = false;
  const audio = opts.audio;
  const video = (track: Parameters<WeriftStage["takeVideo"]>[0]) => {
    if (taken) return;
    taken = true;
    feed.feed(opts.pipelineFor(codecName(track.codec?.mimeType ?? tr.codecs[0]?.mimeType ?? "")));
    werift.takeVideo(track, transportCcId(tr) !== 0, rtxPayloadTypes(tr));
  };
  const sound = (track: Parameters<WeriftStage["takeAudio"]>[0]) => {
    if (audio === undefined || audioTaken) return;
    audioTaken = true;
    werift.takeAudio(track, audio.sink);
  };
  pc.onTrack.subscribe((track) => (track.kind !== "audio" ? video(track) : sound(track)));
  // a transceiver made by a remote offer already has its track
  const existing = tr.receiver.tracks[0];
  if (existing) video(existing);
  const existingAudio = audio?.tr.receiver.tracks[0];
  if (existingAudio) sound(existingAudio);
}

function sessionStarted(d: LeanDiagnostics, profile: number, rx: LeanReceiver): void {
  d.sessions++;
  if (profile === SRTP_AEAD_AES_128_GCM) d.gcm++;
  else d.cm++;
  if (rx.srtpBackend === "openssl") d.openssl++;
}

function sessionClosed(d: LeanDiagnostics, rx: LeanReceiver): void {
  d.maxRoc = Math.max(d.maxRoc, rx.maxRoc);
  d.srtpRejected += rx.dropped.srtp;
  d.reportsSent += rx.reportsSent;
}
