// The WHIP publisher (docs/definitions.md#publisher-pacing): one send-only video transceiver, the
// clip looped and paced at its frame rate, RTP timestamps seamless across loops, abs-capture-time
// on every packet when the answer negotiated it, and the send log written when each frame's first
// packet is handed to the socket, after werift built and protected it
// (docs/definitions.md#send-instant); from the frame's start of sending to that instant is the
// publisher's send lag. A PLI or FIR cuts the GOP short (docs/definitions.md#keyframes-on-request);
// the send log holds each k's clip index. An audio clip goes as a second send-only track
// (audio-sender.ts).

import type { AudioClip, Clip } from "../../core/clip/clip.ts";
import { KeyframeRequests } from "../../core/clip/keyframe-requests.ts";
import { monoNs, type WallAnchor, wallOf } from "../../core/clock/clock.ts";
import { packetizeH264 } from "../../core/codec/h264.ts";
import { packetizeVp8 } from "../../core/codec/vp8.ts";
import type { SendLog } from "../../core/delay/sendlog.ts";
import { errorMessage, HttpExchangeError, PublisherError } from "../../core/errors.ts";
import { goDuration } from "../../core/go-compat/time.ts";
import type { PublisherInput } from "../../core/report/input.ts";
import { unixNsToAbsCapture } from "../../core/rtp/abs-capture-time.ts";
import {
  absCaptureId,
  filterCandidates,
  gatheringComplete,
  type IceOptions,
  newPeer,
  sendTracks,
  videoCodecs,
} from "../../net/rtc.ts";
import { onKeyframeRequest } from "../../net/rtcp-feedback.ts";
import { deleteResource, postOffer } from "../../net/sdp-http.ts";
import { tapKernelSend } from "../../net/send-stamp.ts";
import { type RTCPeerConnection, type RTCRtpTransceiver, RtpHeader } from "../../net/werift/api.ts";
import { abandonDtls } from "../../net/werift/patches.ts";
import { AudioSender } from "./audio-sender.ts";
import { sendCounted } from "./rtp-out.ts";
import { type FrameSent, type PendingFrame, SendInstants } from "./send-instant.ts";

export { PublisherError };

export const MTU = 1200;
/** POST + ICE + DTLS budget when the caller sets none (`publish --connect-timeout`, default 10 s). */
export const DEFAULT_CONNECT_TIMEOUT_NS = 10e9;
const SLIP_NS = 500e6;

export interface PublisherOptions {
  whip: string;
  bearer?: string | undefined;
  clip: Clip;
  ice: IceOptions;
  noStamp: boolean;
  sendLog: SendLog | null;
  anchor: WallAnchor;
  /** POST + ICE + DTLS budget, ns (default DEFAULT_CONNECT_TIMEOUT_NS) */
  connectTimeoutNs?: number;
  /** a PLI or FIR cuts the GOP short (default true); false: requests are only counted */
  keyframeOnRequest?: boolean;
  /** every frame sent: its absolute index, its send instant and its clip index (the send-log channel) */
  onFrameSent?: FrameSent;
  /** the audio track (docs/definitions.md#audio-track): its clip and its own send log */
  audio?: { clip: AudioClip; sendLog: SendLog | null };
}

/** The publisher's figures, the report's publisher input (docs/definitions.md#publisher-figures; ns). */
export type PublisherResult = PublisherInput;

export class Publisher {
  readonly opts: PublisherOptions;
  private pc: RTCPeerConnection | null = null;
  private tr: RTCRtpTransceiver | null = null;
  private audio: AudioSender | null = null;
  private location: string | null = null;
  private absId = 0;
  private failed = false;
  private wake: (() => void) | null = null;
  /** the send instant is taken at the socket (send-stamp.ts); false where werift's internals forbid it */
  private socketStamp = false;
  /** ends the transmit stamps' sweep of the error queue (before the socket closes) */
  private stopTx: (() => void) | null = null;
  /** the transmit stamps are on (a loop turn after connecting) */
  private txReady: Promise<void> = Promise.resolve();
  private readonly instants: SendInstants;
  readonly requests: KeyframeRequests;
  readonly result: PublisherResult;

  constructor(opts: PublisherOptions) {
    this.opts = opts;
    this.instants = new SendInstants(opts.sendLog, opts.onFrameSent);
    this.requests = new KeyframeRequests(opts.clip.keyframes, opts.keyframeOnRequest !== false);
    this.result = {
      codec: opts.clip.codec,
      stamped: false,
      connectNs: 0,
      framesSent: 0,
      packetsSent: 0,
      bytesSent: 0,
      loops: 0,
      scheduleSlips: 0,
      sendingNs: 0,
    };
  }

  /**
   * POST + ICE + DTLS within the connect timeout (10 s unless set); throws PublisherError (kind
   * per docs/definitions.md#publisher-figures). `interrupt` (SIGINT,
   * SIGTERM) ends the wait at once.
   */
  async connect(interrupt?: AbortSignal): Promise<void> {
    const { opts } = this;
    let pc: RTCPeerConnection;
    try {
      pc = newPeer(opts.ice, videoCodecs(opts.clip.codec));
      this.pc = pc;
      const a = opts.audio;
      const tracks = sendTracks(pc, a !== undefined);
      this.tr = tracks.video;
      if (a && tracks.audio) this.audio = new AudioSender(tracks.audio, a.clip, a.sendLog);
      await pc.setLocalDescription(await pc.createOffer());
      await gatheringComplete(pc, 5000);
    } catch (err) {
      throw new PublisherError("webrtc", `local WebRTC setup failed: ${errorMessage(err)}`, { cause: err });
    }
    const postNs = monoNs();
    const budgetNs = opts.connectTimeoutNs ?? DEFAULT_CONNECT_TIMEOUT_NS;
    const budget = AbortSignal.timeout(budgetNs / 1e6);
    const deadline = interrupt ? AbortSignal.any([budget, interrupt]) : budget;
    const connected = new Promise<void>((resolve, reject) => {
      pc.connectionStateChange.subscribe((state) => {
        if (state === "connected") resolve();
        if (state === "failed") {
          this.failed = true;
          this.wake?.();
          reject(new PublisherError("ice_failed", "the connection to the server failed (ICE or DTLS)"));
        }
      });
    });
    connected.catch(() => {});
    try {
      const sdp = filterCandidates(pc.localDescription?.sdp ?? "", opts.ice);
      const answer = await postOffer(opts.whip, sdp, { bearer: opts.bearer, signal: deadline });
      this.location = answer.location;
      if (answer.status === 406)
        throw new PublisherError("http_status", "the WHIP server sent a counter-offer");
      // werift accepts an answer without a video m-line (an audio one carrying the video mid):
      // it stops the transceiver and reports "connected" with nothing to send on
      if (!/^m=video [1-9]/m.test(answer.sdp))
        throw new PublisherError("bad_answer", "the WHIP answer has no video");
      if (this.audio && !/^m=audio [1-9]/m.test(answer.sdp))
        throw new PublisherError("bad_answer", "the WHIP answer has no audio (the scenario asks for audio)");
      try {
        await pc.setRemoteDescription({ type: "answer", sdp: answer.sdp });
      } catch (err) {
        throw new PublisherError("bad_answer", `the WHIP answer was refused: ${errorMessage(err)}`, {
          cause: err,
        });
      }
      await Promise.race([
        connected,
        new Promise<never>((_, reject) => {
          const fail = () =>
            reject(
              new PublisherError(
                "connect_timeout",
                budget.aborted
                  ? `not connected after ${goDuration(budgetNs)}`
                  : "not connected: the run was interrupted",
              ),
            );
          if (deadline.aborted) fail();
          else deadline.addEventListener("abort", fail, { once: true });
        }),
      ]);
    } catch (err) {
      await this.close();
      if (err instanceof PublisherError) throw err;
      if (err instanceof HttpExchangeError) throw new PublisherError(err.kind, err.message, { cause: err });
      throw new PublisherError("webrtc", errorMessage(err), { cause: err });
    }
    this.result.connectNs = monoNs() - postNs;
    const tx = tapKernelSend(this.tr, this.instants);
    this.socketStamp = tx.hooked;
    this.stopTx = tx.stop;
    this.instants.readBack = tx.readBack;
    this.txReady = tx.ready;
    this.audio?.connected();
    onKeyframeRequest(this.tr, (kind) => this.requests.request(kind));
    this.absId = absCaptureId(this.tr.headerExtensions);
    this.result.stamped = this.absId !== 0 && !opts.noStamp;
  }

  /** Streams until `stop` aborts or the connection fails; then DELETE and close. */
  async stream(stop: AbortSignal): Promise<PublisherResult> {
    const { clip, anchor } = this.opts;
    const tr = this.tr;
    const r = this.result;
    // internal: invariant, every caller awaits connect() first
    if (!tr) throw new Error("stream() before connect()");
    await this.txReady; // the first frame's stamp too
    const n = clip.frames.length;
    const frameNs = (clip.ticks / 90_000) * 1e9;
    const ssrc = (Math.random() * 0x1_0000_0000) >>> 0;
    let seq = Math.floor(Math.random() * 0x1_0000);
    const tsBase = (Math.random() * 0x1_0000_0000) >>> 0;
    let pictureId = Math.floor(Math.random() * 0x8000);
    const onStop = () => this.wake?.();
    stop.addEventListener("abort", onStop);
    const started = monoNs();
    const audio = this.audio?.run(stop, () => this.failed);
    let origin = started;
    const kf = this.requests;
    for (let k = 0, i = 0; !stop.aborted && !this.failed; k++, i = kf.next(i, monoNs())) {
      const due = origin + k * frameNs;
      let now = monoNs();
      if (now - due > SLIP_NS) {
        r.scheduleSlips++;
        origin = now - k * frameNs;
      } else if (due > now) {
        await this.sleep(due - now);
        if (stop.aborted || this.failed) break;
        now = monoNs();
      }
      const frame = clip.frames[i] as Uint8Array;
      const payloads = clip.codec === "vp8" ? packetizeVp8(frame, MTU, pictureId) : packetizeH264(frame, MTU);
      pictureId = (pictureId + 1) & 0x7fff;
      const ts = (tsBase + k * clip.ticks) >>> 0;
      const sending: PendingFrame = { k, i, ts, ssrc: tr.sender.ssrc, startNs: monoNs(), stamped: false };
      kf.sent(i);
      // the send instant: the first packet at the socket (onDatagramOut), else here
      this.instants.begin(sending, this.socketStamp);
      for (let j = 0; j < payloads.length; j++) {
        const header = new RtpHeader({
          sequenceNumber: seq,
          timestamp: ts,
          marker: j === payloads.length - 1,
          payloadType: 96,
          ssrc,
        });
        seq = (seq + 1) & 0xffff;
        if (r.stamped) {
          const ext = Buffer.alloc(8);
          const at = monoNs();
          if (j === 0) sending.captureNs = at;
          unixNsToAbsCapture(wallOf(anchor, at), ext);
          header.extension = true;
          header.extensions = [{ id: this.absId, payload: ext }];
        }
        await sendCounted(tr, header, payloads[j] as Uint8Array, r);
      }
      // no packet of it reached the socket (a closing connection): logged, for a complete log
      this.instants.end(sending);
      r.framesSent++;
    }
    stop.removeEventListener("abort", onStop);
    if (audio) r.audio = await audio;
    this.instants.finish();
    r.sendStamps = this.instants.stamps;
    const lag = this.instants.sendLag;
    if (lag.count > 0) r.sendLagHist = lag.encode();
    if (this.instants.captureLead.count > 0) r.captureLeadHist = this.instants.captureLead.encode();
    r.sendingNs = monoNs() - started;
    r.loops = Math.floor(r.framesSent / n);
    r.pliReceived = kf.pliReceived;
    r.firReceived = kf.firReceived;
    r.keyframesOnRequest = kf.keyframesOnRequest;
    if (this.failed) {
      r.errorKind = "disconnected";
      r.error = "the server connection dropped while publishing";
      r.disconnectedLate = true;
    }
    await this.close();
    return r;
  }

  /** p99 of the send lag so far (ns), null before any frame was stamped at the socket. */
  sendLagP99Ns(): number | null {
    const lag = this.instants.sendLag;
    return lag.count > 0 ? lag.quantileNs(99) : null;
  }

  private sleep(ns: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(done, Math.max(0, ns / 1e6));
      function done() {
        clearTimeout(t);
        resolve();
      }
      this.wake = done;
    });
  }

  async close(): Promise<void> {
    const pc = this.pc;
    this.pc = null;
    if (!pc) return;
    this.stopTx?.();
    await deleteResource(this.location, { bearer: this.opts.bearer });
    abandonDtls(pc);
    await pc.close().catch(() => {});
  }
}
