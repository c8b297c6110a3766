// LoseEvery (docs/definitions.md#built-in-relay): a packet lost beneath a leg's NACK responder,
// so the responder's resend of that sequence number repairs it. Pure: the relay's send paths (the
// main thread's and a relay thread's) each keep one per leg.

/** LoseEvery on one leg: every n-th first transmission is lost; a resend of a lost one goes through. */
export class LossEvery {
  /** n: every n-th first transmission is lost */
  readonly every: number;
  private readonly lost = new Set<number>();
  private n = 0;

  constructor(every: number) {
    this.every = every;
  }

  /** Whether this send of `seq` reaches the wire. */
  pass(seq: number): boolean {
    if (this.lost.delete(seq)) return true;
    this.n++;
    if (this.n % this.every !== 0) return true;
    this.lost.add(seq);
    if (this.lost.size > 1024) this.lost.clear();
    return false;
  }
}
