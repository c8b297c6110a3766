// Matching a frame to its send instant across clip loops (docs/definitions.md#matcher), one per viewer. The clip
// index alone cannot say which loop a frame belongs to; the anchor (kA, tsA) of the last sampled
// match lets the RTP timestamp step say how many frames apart two matches really are, and a
// send whole loops newer than that is aliased, not a sample, and one whole loops older means the
// log has not caught up with the frame yet (a split run's log travels on its own channel).
import type { SendEntry, SendLog } from "./sendlog.ts";

/**
 * sampled: `delayNs` holds t1 − t0; aliased / not_logged: invalid, no sample; behind: the frame's
 * own send is not in the log (yet), only older loops' sends of its index: no sample.
 */
export type MatchOutcome = "sampled" | "aliased" | "not_logged" | "behind";

export class Matcher {
  private readonly log: SendLog;
  private readonly frames: number;
  private readonly ticks: number;
  private readonly found: SendEntry = { k: 0, t0Ns: 0 };
  private have = false;
  private kA = 0;
  private tsA = 0;
  /** t1 − t0 (ns) of the last "sampled" outcome; 0 after any other outcome. */
  delayNs = 0;

  constructor(log: SendLog, loopFrames: number, ticks: number) {
    this.log = log;
    this.frames = loopFrames;
    this.ticks = ticks;
  }

  /** Whether an anchor is set, and its absolute index and RTP timestamp (−1 when none). */
  get anchorK(): number {
    return this.have ? this.kA : -1;
  }
  get anchorTs(): number {
    return this.have ? this.tsA : -1;
  }

  /** Classifies a frame of clip index i, RTP timestamp ts, completed at t1Ns (monotonic). No allocation. */
  match(i: number, ts: number, t1Ns: number): MatchOutcome {
    this.delayNs = 0;
    const e = this.log.latest(i, t1Ns, this.found);
    if (e === null) return "not_logged";
    const kL = e.k;
    if (this.have) {
      const dts = (ts - this.tsA) | 0; // int32: RTP wrap-safe
      if (dts % this.ticks === 0) {
        const diff = kL - (this.kA + dts / this.ticks);
        if (diff % this.frames === 0) {
          if (diff >= this.frames) return "aliased";
          if (diff <= -this.frames) return "behind";
        }
      }
    }
    this.have = true;
    this.kA = kL;
    this.tsA = ts;
    this.delayNs = t1Ns - e.t0Ns;
    return "sampled";
  }
}
