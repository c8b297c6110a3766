// What the lean path's receiver reports say (RFC 3550 section 6.4.1 and Appendix A.3/A.8): extended
// highest sequence number, cumulative and interval loss, interarrival jitter, and the LSR/DLSR
// of the last sender report. werift keeps these in its RTCRtpReceiver, which the lean path
// bypasses. Arithmetic only, once per packet.
import type { ReportBlock } from "./rtcp-out.ts";

export class ReceptionStats {
  ssrc = -1;
  private readonly clockRate: number;
  private started = false;
  private maxSeq = 0;
  private cycles = 0;
  private baseExt = 0;
  private received = 0;
  private expectedPrior = 0;
  private receivedPrior = 0;
  private jitter = 0;
  private lastTransit = 0;
  private lsr = 0;
  private lsrAtNs = 0;

  constructor(clockRate: number) {
    this.clockRate = clockRate;
  }

  /** One authenticated packet (duplicates were dropped by the replay window). */
  onPacket(ssrc: number, seq: number, ts: number, arrivalNs: number): void {
    const arrivalRtp = (arrivalNs / 1e9) * this.clockRate;
    const transit = arrivalRtp - ts;
    if (!this.started) {
      this.started = true;
      this.ssrc = ssrc;
      this.maxSeq = seq;
      this.baseExt = seq;
    } else {
      const delta = ((seq - this.maxSeq) << 16) >> 16;
      if (delta > 0) {
        if (seq < this.maxSeq) this.cycles += 65536;
        this.maxSeq = seq;
      }
      let d = transit - this.lastTransit;
      // the RTP timestamp wraps at 2^32: fold the difference back
      if (d > 2147483648) d -= 4294967296;
      else if (d < -2147483648) d += 4294967296;
      this.jitter += (Math.abs(d) - this.jitter) / 16;
    }
    this.lastTransit = transit;
    this.received++;
  }

  /** A sender report arrived (its NTP middle bits). */
  onSenderReport(lsr: number, nowNs: number): void {
    this.lsr = lsr;
    this.lsrAtNs = nowNs;
  }

  /** The report block for now (advances the interval of the fraction lost), or null before any packet. */
  block(nowNs: number): ReportBlock | null {
    if (!this.started) return null;
    const extHighest = this.cycles + this.maxSeq;
    const expected = extHighest - this.baseExt + 1;
    const lost = expected - this.received;
    const expInt = expected - this.expectedPrior;
    const recInt = this.received - this.receivedPrior;
    this.expectedPrior = expected;
    this.receivedPrior = this.received;
    const lostInt = expInt - recInt;
    const fraction = expInt <= 0 || lostInt <= 0 ? 0 : Math.floor((lostInt * 256) / expInt);
    let dlsr = 0;
    if (this.lsr !== 0) dlsr = Math.min(0xffffffff, Math.floor(((nowNs - this.lsrAtNs) / 1e9) * 65536));
    return {
      ssrc: this.ssrc,
      fractionLost: Math.min(255, fraction),
      cumulativeLost: lost,
      extHighest: extHighest % 4294967296,
      jitter: this.jitter,
      lsr: this.lsr,
      dlsr,
    };
  }
}
