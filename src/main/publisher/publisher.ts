// The WHIP publisher (docs/definitions.md#publisher-pacing): one send-only video transceiver, the
// clip looped and paced at its frame rate, RTP timestamps seamless across loops, abs-capture-time
// on every packet when the answer negotiated it, and the send log written when each frame's first
// packet is handed to the socket, after werift built and protected it
// (docs/definitions.md#send-instant); from the frame's start of sending to that instant is the
// publisher's send lag. A PLI or FIR cuts the GOP short (docs/definitions.md#keyframes-on-request);
// the send log holds each k's clip index. An audio clip goes as a second send-only track
// (audio-sender.ts). With simulcast layers each frame goes out on every layer
// (simulcast-layers.ts, docs/definitions.md#simulcast-publisher).

import type { AudioClip, Clip } from "../../core/clip/clip.ts";
import { KeyframeRequests } from "../../core/clip/keyframe-requests.ts";
import type { SimulcastClips } from "../../core/clip/simulcast.ts";
import { monoNs, type WallAnchor } from "../../core/clock/clock.ts";
import type { SendLog } from "../../core/delay/sendlog.ts";
import { errorMessage, HttpExchangeError, PublisherError } from "../../core/errors.ts";
import { goDuration } from "../../core/go-compat/time.ts";
import type { PublisherInput } from "../../core/report/input.ts";
import {
  absCaptureId,
  filterCandidates,
  gatheringComplete,
  type IceOptions,
  newPeer,
  ridOnlyOffer,
  SIMULCAST_EXTENSIONS,
  sendTracks,
  videoCodecs,
} from "../../net/rtc.ts";
import { onKeyframeRequest } from "../../net/rtcp-feedback.ts";
import { deleteResource, postOffer } from "../../net/sdp-http.ts";
import { tapKernelSend } from "../../net/send-stamp.ts";
import type { RTCPeerConnection, RTCRtpTransceiver } from "../../net/werift/api.ts";
import { abandonDtls } from "../../net/werift/patches.ts";
import { checkAnswer } from "./answer-checks.ts";
import { AudioSender } from "./audio-sender.ts";
import { newEncoding, packetize, sendPackets } from "./rtp-out.ts";
import { type FrameSent, type PendingFrame, SendInstants } from "./send-instant.ts";
import { layerWire, SimulcastLayers } from "./simulcast-layers.ts";

export { MTU } from "./rtp-out.ts";
export { PublisherError };
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
  /** simulcast: these layers instead of `clip`, which is then their combined table (`combined`) */
  simulcast?: SimulcastClips;
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
  readonly layers: SimulcastLayers | null;
  readonly result: PublisherResult;

  constructor(opts: PublisherOptions) {
    this.opts = opts;
    this.instants = new SendInstants(opts.sendLog, opts.onFrameSent);
    this.requests = new KeyframeRequests(opts.clip.keyframes, opts.keyframeOnRequest !== false);
    const sc = opts.simulcast;
    this.layers = sc !== undefined ? new SimulcastLayers(sc, opts.keyframeOnRequest !== false) : null;
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
      pc = newPeer(
        opts.ice,
        videoCodecs(opts.clip.codec),
        this.layers !== null ? SIMULCAST_EXTENSIONS : undefined,
      );
      this.pc = pc;
      const a = opts.audio;
      const tracks = sendTracks(pc, a !== undefined, this.layers?.layers.map((l) => l.rid) ?? []);
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
      const local = filterCandidates(pc.localDescription?.sdp ?? "", opts.ice);
      const sdp = this.layers !== null ? ridOnlyOffer(local) : local;
      const answer = await postOffer(opts.whip, sdp, { bearer: opts.bearer, signal: deadline });
      this.location = answer.location;
      checkAnswer(answer, this.audio !== null, this.layers !== null);
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
    const layers = this.layers;
    onKeyframeRequest(this.tr, (kind, ssrc) =>
      layers !== null ? layers.request(kind, ssrc) : this.requests.request(kind),
    );
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
    const one = newEncoding();
    const tsBase = (Math.random() * 0x1_0000_0000) >>> 0;
    const onStop = () => this.wake?.();
    stop.addEventListener("abort", onStop);
    const started = monoNs();
    const audio = this.audio?.run(stop, () => this.failed);
    let origin = started;
    const kf = this.requests;
    const layers = this.layers;
    const wire = layers !== null ? layerWire(tr, r.stamped ? this.absId : 0, anchor) : null;
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
      if (layers !== null && wire !== null) {
        const ts = (tsBase + k * clip.ticks) >>> 0;
        await layers.sendFrame(k, ts, wire, this.instants, this.socketStamp, r);
        r.framesSent += layers.layers.length;
        continue;
      }
      const frame = clip.frames[i] as Uint8Array;
      const payloads = packetize(clip.codec, frame, one, clip.tids?.[i]);
      const ts = (tsBase + k * clip.ticks) >>> 0;
      const sending: PendingFrame = { k, i, ts, ssrc: tr.sender.ssrc, startNs: monoNs(), stamped: false };
      kf.sent(i);
      // the send instant: the first packet at the socket (onDatagramOut), else here
      this.instants.begin(sending, this.socketStamp);
      await sendPackets(tr, payloads, sending, one, r.stamped ? { id: this.absId, anchor } : null, r);
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
    const asked = layers !== null ? layers.counts() : kf;
    r.pliReceived = asked.pliReceived;
    r.firReceived = asked.firReceived;
    r.keyframesOnRequest = asked.keyframesOnRequest;
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
