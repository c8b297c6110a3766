// The publisher's send instant of each frame (docs/definitions.md#send-instant): the frame's
// first RTP packet at the socket. The send log gets the frame when that packet is handed to the
// socket, so the entry exists before the packet can reach anyone, and its instant is corrected on
// the tick after the socket wrote it (dgram writes a literal-address send on the next tick, after
// werift has built and protected the frame's other packets). The send lag is the frame's start of
// sending to that write.
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
  startNs: number;
  stamped: boolean;
}

export class SendInstants {
  readonly sendLag = new DelayHistogram();
  private pending: PendingFrame | null = null;
  // the frame whose first datagram is being written, and that datagram
  private writing: PendingFrame | null = null;
  private writingData: Buffer | null = null;
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
    if (f === null || f.stamped || !isRtpDatagram(data) || data.readUInt32BE(4) !== f.ts) return;
    this.pending = null;
    f.stamped = true;
    this.log?.record(f.k, monoNs(), f.i);
    this.writing = f;
    this.writingData = data;
  };

  /** The tick after the socket wrote a datagram (tapMediaSend's `written`). */
  readonly written = (data: Buffer): void => {
    const f = this.writing;
    if (f === null || data !== this.writingData) return;
    const t0 = monoNs();
    this.writing = null;
    this.writingData = null;
    this.sendLag.recordNs(t0 - f.startNs);
    this.log?.correct(f.k, t0);
    this.onFrameSent?.(f.k, t0, f.i);
  };

  private sent(f: PendingFrame, t0: number): void {
    f.stamped = true;
    this.log?.record(f.k, t0, f.i);
    this.onFrameSent?.(f.k, t0, f.i);
  }
}
