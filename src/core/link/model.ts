// One direction of one viewer's emulated link (docs/definitions.md#link-emulator), pure: given a
// datagram's size and the instant it enters the link, it says when it leaves the far end, or
// that it is dropped, and counts what it did. In order: the active profile (base and timed
// steps), random loss, Gilbert–Elliott burst loss, the rate limit's queue (tail drop), then
// fixed delay plus jitter; without `reorder` no datagram leaves before the one ahead of it.

import { splitmixOutputs } from "../stats/splitmix.ts";
import { DEFAULT_QUEUE_NS, type DirectionProfile, type LinkCounts, type LinkStep } from "./types.ts";

/** `decide`'s answers besides a delivery instant. */
export const DROP_LOSS = -1;
export const DROP_QUEUE = -2;

/**
 * sfc32 seeded from four SplitMix64 outputs of the cohort's seed, the viewer and the direction:
 * a fast 32-bit generator (SplitMix64 in BigInt costs microseconds a draw), deterministic per
 * datagram index.
 */
export class LinkRandom {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number, viewerId: number, direction: 0 | 1) {
    const mixed = BigInt(seed) * 0x20000n + BigInt(viewerId) * 2n + BigInt(direction);
    const [x, y] = splitmixOutputs(mixed, 2) as [bigint, bigint];
    this.a = Number(x & 0xffffffffn);
    this.b = Number(x >> 32n);
    this.c = Number(y & 0xffffffffn);
    this.d = 1;
    for (let i = 0; i < 12; i++) this.next();
  }

  /** A uniform draw in [0, 1). */
  next(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return (t >>> 0) / 4294967296;
  }

  /** A standard normal draw (Box–Muller). */
  normal(): number {
    const u = 1 - this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.next());
  }
}

/** The profile in force: the base with every active step's fields over it, later steps winning. */
export function activeProfile(base: DirectionProfile, steps: readonly DirectionProfile[]): DirectionProfile {
  let p = base;
  for (const s of steps) p = { ...p, ...s };
  return p;
}

export class LinkDirection {
  readonly counts: LinkCounts = { datagrams: 0, delayed: 0, droppedLoss: 0, droppedQueue: 0 };
  private readonly base: DirectionProfile;
  private readonly steps: { atNs: number; endNs: number; p: DirectionProfile }[];
  private readonly originNs: number;
  private readonly rng: LinkRandom;
  private profile: DirectionProfile;
  /** the active profile holds from `validFromNs` (relative) until `validUntilNs` */
  private validFromNs = Number.POSITIVE_INFINITY;
  private validUntilNs = Number.NEGATIVE_INFINITY;
  private bad = false;
  private busyUntilNs = Number.NEGATIVE_INFINITY;
  private lastOutNs = Number.NEGATIVE_INFINITY;

  /**
   * @param steps the cohort's steps; the ones naming this direction apply
   * @param originNs the instant step times count from (the run's t0)
   */
  constructor(
    base: DirectionProfile,
    steps: readonly LinkStep[],
    pick: "down" | "up",
    originNs: number,
    rng: LinkRandom,
  ) {
    this.base = base;
    this.steps = [];
    for (const s of steps) {
      const p = s[pick];
      if (p !== undefined) this.steps.push({ atNs: s.atNs, endNs: s.atNs + (s.forNs ?? Infinity), p });
    }
    this.originNs = originNs;
    this.rng = rng;
    this.profile = base;
  }

  /** Whether this direction never changes a datagram (no field, no step). */
  get transparent(): boolean {
    return this.steps.length === 0 && Object.keys(this.base).length === 0;
  }

  private profileAt(relNs: number): DirectionProfile {
    if (relNs >= this.validFromNs && relNs < this.validUntilNs) return this.profile;
    const active: DirectionProfile[] = [];
    let from = Number.NEGATIVE_INFINITY;
    let until = Number.POSITIVE_INFINITY;
    for (const s of this.steps) {
      if (relNs >= s.atNs && relNs < s.endNs) {
        active.push(s.p);
        from = Math.max(from, s.atNs);
        until = Math.min(until, s.endNs);
      } else if (relNs < s.atNs) until = Math.min(until, s.atNs);
      else from = Math.max(from, s.endNs);
    }
    this.profile = activeProfile(this.base, active);
    this.validFromNs = from;
    this.validUntilNs = until;
    return this.profile;
  }

  /** The instant a datagram of `bytes` entering at `nowNs` leaves the far end, or DROP_LOSS / DROP_QUEUE. */
  decide(bytes: number, nowNs: number): number {
    this.counts.datagrams++;
    const p = this.profileAt(nowNs - this.originNs);
    if (p.loss !== undefined && p.loss > 0 && this.rng.next() < p.loss) {
      this.counts.droppedLoss++;
      return DROP_LOSS;
    }
    const ge = p.burst;
    if (ge !== undefined) {
      if (this.rng.next() < (this.bad ? ge.leave : ge.enter)) this.bad = !this.bad;
      if (this.rng.next() < (this.bad ? ge.lossBad : ge.lossGood)) {
        this.counts.droppedLoss++;
        return DROP_LOSS;
      }
    }
    let out = nowNs;
    if (p.rateBps !== undefined) {
      const txNs = (bytes * 8e9) / p.rateBps;
      const backlogNs = Math.max(this.busyUntilNs - nowNs, 0);
      const full =
        p.queueBytes !== undefined
          ? (backlogNs * p.rateBps) / 8e9 + bytes > p.queueBytes
          : backlogNs > (p.queueNs ?? DEFAULT_QUEUE_NS);
      if (full) {
        this.counts.droppedQueue++;
        return DROP_QUEUE;
      }
      this.busyUntilNs = nowNs + backlogNs + txNs;
      out = this.busyUntilNs;
    }
    out += p.delayNs ?? 0;
    const j = p.jitterNs ?? 0;
    if (j > 0) {
      const draw = p.distribution === "normal" ? this.rng.normal() : this.rng.next() * 2 - 1;
      out = Math.max(out + draw * j, nowNs);
    }
    if (p.reorder !== true) out = Math.max(out, this.lastOutNs);
    this.lastOutNs = Math.max(this.lastOutNs, out);
    if (out > nowNs) this.counts.delayed++;
    return out;
  }
}
