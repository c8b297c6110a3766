// Test-only relay behaviour for the receive-path conformance test (test/e2e/receive-path.test.ts):
// a burst that starts every viewer leg on the same packet (once `legs` legs are connected, on the
// first packet of a keyframe) and ends each after `packets` packets, so that every viewer sees
// exactly the same stream, faults included; and a shift of sequence numbers and timestamps so that
// both wrap a few packets into that stream.

import type { Leg } from "./leg.ts";

export interface BurstOptions {
  /** hold every leg until this many are connected, and then `settleMs` more */
  legs: number;
  /** after the last leg connected, so that every viewer's SRTP is up on its side too (300) */
  settleMs?: number;
  /** packets forwarded to each leg from the start, then none */
  packets: number;
}

export class Burst {
  private readonly opts: BurstOptions;
  private open = false;
  private allConnectedAt = -1;

  constructor(opts: BurstOptions) {
    this.opts = opts;
  }

  get limit(): number {
    return this.opts.packets;
  }

  /** Whether the burst has begun (the audio track starts its own with it). */
  get opened(): boolean {
    return this.open;
  }

  /** Whether this publisher packet is forwarded at all (legs' own limits aside). */
  admit(connectedLegs: number, keyframeStart: boolean, nowMs = performance.now()): boolean {
    if (this.open) return true;
    if (connectedLegs < this.opts.legs) {
      this.allConnectedAt = -1;
      return false;
    }
    if (this.allConnectedAt < 0) this.allConnectedAt = nowMs;
    if (keyframeStart && nowMs - this.allConnectedAt >= (this.opts.settleMs ?? 300)) this.open = true;
    return this.open;
  }
}

/**
 * Per leg: the packets sent to it so far, the fewer of its video and its audio when it has an audio
 * track (the burst limits both), so that a test can end its run once every leg has had the burst.
 */
export function burstSent(legs: Iterable<Leg>): number[] {
  return [...legs].map((l) =>
    l.audioTr === undefined ? l.forwarded : Math.min(l.forwarded, l.audioForwarded ?? 0),
  );
}

/** Maps publisher seq/ts so that both wrap `afterPackets` packets after the first one mapped. */
export class WrapShift {
  private readonly after: number;
  private started = false;
  private seqShift = 0;
  private tsShift = 0;

  constructor(afterPackets: number) {
    this.after = afterPackets;
  }

  /** Call once per forwarded publisher packet, before seq()/ts(). */
  see(seq: number, ts: number): void {
    if (this.started) return;
    this.started = true;
    this.seqShift = (65536 - this.after - seq) & 0xffff;
    // ~`after` packets at ~132 packets/s: the timestamp wraps at about the same time
    const ticks = Math.round((this.after / 132) * 90000);
    this.tsShift = (2 ** 32 - ticks - ts) >>> 0;
  }

  seq(seq: number): number {
    return (seq + this.seqShift) & 0xffff;
  }

  ts(ts: number): number {
    return (ts + this.tsShift) >>> 0;
  }
}
