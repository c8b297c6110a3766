// SRTP/SRTCP receive state per SSRC: packet index estimation with the rollover counter
// (RFC 3711 section 3.3.1 and Appendix A) and the replay window (section 3.3.2). Index checks happen before
// decryption; `commit` runs only after the packet authenticated, so a forged packet can move
// neither the ROC nor the window.

/** Packets this far behind the highest authenticated index are rejected as too old. */
export const REPLAY_WINDOW = 1024;
const WORDS = REPLAY_WINDOW / 32;
const MASK = REPLAY_WINDOW - 1;

/** A bitmap of the last REPLAY_WINDOW indices below and at `highest`. No allocation per packet. */
export class ReplayWindow {
  private readonly bits = new Uint32Array(WORDS);
  private started = false;
  /** highest committed index; −1 before the first */
  highest = -1;

  /** Whether `index` may be accepted: not seen and not older than the window. */
  check(index: number): boolean {
    if (!this.started || index > this.highest) return true;
    if (this.highest - index >= REPLAY_WINDOW) return false;
    const slot = index & MASK;
    return (this.bits[slot >>> 5]! & (1 << (slot & 31))) === 0;
  }

  /** Whether `index` lies in the window and was committed already: the same packet again. */
  seen(index: number): boolean {
    if (!this.started || index > this.highest || this.highest - index >= REPLAY_WINDOW) return false;
    const slot = index & MASK;
    return (this.bits[slot >>> 5]! & (1 << (slot & 31))) !== 0;
  }

  /** Starts the window over at `index` (a sender whose indices restarted, see RtpIndexState.follow). */
  restart(index: number): void {
    this.bits.fill(0);
    this.started = false;
    this.commit(index);
  }

  /** Records an authenticated index (after check() said yes). */
  commit(index: number): void {
    if (!this.started) {
      this.started = true;
      this.highest = index;
    } else if (index > this.highest) {
      const d = index - this.highest;
      if (d >= REPLAY_WINDOW) this.bits.fill(0);
      else
        for (let i = this.highest + 1; i < index; i++) {
          const s = i & MASK;
          this.bits[s >>> 5]! &= ~(1 << (s & 31));
        }
      this.highest = index;
    }
    const slot = index & MASK;
    this.bits[slot >>> 5]! |= 1 << (slot & 31);
  }
}

/**
 * One SSRC's SRTP receive context: s_l (highest authenticated sequence number), ROC and the
 * replay window over the 48-bit packet index ROC·2¹⁶ + SEQ (exact in a double).
 */
export class RtpIndexState {
  private started = false;
  roc = 0;
  private sl = 0;
  readonly replay = new ReplayWindow();

  /**
   * RFC 3711 section 3.3.1: the index of a packet with sequence number `seq`, or −1 when it cannot
   * be placed (before ROC 0).
   */
  estimate(seq: number): number {
    let v = this.roc;
    if (this.started) {
      if (this.sl < 32768) {
        if (seq - this.sl > 32768) v = this.roc - 1;
      } else if (this.sl - 32768 > seq) {
        v = this.roc + 1;
      }
    }
    if (v < 0 || v > 0xffffffff) return -1;
    return v * 65536 + seq;
  }

  /** After authentication: update s_l / ROC (Appendix A) and the replay window. */
  commit(seq: number, index: number): void {
    const v = (index - seq) / 65536;
    if (!this.started) {
      this.started = true;
      this.roc = v;
      this.sl = seq;
    } else if (v === this.roc + 1) {
      this.roc = v;
      this.sl = seq;
    } else if (v === this.roc && seq > this.sl) {
      this.sl = seq;
    }
    this.replay.commit(index);
  }

  /**
   * After a packet authenticated only with the sender's own rollover counter (not the
   * estimate): take its sequence number as s_l, so the next packets estimate as the sender counts.
   */
  follow(seq: number, index: number): void {
    this.roc = (index - seq) / 65536;
    this.sl = seq;
    if (index < this.replay.highest) this.replay.restart(index);
  }
}
