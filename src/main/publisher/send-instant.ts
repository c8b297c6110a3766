// The publisher's send instant of each frame (docs/definitions.md#send-instant): the kernel's
// transmit stamp of the frame's first RTP packet where it can be had (src/net/tx-stamp.ts), else
// the instant that packet is handed to the socket. The hand-over instant is logged at once, so
// the entry exists before the packet can reach anyone and never lies after its arrival anywhere;
// the kernel's stamp, read back just after the write, then replaces it (it lies between the two).
// The send-log channel and `onFrameSent` get the final instant. The send lag is the frame's start
// of sending to its send instant.
import { monoNs } from "../../core/clock/clock.ts";
import type { SendLog } from "../../core/delay/sendlog.ts";
import { txVerdict } from "../../core/delay/tx-ids.ts";
import type { SendStamps } from "../../core/report/input.ts";
import { DelayHistogram } from "../../core/stats/summaries.ts";
import { offsetErrorNsNow } from "../../net/kernel.ts";
import { isRtpDatagram } from "../../net/send-stamp.ts";

/**
 * A frame's final send instant (monotonic ns), its clip index, and whether it is the kernel's
 * transmit stamp (else the hand-over instant): the send-log channel's entry.
 */
export type FrameSent = (k: number, t0MonoNs: number, i: number, kernel: boolean) => void;

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
  /** the instant written as the first packet's abs-capture-time (monotonic ns); absent: none written */
  captureNs?: number;
}

/** A frame whose first packet was handed over with number `id`, its kernel stamp awaited. */
interface Awaited {
  f: PendingFrame;
  id: number;
  handoverNs: number;
}

const MAX_REASONS = 4;
/** How long a frame's kernel stamp is waited for before its hand-over instant stands. */
const STAMP_WAIT_NS = 100e6;

export class SendInstants {
  readonly sendLag = new DelayHistogram();
  /** per kernel-stamped frame with abs-capture-time: its kernel stamp − the capture instant written */
  readonly captureLead = new DelayHistogram();
  /** frames logged with the kernel's stamp and with the hand-over instant, and why the latter */
  readonly stamps: SendStamps = { kernel: 0, handover: 0 };
  private pending: PendingFrame | null = null;
  /** reads the sockets' error queues now (tapKernelSend's); null: no kernel stamps */
  readBack: (() => void) | null = null;
  /** frames awaiting their stamp, oldest first (a late publisher begins the next before the writes) */
  private readonly awaited: Awaited[] = [];
  private readonly log: SendLog | null;
  private readonly onFrameSent: FrameSent | undefined;

  constructor(log: SendLog | null, onFrameSent?: FrameSent) {
    this.log = log;
    this.onFrameSent = onFrameSent;
  }

  /** The frame about to be sent; its first packet at the socket stamps it (`atSocket` false: now). */
  begin(f: PendingFrame, atSocket: boolean): void {
    // a stamp awaited for longer than a stamp takes: read the error queue once more, then give up
    const old = this.awaited[0];
    if (old !== undefined && monoNs() - old.handoverNs > STAMP_WAIT_NS) this.readBack?.();
    while (this.awaited.length > 0 && monoNs() - this.awaited[0]!.handoverNs > STAMP_WAIT_NS) {
      this.settle("its kernel stamp was not back within 100 ms");
    }
    if (atSocket) this.pending = f;
    else this.sent(f, f.startNs, "the send instant is not taken at the socket");
  }

  /** The frame's packets have been handed over; one none of which reached the socket is logged now. */
  end(f: PendingFrame): void {
    this.pending = null;
    if (!f.stamped) this.sent(f, monoNs(), "none of the frame's packets reached the socket");
  }

  /** A media datagram about to reach the socket (tapKernelSend's `before`, with its number). */
  readonly before = (data: Buffer, id = -1): void => {
    const f = this.pending;
    if (f === null || f.stamped || !isRtpDatagram(data)) return;
    if (data.readUInt32BE(4) !== f.ts || data.readUInt32BE(8) !== f.ssrc) return;
    const t0 = monoNs();
    this.pending = null;
    f.stamped = true;
    this.log?.record(f.k, t0, f.i);
    if (id >= 0) this.awaited.push({ f, id, handoverNs: t0 });
    else this.final(f, t0, "the socket's transmit stamps are not on");
  };

  /** A kernel transmit stamp read back (tapKernelSend's `stamped`). */
  readonly stamped = (id: number, stampNs: number, nowNs: number): void => {
    const slack = offsetErrorNsNow() + 1000;
    for (let a = this.awaited[0]; a !== undefined; a = this.awaited[0]) {
      const v = txVerdict(id, a.id, stampNs, a.handoverNs, nowNs, slack);
      if (v === "earlier") return;
      if (v !== "take") {
        this.settle(
          v === "missed" ? "a later datagram's kernel stamp came first" : "a kernel stamp out of step",
        );
        continue;
      }
      this.awaited.shift();
      this.log?.restamp(a.f.k, stampNs);
      this.stamps.kernel++;
      if (a.f.captureNs !== undefined) this.captureLead.recordNs(Math.max(0, stampNs - a.f.captureNs));
      this.emit(a.f, stampNs, true, true);
      return;
    }
  };

  /** Why the kernel's stamps cannot be had (tapKernelSend's `unavailable`). */
  readonly unavailable = (why: string): void => this.note(why);

  /** The run ends: a frame still awaiting its stamp keeps its hand-over instant. */
  finish(): void {
    if (this.awaited.length > 0) this.readBack?.();
    while (this.awaited.length > 0) this.settle("its kernel stamp was not back by the end");
  }

  /** The oldest awaited frame keeps its hand-over instant. */
  private settle(why: string): void {
    const a = this.awaited.shift() as Awaited;
    this.final(a.f, a.handoverNs, why);
  }

  /** A frame none of whose packets was seen at the socket: logged at its start or its end. */
  private sent(f: PendingFrame, t0: number, why: string): void {
    f.stamped = true;
    this.log?.record(f.k, t0, f.i);
    this.final(f, t0, why, false);
  }

  /** A frame logged without the kernel's stamp: counted, with the reason. */
  private final(f: PendingFrame, t0: number, why: string, atSocket = true): void {
    this.stamps.handover++;
    this.note(why);
    this.emit(f, t0, atSocket, false);
  }

  /** The frame's final send instant; the send lag counts frames seen at the socket. */
  private emit(f: PendingFrame, t0: number, atSocket: boolean, kernel: boolean): void {
    if (atSocket) this.sendLag.recordNs(t0 - f.startNs);
    this.onFrameSent?.(f.k, t0, f.i, kernel);
  }

  private note(why: string): void {
    if (this.stamps.reasons === undefined) this.stamps.reasons = [];
    const r = this.stamps.reasons;
    if (r.length < MAX_REASONS && !r.includes(why)) r.push(why);
  }
}
