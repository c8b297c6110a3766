// A viewer's transport-wide feedback (docs/definitions.md#transport-feedback), one for every
// receive path: each packet's transport-wide sequence number goes into the recorder
// (core/rtp/twcc.ts) with its arrival instant, and every interval (50 ms: libwebrtc's rule at its
// default start bitrate, as a receive-only libwebrtc sends them) what arrived since the last
// message goes out as RTCP transport feedback through the viewer's RTCP sender (rtcp-out.ts). The
// timer starts with the first packet that carries the number, so a viewer that never gets one
// sends nothing. No REMB is sent on any path.
import { TwccRecorder, twccIntervalMs } from "../../core/rtp/twcc.ts";

/**
 * The interval between transport feedback messages, ms: libwebrtc's rule (twccIntervalMs) at its
 * default start bitrate, 300 kbit/s, which a receive-only libwebrtc keeps, so 50 ms (measured:
 * libwebrtc M106 sent 19.0 messages/s to the built-in relay, bench/feedback-rate.ts).
 */
export const TWCC_INTERVAL_MS = twccIntervalMs(300_000);

export class TwccSender {
  private readonly recorder = new TwccRecorder();
  private readonly sendRtcp: (rtcp: Buffer) => void;
  private readonly senderSsrc: number;
  private readonly intervalMs: number;
  private readonly timerDone: () => void;
  private readonly onMessage: () => void;
  /** the media SSRC the messages name (the video stream's, once known) */
  mediaSsrc = 0;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    sendRtcp: (rtcp: Buffer) => void,
    senderSsrc: number,
    onMessage: () => void,
    timerDone: () => void = () => {},
    intervalMs = TWCC_INTERVAL_MS,
  ) {
    this.onMessage = onMessage;
    this.sendRtcp = sendRtcp;
    this.senderSsrc = senderSsrc;
    this.timerDone = timerDone;
    this.intervalMs = intervalMs;
  }

  /** Transport feedback messages sent. */
  get messages(): number {
    return this.recorder.messages;
  }

  /** A packet with transport-wide sequence number `seq` arrived at `arrivalNs` (its first arrival counts). */
  onPacket(seq: number, arrivalNs: number): void {
    this.recorder.onPacket(seq, arrivalNs);
    if (this.timer === null && !this.closed) {
      this.timer = setTimeout(this.tick, this.intervalMs);
      this.timer.unref();
    }
  }

  private readonly tick = (): void => {
    if (this.closed) return;
    this.flush();
    this.timer = setTimeout(this.tick, this.intervalMs);
    this.timer.unref();
    this.timerDone();
  };

  /** Sends what arrived since the last message (the timer's work; tests call it). */
  flush(): void {
    const r = this.recorder;
    for (
      let n = r.next(this.senderSsrc, this.mediaSsrc);
      n > 0;
      n = r.next(this.senderSsrc, this.mediaSsrc)
    ) {
      this.sendRtcp(Buffer.from(r.out.subarray(0, n)));
      this.onMessage();
    }
  }

  close(): void {
    this.closed = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }
}
