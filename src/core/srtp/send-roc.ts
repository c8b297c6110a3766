// The sender's rollover counter (ROC) of one SSRC for SRTP protect (RFC 3711 section 3.3.1), kept as
// werift 0.25.2's sender keeps it, so a packet protected by our relay's native path carries exactly
// the bytes werift's own protect would give it: the first packet starts at ROC 0; a sequence number
// that wraps forward (from the top 100 to the bottom 100, or to 0 from above 100) adds one; one
// that steps back over the wrap (a resend of a packet sent before it) takes one off, never below 0.

/** How far either side of the wrap a sequence number counts as "near" it. */
const DISORDER = 100;
const MAX_SEQ = 65535;

export class SendRoc {
  roc = 0;
  private last = 0;
  private started = false;

  /** Takes the next packet's sequence number and returns the ROC to protect it with. */
  next(seq: number): number {
    if (!this.started) this.started = true;
    else if (seq === 0) {
      if (this.last > DISORDER) this.roc++;
    } else if (this.last < DISORDER && seq > MAX_SEQ - DISORDER) {
      if (this.roc > 0) this.roc--;
    } else if (seq < DISORDER && this.last > MAX_SEQ - DISORDER) this.roc++;
    this.last = seq;
    return this.roc;
  }
}
