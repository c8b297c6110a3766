// A lean viewer's receiver reports: the periodic RR at libwebrtc's video interval (each drawn from
// 0.5–1.5 s, docs/definitions.md#viewer-profile) and the compound head — RR and SDES (CNAME) —
// that leads every NACK and PLI (docs/definitions.md#nacks).

import { randomBytes } from "node:crypto";
import { monoNs } from "../../core/clock/clock.ts";
import type { ReceptionStats } from "./reception.ts";
import { serializeRr, serializeSdes } from "./rtcp-out.ts";

export class ReceiverReports {
  /** RR packets written, periodic and compound heads alike */
  sent = 0;
  private readonly stats: ReceptionStats;
  private readonly sendRtcp: (rtcp: Buffer) => void;
  private readonly senderSsrc: number;
  /** SDES with our CNAME, random per viewer as libwebrtc's (16 characters) */
  private readonly sdes: Buffer;
  private readonly minMs: number;
  private readonly spanMs: number;
  private readonly timerDone: () => void;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    stats: ReceptionStats,
    sendRtcp: (rtcp: Buffer) => void,
    senderSsrc: number,
    timing: { minMs?: number | undefined; maxMs?: number | undefined; timerDone?: (() => void) | undefined },
  ) {
    this.stats = stats;
    this.sendRtcp = sendRtcp;
    this.senderSsrc = senderSsrc;
    this.sdes = serializeSdes(senderSsrc, randomBytes(12).toString("base64"));
    this.minMs = timing.minMs ?? 500;
    this.spanMs = (timing.maxMs ?? 1500) - this.minMs;
    this.timerDone = timing.timerDone ?? (() => {});
    this.schedule();
  }

  /**
   * A receiver report (its block when a packet has arrived) and our CNAME: the head of every
   * compound RTCP packet the viewer sends (RFC 3550 section 6.1; libwebrtc without rtcp-rsize
   * puts them before each NACK and PLI too, so a server takes an RTT sample from each: Janus
   * sizes its retransmission buffer from them, docs/definitions.md#nacks)
   */
  readonly head = (): Buffer => {
    this.sent++;
    const rr = serializeRr(this.senderSsrc, this.stats.block(monoNs()));
    return Buffer.concat([rr, this.sdes]);
  };

  private schedule(): void {
    if (this.closed) return;
    this.timer = setTimeout(this.report, this.minMs + Math.random() * this.spanMs);
    this.timer.unref();
  }

  private readonly report = (): void => {
    this.timer = null;
    if (this.closed) return;
    if (this.stats.ssrc !== -1) this.sendRtcp(this.head());
    this.schedule();
    this.timerDone();
  };

  close(): void {
    this.closed = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }
}
