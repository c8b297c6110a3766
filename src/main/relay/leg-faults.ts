// Test-only faults of single viewer legs of the built-in relay (test/e2e/server-faults.test.ts):
// a leg that gets no media at all, one whose media pauses mid-run, one the relay closes after it
// joined, and ones whose sequence numbers and timestamps the relay duplicates, reorders or
// shifts far out of the receiver's window. Every decision is per forwarded packet of the leg.

export interface LegFault {
  /** the leg connects but is forwarded nothing ("media never comes") */
  withholdMedia?: boolean;
  /** stop forwarding this long after the leg connected ... */
  stopForwardingAfterMs?: number;
  /** ... for this long, then forward again (absent: never again) */
  stopForwardingForMs?: number;
  /** close the leg's peer connection this long after it connected (the viewer is dropped) */
  closeViewerAfterMs?: number;
  /**
   * `duplicate`: every packet sent twice; `reorder`: every two packets sent in swapped order;
   * `jump`: from the leg's 50th packet on, every sequence number +30000 and every timestamp
   * +2^31 (a discontinuity far outside any receive window, kept for the rest of the stream).
   */
  rewriteSeq?: "duplicate" | "reorder" | "jump";
}

/** What the relay forwards to one leg: header fields and the payload. */
export interface LegPacket {
  seq: number;
  ts: number;
  marker: boolean;
  payload: Buffer;
  /** the publisher's abs-capture-time payload, when it is forwarded */
  abs?: Buffer | null;
  /** a padding-only packet: the payload is its padding, the P bit set (stream-padding.ts) */
  padding?: boolean;
}

const JUMP_AFTER_PACKETS = 50;
const JUMP_SEQ = 30000;
const JUMP_TS = 2 ** 31;

export class LegFaultState {
  readonly fault: LegFault;
  /** publisher packets offered to the leg, and packets sent to it (tests compare the two) */
  offered = 0;
  sent = 0;
  private connectedAtMs = -1;
  private packets = 0;
  private held: LegPacket | null = null;

  constructor(fault: LegFault) {
    this.fault = fault;
  }

  /** The leg connected at `nowMs`; returns the delay after which the relay closes it, or null. */
  connected(nowMs: number): number | null {
    this.connectedAtMs = nowMs;
    return this.fault.closeViewerAfterMs ?? null;
  }

  /** The packets to send to this leg for one publisher packet (none, one or two). */
  apply(p: LegPacket, nowMs: number): LegPacket[] {
    this.offered++;
    const out = this.rewrite(p, nowMs);
    this.sent += out.length;
    return out;
  }

  private rewrite(p: LegPacket, nowMs: number): LegPacket[] {
    const f = this.fault;
    if (f.withholdMedia) return [];
    if (f.stopForwardingAfterMs !== undefined && this.connectedAtMs >= 0) {
      const since = nowMs - this.connectedAtMs - f.stopForwardingAfterMs;
      if (since >= 0 && (f.stopForwardingForMs === undefined || since < f.stopForwardingForMs)) return [];
    }
    this.packets++;
    switch (f.rewriteSeq) {
      case "duplicate":
        return [p, p];
      case "reorder": {
        if (this.held === null) {
          this.held = p;
          return [];
        }
        const first = this.held;
        this.held = null;
        return [p, first];
      }
      case "jump":
        if (this.packets < JUMP_AFTER_PACKETS) return [p];
        return [{ ...p, seq: (p.seq + JUMP_SEQ) & 0xffff, ts: (p.ts + JUMP_TS) >>> 0 }];
      default:
        return [p];
    }
  }
}
