// The built-in relay's impaired link of one viewer leg (docs/definitions.md#relay-link), pure: for
// every datagram the relay sends to the leg — STUN, DTLS, SRTP and SRTCP alike — it decides
// whether the datagram is lost, when each copy leaves (a fixed delay plus normal jitter, which may
// reorder) and whether a second copy goes too. Loss is independent per datagram, or in bursts by a
// Gilbert–Elliott chain whose mean burst length is `burstDatagrams` and whose long-run loss is
// `loss`. The draws come from a generator seeded by SplitMix64 from the seed and the leg's number,
// so the n-th datagram of a leg meets the same fate on every run with the same seed.

import { LinkRandom } from "./model.ts";

/** What one leg's link does; every chance 0..1, durations ns. */
export interface LegLinkProfile {
  /** long-run share of datagrams lost */
  loss: number;
  /** mean length of a loss burst, in datagrams (Gilbert–Elliott); absent or 1: independent loss */
  burstDatagrams?: number;
  /** fixed delay added to every copy */
  delayNs: number;
  /** standard deviation of the normal jitter added to the delay (copies may overtake each other) */
  jitterNs: number;
  /** chance a datagram that is not lost is sent twice (the copy with its own delay draw) */
  duplicate: number;
  /** the link touches nothing until this long after the leg's first datagram */
  afterNs: number;
  /** only SRTP and SRTCP cross the link; STUN and DTLS pass untouched (the handshake apart) */
  mediaOnly?: boolean;
  /** the seed of every leg's draws */
  seed: number;
}

/** What one leg's link did, by the kind of datagram (RFC 7983's first byte). */
export interface LegLinkCounts {
  datagrams: number;
  /** lost by random or burst loss */
  lost: number;
  /** copies that left later than they came */
  delayed: number;
  /** datagrams sent twice */
  duplicated: number;
  /** copies dropped because the leg's held queue was full (the bound on its memory) */
  overflow: number;
  /** of `datagrams`: STUN, DTLS, media (SRTP and SRTCP); and of `lost`, the same split */
  stun: number;
  dtls: number;
  media: number;
  lostStun: number;
  lostDtls: number;
  lostMedia: number;
}

export function emptyLegLinkCounts(): LegLinkCounts {
  return {
    datagrams: 0,
    lost: 0,
    delayed: 0,
    duplicated: 0,
    overflow: 0,
    stun: 0,
    dtls: 0,
    media: 0,
    lostStun: 0,
    lostDtls: 0,
    lostMedia: 0,
  };
}

/** Whether a profile changes anything at all. */
export function legLinkActive(p: LegLinkProfile): boolean {
  return p.loss > 0 || p.delayNs > 0 || p.jitterNs > 0 || p.duplicate > 0;
}

/** The Gilbert–Elliott chances that give mean burst length `burst` and long-run loss `loss`. */
export function burstChances(loss: number, burst: number): { enter: number; leave: number } {
  const leave = 1 / burst;
  if (loss >= 1) return { enter: 1, leave };
  // the bad state's long-run share enter / (enter + leave) is the loss
  return { enter: Math.min((loss * leave) / (1 - loss), 1), leave };
}

type Kind = 0 | 1 | 2;

/** STUN 0..3, DTLS 20..63, else media (the relay sends nothing else: no TURN). */
function kindOf(firstByte: number): Kind {
  if (firstByte <= 3) return 0;
  return firstByte >= 20 && firstByte <= 63 ? 1 : 2;
}

export class LegLink {
  readonly counts: LegLinkCounts = emptyLegLinkCounts();
  private readonly p: LegLinkProfile;
  private readonly rng: LinkRandom;
  private readonly burst: { enter: number; leave: number } | null;
  private bad = false;
  private originNs = Number.NaN;

  /** @param leg the leg's number (the n-th WHEP offer the relay took, from 1) */
  constructor(profile: LegLinkProfile, leg: number) {
    this.p = profile;
    this.rng = new LinkRandom(profile.seed, leg, 0);
    const b = profile.burstDatagrams;
    this.burst = b !== undefined && b > 1 && profile.loss > 0 ? burstChances(profile.loss, b) : null;
  }

  /**
   * The fate of one datagram (its first byte, the instant it is sent): returns how many copies
   * leave (0: lost; 1; 2: duplicated) and writes each copy's instant into `out`.
   */
  decide(firstByte: number, nowNs: number, out: Float64Array): number {
    const p = this.p;
    if (Number.isNaN(this.originNs)) this.originNs = nowNs;
    if (nowNs - this.originNs < p.afterNs) {
      out[0] = nowNs;
      return 1;
    }
    const c = this.counts;
    const kind = kindOf(firstByte);
    if (p.mediaOnly === true && kind !== 2) {
      out[0] = nowNs;
      return 1;
    }
    c.datagrams++;
    if (kind === 0) c.stun++;
    else if (kind === 1) c.dtls++;
    else c.media++;
    if (this.lose()) {
      c.lost++;
      if (kind === 0) c.lostStun++;
      else if (kind === 1) c.lostDtls++;
      else c.lostMedia++;
      return 0;
    }
    out[0] = this.instant(nowNs);
    if (p.duplicate > 0 && this.rng.next() < p.duplicate) {
      c.duplicated++;
      out[1] = this.instant(nowNs);
      return 2;
    }
    return 1;
  }

  private lose(): boolean {
    const ge = this.burst;
    if (ge === null) return this.p.loss > 0 && this.rng.next() < this.p.loss;
    if (this.rng.next() < (this.bad ? ge.leave : ge.enter)) this.bad = !this.bad;
    return this.bad;
  }

  private instant(nowNs: number): number {
    const p = this.p;
    let at = nowNs + p.delayNs;
    if (p.jitterNs > 0) at = Math.max(at + this.rng.normal() * p.jitterNs, nowNs);
    if (at > nowNs) this.counts.delayed++;
    return at;
  }
}
