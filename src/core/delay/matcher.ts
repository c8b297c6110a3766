// Matching a frame to its send instant across clip loops (docs/definitions.md#matcher), one per
// viewer. The clip index alone cannot say which send of it a frame is; the anchor (kA, tsA) of the
// last sampled match lets the RTP timestamp step, one frame duration per absolute frame, name the
// frame's own k. When the log holds that k with the frame's clip index, a newer send of the index
// found is aliased, not a sample; when that k is not logged yet, the log has not caught up with the
// frame (a split run's log travels on its own channel). The clip index of a k is the log's, never k
// mod N: the publisher cuts a GOP short for a keyframe on request. A simulcast publisher logs L
// layers (docs/definitions.md#simulcast-publisher): layer j's frame of absolute frame f is k = L·f + j
// and its clip index is j·N + i, so one frame duration steps k by L and the layer is the index's.
import type { SendEntry, SendLog } from "./sendlog.ts";

/**
 * sampled: `delayNs` holds t1 − t0; aliased / not_logged: invalid, no sample; behind: the frame's
 * own send is not in the log (yet), only older loops' sends of its index: no sample.
 */
export type MatchOutcome = "sampled" | "aliased" | "not_logged" | "behind";

export class Matcher {
  private readonly log: SendLog;
  private readonly slots: number;
  private readonly ticks: number;
  private readonly layers: number;
  private readonly layerFrames: number;
  private readonly found: SendEntry = { k: 0, t0Ns: 0 };
  private have = false;
  private kA = 0;
  private tsA = 0;
  /** t1 − t0 (ns) of the last "sampled" outcome; 0 after any other outcome. */
  delayNs = 0;

  /** `layers`: the simulcast layers the log holds (1: one encoding), loopFrames counting all of them. */
  constructor(log: SendLog, loopFrames: number, ticks: number, layers = 1) {
    this.log = log;
    this.slots = 4 * loopFrames;
    this.ticks = ticks;
    this.layers = layers;
    this.layerFrames = loopFrames / layers;
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
    const L = this.layers;
    if (this.have) {
      const dts = (ts - this.tsA) | 0; // int32: RTP wrap-safe
      if (dts % this.ticks === 0) {
        const kE =
          L === 1
            ? this.kA + dts / this.ticks
            : L * (Math.floor(this.kA / L) + dts / this.ticks) + Math.floor(i / this.layerFrames);
        // a frame of another layer than the anchor's one frame off its latest send is a server's
        // switch, which rewrites the new layer's timestamps (the relay's first frame of it one frame
        // after the old layer's last, the same picture), not a loop too old or too new
        const rewritten = L > 1 && Math.floor(i / this.layerFrames) !== this.kA % L && Math.abs(kE - kL) <= L;
        if (kE !== kL && !rewritten) {
          // the frame's own send: not logged yet (within the ring's reach), or logged as this index
          const recorded = this.log.recorded;
          if (kE > kL && kE >= recorded && kE < recorded + this.slots) return "behind";
          if (this.log.indexAt(kE) === i) return kL > kE ? "aliased" : "behind";
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
