// The publisher's audio track (docs/definitions.md#audio-track): the Opus clip looped and paced at
// 20 ms a packet on its own schedule beside the video's, RTP timestamps advancing 960 ticks a
// packet across loops, each packet's send instant logged in the audio send log as a video frame's
// is (docs/definitions.md#send-instant: its packet at the socket), the clip index its k mod N.

import type { AudioClip } from "../../core/clip/ogg-opus.ts";
import { monoNs } from "../../core/clock/clock.ts";
import type { SendLog } from "../../core/delay/sendlog.ts";
import type { PublisherAudio } from "../../core/types.ts";
import { tapMediaSend } from "../../net/send-stamp.ts";
import { type RTCRtpTransceiver, RtpHeader } from "../../net/werift/api.ts";
import { sendCounted } from "./rtp-out.ts";
import { type PendingFrame, SendInstants } from "./send-instant.ts";

const SLIP_NS = 500e6;

type AudioSent = PublisherAudio;

export class AudioSender {
  readonly sent: AudioSent = { packetsSent: 0, bytesSent: 0, loops: 0, scheduleSlips: 0 };
  private readonly tr: RTCRtpTransceiver;
  private readonly clip: AudioClip;
  private readonly instants: SendInstants;
  private socketStamp = false;

  constructor(tr: RTCRtpTransceiver, clip: AudioClip, log: SendLog | null) {
    this.tr = tr;
    this.clip = clip;
    this.instants = new SendInstants(log);
  }

  /** Once connected: the send instant at the socket where werift's internals allow it. */
  connected(): void {
    this.socketStamp = tapMediaSend(this.tr, this.instants.before);
  }

  /** Sends until `stop` aborts or `failed()` says the connection dropped. */
  async run(stop: AbortSignal, failed: () => boolean): Promise<AudioSent> {
    const { clip, tr, sent } = this;
    const n = clip.packets.length;
    const packetNs = (clip.ticks / 48_000) * 1e9;
    let seq = Math.floor(Math.random() * 0x1_0000);
    const tsBase = (Math.random() * 0x1_0000_0000) >>> 0;
    let origin = monoNs();
    let k = 0;
    for (; !stop.aborted && !failed(); k++) {
      const due = origin + k * packetNs;
      const now = monoNs();
      if (now - due > SLIP_NS) {
        sent.scheduleSlips++;
        origin = now - k * packetNs;
      } else if (due > now) {
        await sleepUnless(due - now, stop);
        if (stop.aborted || failed()) break;
      }
      const i = k % n;
      const payload = clip.packets[i] as Uint8Array;
      const ts = (tsBase + k * clip.ticks) >>> 0;
      const sending: PendingFrame = { k, i, ts, ssrc: tr.sender.ssrc, startNs: monoNs(), stamped: false };
      this.instants.begin(sending, this.socketStamp);
      const header = new RtpHeader({ sequenceNumber: seq, timestamp: ts, marker: k === 0, payloadType: 111 });
      seq = (seq + 1) & 0xffff;
      await sendCounted(tr, header, payload, sent);
      this.instants.end(sending);
    }
    sent.loops = Math.floor(k / n);
    return sent;
  }
}

function sleepUnless(ns: number, stop: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(t);
      stop.removeEventListener("abort", done);
      resolve();
    };
    const t = setTimeout(done, Math.max(0, ns / 1e6));
    stop.addEventListener("abort", done, { once: true });
  });
}
