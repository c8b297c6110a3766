// A viewer's transport-wide feedback (docs/definitions.md#transport-feedback), one for every
// receive path: each packet's transport-wide sequence number goes into the recorder
// (core/rtp/twcc.ts) with its arrival instant, and every interval (50 ms: libwebrtc's rule at its
// default start bitrate, as a receive-only libwebrtc sends them) what arrived since the last
// message goes out as RTCP transport feedback through the viewer's RTCP sender (rtcp-out.ts). Its
// instants are kept by the thread's shared tick (../timers.ts: one timer for all the thread's
// viewers, on a 10 ms grid, each viewer's due messages sent back to back in one pass). It starts
// with the first packet that carries the number, so a viewer that never gets one sends nothing.
// No REMB is sent on any path.
import { monoNs } from "../../core/clock/clock.ts";
import { TwccRecorder, twccIntervalMs } from "../../core/rtp/twcc.ts";
import { feedbackTick, type SharedTick, type TickMember } from "../timers.ts";

/**
 * The interval between transport feedback messages, ms: libwebrtc's rule (twccIntervalMs) at its
 * default start bitrate, 300 kbit/s, which a receive-only libwebrtc keeps, so 50 ms (measured:
 * libwebrtc M106 sent 19.0 messages/s to the built-in relay, bench/feedback-rate.ts).
 */
export const TWCC_INTERVAL_MS = twccIntervalMs(300_000);

export class TwccSender implements TickMember {
  private readonly recorder = new TwccRecorder();
  private readonly sendRtcp: (rtcp: Buffer) => void;
  private readonly senderSsrc: number;
  private readonly intervalNs: number;
  private readonly timerDone: () => void;
  private readonly onMessage: () => void;
  private readonly tick: SharedTick;
  /** the media SSRC the messages name (the video stream's, once known) */
  mediaSsrc = 0;
  /** the next message's instant on the tick's grid, −1 before the first packet (the tick reads it) */
  dueNs = -1;
  tickSlot = -1;
  private closed = false;

  constructor(
    sendRtcp: (rtcp: Buffer) => void,
    senderSsrc: number,
    onMessage: () => void,
    timerDone: () => void = () => {},
    intervalMs = TWCC_INTERVAL_MS,
    tick: SharedTick = feedbackTick(),
  ) {
    this.onMessage = onMessage;
    this.sendRtcp = sendRtcp;
    this.senderSsrc = senderSsrc;
    this.timerDone = timerDone;
    this.intervalNs = intervalMs * 1e6;
    this.tick = tick;
  }

  /** Transport feedback messages sent. */
  get messages(): number {
    return this.recorder.messages;
  }

  /** A packet with transport-wide sequence number `seq` arrived at `arrivalNs` (its first arrival counts). */
  onPacket(seq: number, arrivalNs: number): void {
    this.recorder.onPacket(seq, arrivalNs);
    if (this.dueNs < 0 && !this.closed) {
      this.dueNs = this.tick.after(monoNs(), this.intervalNs);
      this.tick.join(this);
    }
  }

  /** The tick's pass reached this viewer's instant. */
  onTick(nowNs: number): void {
    if (this.closed) return;
    this.flush();
    // one interval after the instant this one was due, so a late pass does not move the viewer's
    // phase (viewers that shared one late pass would share every pass after it); a pass a whole
    // interval late or more: one interval after it
    const next = this.tick.after(this.dueNs, this.intervalNs);
    this.dueNs = next > nowNs ? next : this.tick.after(nowNs, this.intervalNs);
    this.timerDone();
  }

  /** Sends what arrived since the last message (the tick's work; tests call it). */
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
    this.dueNs = -1;
    this.tick.leave(this);
  }
}
