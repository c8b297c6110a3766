// How a viewer's inbound media reaches its pipeline: werift's receive path (track.onReceiveRtp,
// werift's SRTP, RTP parsing, receiver reports), the lean path (src/workers/lean: our SRTP
// unprotect, header fields read in place, our receiver reports) or the arena path (the lean
// pipeline, its sockets read in batches by the thread's arena reader, arena-reader.ts). On both,
// the thread's intake (intake.ts) stamps each media datagram when it reaches JavaScript and queues
// the work; both feed the same pipeline call, and NACK with the same generator (lean/nack.ts), so
// the figures of one stream are the same on either (test/e2e/receive-path.test.ts).

import { monoNs } from "../../core/clock/clock.ts";
import type { ViewerPipeline } from "../../core/delay/viewer-pipeline.ts";
import { absCaptureToUnixNs } from "../../core/rtp/abs-capture-time.ts";
import { SRTP_AEAD_AES_128_GCM } from "../../core/srtp/kdf.ts";
import { ABS_CAPTURE_TIME_URI, absCaptureId } from "../../net/rtc.ts";
import type { MediaStreamTrack, RTCPeerConnection, RTCRtpTransceiver } from "../../net/werift/api.ts";
import { silenceWeriftNack } from "../../net/werift/srtp-start.ts";
import type { WeriftInternalsError } from "../../net/werift/version.ts";
import type { ReceivePath } from "../protocol.ts";
import { type DatagramHandler, intake } from "./intake.ts";
import { NackGenerator } from "./nack.ts";
import { NackSender } from "./nack-sender.ts";
import { type AudioPacketSink, LeanReceiver } from "./receiver.ts";
import { claimMedia, releaseMedia, transceiverRtcpSender } from "./werift-claim.ts";

/**
 * What the lean and arena paths of this thread did (tests and diagnostics): sessions taken over,
 * by SRTP profile and by who unprotects, the highest rollover counter reached, packets rejected
 * by SRTP, receiver reports sent. Written only when a session starts and when it closes.
 */
export interface LeanDiagnostics {
  sessions: number;
  gcm: number;
  cm: number;
  openssl: number;
  maxRoc: number;
  srtpRejected: number;
  reportsSent: number;
}

const diagnostics: LeanDiagnostics = {
  sessions: 0,
  gcm: 0,
  cm: 0,
  openssl: 0,
  maxRoc: 0,
  srtpRejected: 0,
  reportsSent: 0,
};

/** This thread's lean-path diagnostics so far (a copy). */
export function leanDiagnostics(): Readonly<LeanDiagnostics> {
  return { ...diagnostics };
}

function sessionStarted(profile: number, rx: LeanReceiver): void {
  diagnostics.sessions++;
  if (profile === SRTP_AEAD_AES_128_GCM) diagnostics.gcm++;
  else diagnostics.cm++;
  if (rx.srtpBackend === "openssl") diagnostics.openssl++;
}

function sessionClosed(rx: LeanReceiver): void {
  diagnostics.maxRoc = Math.max(diagnostics.maxRoc, rx.maxRoc);
  diagnostics.srtpRejected += rx.dropped.srtp;
  diagnostics.reportsSent += rx.reportsSent;
}

export interface ReceiveOptions {
  /** shard-wide packet and payload-byte counters */
  counters: { packets: number; bytes: number };
  /** the viewer's pipeline, made once the codec is known */
  pipelineFor: (codec: string) => ViewerPipeline;
  /** after every packet (join detection) */
  afterPacket: () => void;
  /** one NACK message written */
  onNack: () => void;
  /** the lean hook could not take over (werift internals moved) */
  onError: (err: Error) => void;
  /** the viewer's emulated downlink around its datagram handler (docs/definitions.md#link-emulator) */
  wrapDown?: (h: DatagramHandler) => DatagramHandler;
  /** the audio track's transceiver and where its packets go (docs/definitions.md#audio-track) */
  audio?: { tr: RTCRtpTransceiver; sink: AudioSink };
}

/**
 * An audio packet, as the video's reach their pipeline (no abs-capture-time: the audio track
 * carries none).
 */
export type AudioSink = AudioPacketSink;

export interface ReceiveHandle {
  readonly path: ReceivePath;
  close(): void;
}

/** Installs the path on a transceiver just added (before signalling). Throws WeriftInternalsError. */
export function installReceivePath(
  path: ReceivePath,
  pc: RTCPeerConnection,
  tr: RTCRtpTransceiver,
  opts: ReceiveOptions,
): ReceiveHandle {
  return path === "werift" ? installWerift(pc, tr, opts) : installLean(tr, opts, path === "arena");
}

function codecName(mime: string): string {
  const m = mime.toLowerCase();
  return m.startsWith("video/") ? m.slice(6) : m;
}

function installWerift(pc: RTCPeerConnection, tr: RTCRtpTransceiver, opts: ReceiveOptions): ReceiveHandle {
  silenceWeriftNack(tr);
  claimMedia(tr, { kind: "stamp", ...(opts.wrapDown !== undefined ? { wrap: opts.wrapDown } : {}) });
  let pipeline: ViewerPipeline | null = null;
  const rtcp = transceiverRtcpSender(tr);
  const keyframes = () => pipeline?.render ?? null;
  const nack = new NackSender(new NackGenerator(), rtcp, tr.receiver.rtcpSsrc, opts.onNack, keyframes);
  let taken = false;
  const receiveTrack = (track: MediaStreamTrack) => {
    if (taken) return;
    taken = true;
    const p = opts.pipelineFor(codecName(track.codec?.mimeType ?? tr.codecs[0]?.mimeType ?? ""));
    pipeline = p;
    const counters = opts.counters;
    track.onReceiveRtp.subscribe((rtp, ext) => {
      // stamped by the intake; werift decrypts and emits within the intake's dispatch
      const stamped = intake.dispatchingArrivalNs;
      const arrivalNs = stamped >= 0 ? stamped : monoNs();
      const abs = ext?.[ABS_CAPTURE_TIME_URI];
      const captureWallNs = Buffer.isBuffer(abs) ? absCaptureToUnixNs(abs) : -1;
      const h = rtp.header;
      counters.packets++;
      counters.bytes += rtp.payload.length;
      nack.onPacket(h.ssrc, h.sequenceNumber, arrivalNs);
      p.onPacket(h.sequenceNumber, h.timestamp, h.marker, rtp.payload, arrivalNs, captureWallNs);
      nack.afterPacket(arrivalNs);
      opts.afterPacket();
    });
  };
  const audio = opts.audio;
  // no NACK for audio on any path (docs/definitions.md#audio-track): werift's own generator too
  if (audio !== undefined) silenceWeriftNack(audio.tr);
  const takeAudio = (track: MediaStreamTrack) => {
    track.onReceiveRtp.subscribe((rtp) => {
      const stamped = intake.dispatchingArrivalNs;
      const h = rtp.header;
      audio?.sink(h.sequenceNumber, h.timestamp, h.marker, rtp.payload, stamped >= 0 ? stamped : monoNs());
    });
  };
  let audioTaken = false;
  pc.onTrack.subscribe((track) => {
    if (track.kind !== "audio") receiveTrack(track);
    else if (audio !== undefined && !audioTaken) {
      audioTaken = true;
      takeAudio(track);
    }
  });
  // a transceiver made by a remote offer already has its track
  const existing = tr.receiver.tracks[0];
  if (existing) receiveTrack(existing);
  const existingAudio = audio?.tr.receiver.tracks[0];
  if (existingAudio && !audioTaken) {
    audioTaken = true;
    takeAudio(existingAudio);
  }
  return {
    path: "werift",
    close: () => {
      releaseMedia(tr);
      nack.close();
    },
  };
}

function installLean(tr: RTCRtpTransceiver, opts: ReceiveOptions, arena: boolean): ReceiveHandle {
  let rx: LeanReceiver | null = null;
  let closed = false;
  claimMedia(tr, {
    arena,
    ...(opts.wrapDown !== undefined ? { wrap: opts.wrapDown } : {}),
    start(keys, sendRtcp) {
      const codecs = tr.codecs;
      const pipeline = opts.pipelineFor(codecName(codecs[0]?.mimeType ?? ""));
      // the arena path hands the pipeline views of its arena, decrypted in place
      if (arena) pipeline.reusesPayloads();
      const counters = opts.counters;
      const after = opts.afterPacket;
      const r = new LeanReceiver({
        ...keys,
        inPlace: arena,
        payloadTypes: codecs.map((c) => c.payloadType),
        clockRate: codecs[0]?.clockRate ?? 90000,
        absId: absCaptureId(tr.headerExtensions),
        senderSsrc: tr.receiver.rtcpSsrc,
        sendRtcp,
        onNack: opts.onNack,
        keyframes: () => pipeline.render,
        ...(opts.audio !== undefined
          ? { audio: { payloadTypes: opts.audio.tr.codecs.map((c) => c.payloadType), sink: opts.audio.sink } }
          : {}),
        sink: (seq, ts, marker, payload, arrivalNs, captureWallNs) => {
          counters.packets++;
          counters.bytes += payload.length;
          pipeline.onPacket(seq, ts, marker, payload, arrivalNs, captureWallNs);
          after();
        },
      });
      rx = r;
      sessionStarted(keys.profile, r);
      if (closed) r.close();
      return r.onDatagram;
    },
    fail(err: WeriftInternalsError) {
      opts.onError(err);
    },
  });
  return {
    path: arena ? "arena" : "lean",
    close() {
      closed = true;
      releaseMedia(tr);
      if (rx !== null) {
        rx.close();
        sessionClosed(rx);
      }
    },
  };
}
