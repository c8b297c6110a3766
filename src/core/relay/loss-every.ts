// LoseEvery (docs/definitions.md#built-in-relay): a packet lost beneath a leg's NACK responder,
// so the responder's resend of that sequence number repairs it. Pure: the relay's send paths (the
// main thread's and a relay thread's) each keep one per leg.

/**
 * LoseEvery on one leg: every n-th first transmission is lost; a resend goes through. A first
 * transmission is a sequence number newer than any sent before (RFC 1982 serial order over 16
 * bits); anything else is a resend, whether of a lost packet or a NACK retry's second copy of one
 * that was not, and neither counts toward n — so which packets are lost does not depend on how
 * many NACKs a viewer's ticks happened to send.
 */
export class LossEvery {
  /** n: every n-th first transmission is lost */
  readonly every: number;
  private readonly lost = new Set<number>();
  private n = 0;
  /** the newest sequence number sent, −1 before the first */
  private newest = -1;

  constructor(every: number) {
    this.every = every;
  }

  /** Whether this send of `seq` reaches the wire. */
  pass(seq: number): boolean {
    if (this.lost.delete(seq)) return true;
    const ahead = (seq - this.newest) & 0xffff;
    if (this.newest >= 0 && (ahead === 0 || ahead >= 0x8000)) return true;
    this.newest = seq;
    this.n++;
    if (this.n % this.every !== 0) return true;
    this.lost.add(seq);
    if (this.lost.size > 1024) this.lost.clear();
    return false;
  }
}
