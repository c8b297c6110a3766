// The WHIP publisher (docs/definitions.md#publisher-pacing): one send-only video transceiver, the clip looped and paced at its
// frame rate, RTP timestamps seamless across loops, abs-capture-time on every packet when the
// answer negotiated it, and the send log written just before each frame's first packet.

import { type RTCPeerConnection, type RTCRtpTransceiver, RtpHeader, RtpPacket } from "werift";
import type { Clip } from "../../core/clip/clip.ts";
import { monoNs, type WallAnchor, wallOf } from "../../core/clock/clock.ts";
import { packetizeH264 } from "../../core/codec/h264.ts";
import { packetizeVp8 } from "../../core/codec/vp8.ts";
import type { SendLog } from "../../core/delay/sendlog.ts";
import type { PublisherInput } from "../../core/report/input.ts";
import { unixNsToAbsCapture } from "../../core/rtp/abs-capture-time.ts";
import {
  absCaptureId,
  filterCandidates,
  gatheringComplete,
  type IceOptions,
  newPeer,
  videoCodecs,
} from "../../net/rtc.ts";
import { deleteResource, HttpExchangeError, postOffer } from "../../net/sdp-http.ts";

export const MTU = 1200;
const CONNECT_BUDGET_MS = 10_000;
const SLIP_NS = 500e6;

export interface PublisherOptions {
  whip: string;
  bearer?: string | undefined;
  clip: Clip;
  ice: IceOptions;
  noStamp: boolean;
  sendLog: SendLog | null;
  anchor: WallAnchor;
  /** every frame sent: its absolute index and the monotonic instant before its first packet (the send-log channel) */
  onFrameSent?: (k: number, t0MonoNs: number) => void;
}

/** The publisher's figures are the report's publisher input (docs/definitions.md#publisher-figures, durations in ns). */
export type PublisherResult = PublisherInput;

export class PublisherError extends Error {
  readonly kind: string;
  constructor(kind: string, message: string) {
    super(message);
    this.kind = kind;
  }
}

export class Publisher {
  readonly opts: PublisherOptions;
  private pc: RTCPeerConnection | null = null;
  private tr: RTCRtpTransceiver | null = null;
  private location: string | null = null;
  private absId = 0;
  private failed = false;
  private wake: (() => void) | null = null;
  readonly result: PublisherResult;

  constructor(opts: PublisherOptions) {
    this.opts = opts;
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
   * POST + ICE + DTLS within 10 s; throws PublisherError (kind per docs/definitions.md#publisher-figures). `interrupt` (SIGINT,
   * SIGTERM) ends the wait at once.
   */
  async connect(interrupt?: AbortSignal): Promise<void> {
    const { opts } = this;
    let pc: RTCPeerConnection;
    try {
      pc = newPeer(opts.ice, videoCodecs(opts.clip.codec));
      this.pc = pc;
      this.tr = pc.addTransceiver("video", { direction: "sendonly" });
      await pc.setLocalDescription(await pc.createOffer());
      await gatheringComplete(pc, 5000);
    } catch (err) {
      throw new PublisherError("webrtc", `local WebRTC setup failed: ${(err as Error).message}`);
    }
    const postNs = monoNs();
    const budget = AbortSignal.timeout(CONNECT_BUDGET_MS);
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
      try {
        await pc.setRemoteDescription({ type: "answer", sdp: answer.sdp });
      } catch (err) {
        throw new PublisherError("bad_answer", `the WHIP answer was refused: ${(err as Error).message}`);
      }
      await Promise.race([
        connected,
        new Promise<never>((_, reject) => {
          const fail = () =>
            reject(
              new PublisherError(
                "connect_timeout",
                budget.aborted ? "not connected after 10s" : "not connected: the run was interrupted",
              ),
            );
          if (deadline.aborted) fail();
          else deadline.addEventListener("abort", fail, { once: true });
        }),
      ]);
    } catch (err) {
      await this.close();
      if (err instanceof PublisherError) throw err;
      if (err instanceof HttpExchangeError) throw new PublisherError(err.kind, err.message);
      throw new PublisherError("webrtc", (err as Error).message);
    }
    this.result.connectNs = monoNs() - postNs;
    this.absId = absCaptureId(this.tr.headerExtensions);
    this.result.stamped = this.absId !== 0 && !opts.noStamp;
  }

  /** Streams until `stop` aborts or the connection fails; then DELETE and close. */
  async stream(stop: AbortSignal): Promise<PublisherResult> {
    const { clip, sendLog, anchor } = this.opts;
    const tr = this.tr;
    const r = this.result;
    if (!tr) throw new Error("stream() before connect()");
    const n = clip.frames.length;
    const frameNs = (clip.ticks / 90_000) * 1e9;
    const ssrc = (Math.random() * 0x1_0000_0000) >>> 0;
    let seq = Math.floor(Math.random() * 0x1_0000);
    const tsBase = (Math.random() * 0x1_0000_0000) >>> 0;
    let pictureId = Math.floor(Math.random() * 0x8000);
    const onStop = () => this.wake?.();
    stop.addEventListener("abort", onStop);
    const started = monoNs();
    let origin = started;
    for (let k = 0; !stop.aborted && !this.failed; k++) {
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
      const frame = clip.frames[k % n] as Uint8Array;
      const payloads = clip.codec === "vp8" ? packetizeVp8(frame, MTU, pictureId) : packetizeH264(frame, MTU);
      pictureId = (pictureId + 1) & 0x7fff;
      const ts = (tsBase + k * clip.ticks) >>> 0;
      const t0 = monoNs();
      sendLog?.record(k, t0);
      this.opts.onFrameSent?.(k, t0);
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
          unixNsToAbsCapture(wallOf(anchor, monoNs()), ext);
          header.extension = true;
          header.extensions = [{ id: this.absId, payload: ext }];
        }
        const payload = payloads[j] as Uint8Array;
        try {
          await tr.sender.sendRtp(
            new RtpPacket(header, Buffer.from(payload.buffer, payload.byteOffset, payload.length)),
          );
          r.packetsSent++;
          r.bytesSent += payload.length;
        } catch {
          // a closing connection: skip the write (docs/definitions.md#publisher-pacing)
        }
      }
      r.framesSent++;
    }
    stop.removeEventListener("abort", onStop);
    r.sendingNs = monoNs() - started;
    r.loops = Math.floor(r.framesSent / n);
    if (this.failed) {
      r.errorKind = "disconnected";
      r.error = "the server connection dropped while publishing";
      r.disconnectedLate = true;
    }
    await this.close();
    return r;
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
    await deleteResource(this.location, { bearer: this.opts.bearer });
    await pc.close().catch(() => {});
  }
}
