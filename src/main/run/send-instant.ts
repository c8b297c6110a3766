// The publisher's send instant of each frame (docs/definitions.md#send-instant): the frame's
// first RTP packet handed to the socket, logged then, so the entry exists before the packet can
// reach anyone and never lies after its arrival anywhere. The send lag is the frame's start of
// sending to that instant.
import { monoNs } from "../../core/clock/clock.ts";
import type { SendLog } from "../../core/delay/sendlog.ts";
import { DelayHistogram } from "../../core/stats/summaries.ts";
import { isRtpDatagram } from "../../net/send-stamp.ts";

/** The frame being sent, until its first packet reaches the socket. */
export interface PendingFrame {
  k: number;
  /** the clip index sent */
  i: number;
  ts: number;
  /** the sender's SSRC (werift writes its own): a bundled connection's other track is not this one */
  ssrc: number;
  startNs: number;
  stamped: boolean;
}

export class SendInstants {
  readonly sendLag = new DelayHistogram();
  private pending: PendingFrame | null = null;
  private readonly log: SendLog | null;
  private readonly onFrameSent: ((k: number, t0MonoNs: number, i: number) => void) | undefined;

  constructor(log: SendLog | null, onFrameSent?: (k: number, t0MonoNs: number, i: number) => void) {
    this.log = log;
    this.onFrameSent = onFrameSent;
  }

  /** The frame about to be sent; its first packet at the socket stamps it (`atSocket` false: now). */
  begin(f: PendingFrame, atSocket: boolean): void {
    if (atSocket) this.pending = f;
    else this.sent(f, f.startNs);
  }

  /** The frame's packets have been handed over; one none of which reached the socket is logged now. */
  end(f: PendingFrame): void {
    this.pending = null;
    if (!f.stamped) this.sent(f, monoNs());
  }

  /** A media datagram about to reach the socket (tapMediaSend's `before`). */
  readonly before = (data: Buffer): void => {
    const f = this.pending;
    if (f === null || f.stamped || !isRtpDatagram(data)) return;
    if (data.readUInt32BE(4) !== f.ts || data.readUInt32BE(8) !== f.ssrc) return;
    const t0 = monoNs();
    this.pending = null;
    this.sendLag.recordNs(t0 - f.startNs);
    this.sent(f, t0);
  };

  private sent(f: PendingFrame, t0: number): void {
    f.stamped = true;
    this.log?.record(f.k, t0, f.i);
    this.onFrameSent?.(f.k, t0, f.i);
  }
}
