// `whipbench relay --capacity N`: a deterministic knee for tests and demos. While more
// than N viewer legs exist on the relay (all streams together; a leg counts from its WHEP session's
// create until its DELETE, ICE failure or close, which is what each stream's `legs` holds), every
// leg drops every 20th media packet it is offered over capacity, before its RTP sender sees it, so
// no NACK can repair it; at N or fewer nothing is dropped.
import type { Leg } from "./leg.ts";

/** Over capacity, one packet in this many is dropped on every leg (5 %). */
export const CAPACITY_DROP_EVERY = 20;

export class CapacityGate {
  readonly capacity: number;
  private readonly streams: ReadonlyMap<string, { legs: ReadonlySet<Leg> }>;

  constructor(capacity: number, streams: ReadonlyMap<string, { legs: ReadonlySet<Leg> }>) {
    this.capacity = capacity;
    this.streams = streams;
  }

  /** Viewer legs on the relay now. */
  legs(): number {
    let n = 0;
    for (const s of this.streams.values()) n += s.legs.size;
    return n;
  }

  /** Whether the relay holds more legs than its capacity (asked once per publisher packet). */
  over(): boolean {
    return this.legs() > this.capacity;
  }
}

/** Over capacity: counts the leg's packet and says whether it is the one in 20 to drop. */
export function capacityDrop(leg: Leg): boolean {
  leg.overCapacity = (leg.overCapacity ?? 0) + 1;
  return leg.overCapacity % CAPACITY_DROP_EVERY === 0;
}
