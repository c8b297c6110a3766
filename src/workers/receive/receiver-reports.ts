// A lean viewer's receiver reports: the periodic RR at libwebrtc's video interval (each drawn from
// 0.5–1.5 s, docs/definitions.md#viewer-profile; its instants on the thread's shared tick,
// ../timers.ts, as the transport feedback's, on a coarser grid) and the compound head that leads
// every NACK and PLI (docs/definitions.md#nacks). The browser profile's are libwebrtc M106's: an RR
// alone (a receive-only stream has no CNAME, so no SDES), and each compound head draws the periodic
// report's instant afresh; the minimal profile's, the earlier viewer's, carry an SDES (CNAME) and
// are drawn from the previous periodic report alone.

import { randomBytes } from "node:crypto";
import { monoNs } from "../../core/clock/clock.ts";
import { feedbackTick, type SharedTick, type TickMember } from "../timers.ts";
import type { ReceptionStats } from "./reception.ts";
import { serializeRr, serializeSdes } from "./rtcp-out.ts";

/**
 * The grid the periodic reports' instants are rounded to, ms: a multiple of the tick's, so a
 * thread's viewers' reports share passes (each pass is a timer wake-up of the thread, whose CPU
 * is most of what a lone report costs: bench/rtcp-send.ts), where the 10 ms grid gave most reports
 * a wake-up of their own (docs/definitions.md#viewer-profile).
 */
export const REPORT_GRID_MS = 100;

export class ReceiverReports implements TickMember {
  /** RR packets written, periodic and compound heads alike */
  sent = 0;
  /** periodic reports sent (a compound RTCP packet of its own, no NACK or PLI after it) */
  alone = 0;
  private readonly stats: ReceptionStats;
  private readonly sendRtcp: (rtcp: Buffer) => void;
  private readonly senderSsrc: number;
  /** SDES with our CNAME, random per viewer (16 characters); null on the browser profile */
  private readonly sdes: Buffer | null;
  /** whether a compound head draws the periodic report's instant afresh (the browser profile) */
  private readonly redraw: boolean;
  private readonly minMs: number;
  private readonly spanMs: number;
  private readonly gridNs: number;
  private readonly timerDone: () => void;
  private readonly tick: SharedTick;
  /** the next periodic report's instant on the tick's grid, −1 once closed (the tick reads it) */
  dueNs = -1;
  tickSlot = -1;
  private closed = false;

  constructor(
    stats: ReceptionStats,
    sendRtcp: (rtcp: Buffer) => void,
    senderSsrc: number,
    timing: {
      minMs?: number | undefined;
      maxMs?: number | undefined;
      timerDone?: (() => void) | undefined;
      /** the grid the instants are rounded to (a multiple of the tick's); REPORT_GRID_MS unless told */
      gridMs?: number;
      /** the browser profile's reports (libwebrtc M106's: no SDES, a compound re-draws); absent: true */
      browser?: boolean;
    },
    tick: SharedTick = feedbackTick(),
  ) {
    this.tick = tick;
    this.stats = stats;
    this.sendRtcp = sendRtcp;
    this.senderSsrc = senderSsrc;
    const browser = timing.browser ?? true;
    this.sdes = browser ? null : serializeSdes(senderSsrc, randomBytes(12).toString("base64"));
    this.redraw = browser;
    this.minMs = timing.minMs ?? 500;
    this.spanMs = (timing.maxMs ?? 1500) - this.minMs;
    this.gridNs = (timing.gridMs ?? REPORT_GRID_MS) * 1e6;
    this.timerDone = timing.timerDone ?? (() => {});
    this.dueNs = this.next(monoNs());
    tick.join(this);
  }

  /**
   * The head of every compound RTCP packet that carries a NACK or PLI (RFC 3550 section 6.1): our
   * receiver report (its block when a packet has arrived), and on the minimal profile our CNAME.
   * libwebrtc without rtcp-rsize leads each with its report, no SDES, so a server takes an RTT sample
   * from each (Janus sizes its retransmission buffer from them), and draws its next periodic report
   * from then: on the browser profile ours does too (docs/definitions.md#nacks).
   */
  readonly head = (): Buffer => {
    const nowNs = monoNs();
    const b = this.write(nowNs);
    if (this.redraw && !this.closed) {
      this.dueNs = this.next(nowNs);
      this.tick.join(this); // joined already: re-arms the tick where the new instant is sooner
    }
    return b;
  };

  private write(nowNs: number): Buffer {
    this.sent++;
    const rr = serializeRr(this.senderSsrc, this.stats.block(nowNs));
    return this.sdes === null ? rr : Buffer.concat([rr, this.sdes]);
  }

  /** A drawn interval after `nowNs`, at the report grid's instant nearest it. */
  private next(nowNs: number): number {
    return this.tick.after(nowNs, (this.minMs + Math.random() * this.spanMs) * 1e6, this.gridNs);
  }

  /** The tick's pass reached the periodic report's instant. */
  onTick(nowNs: number): void {
    if (this.closed) return;
    if (this.stats.ssrc !== -1) {
      this.alone++;
      this.sendRtcp(this.write(monoNs())); // DLSR to the write, not to the pass's start
    }
    this.dueNs = this.next(nowNs);
    this.timerDone();
  }

  close(): void {
    this.closed = true;
    this.dueNs = -1;
    this.tick.leave(this);
  }
}
