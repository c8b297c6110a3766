// A viewer's stays on simulcast layers (docs/definitions.md#layer): runs of complete frames whose
// fingerprints name one layer, with the figures a layer switch is measured from
// (docs/definitions.md#layer-switches): a stay's first and last arrival, its first keyframe's arrival
// and the RTP timestamps at its two ends.

/** One stay: frames of `layer` (index, lowest first) from `fromNs` to `lastNs` (monotonic). */
export interface LayerStay {
  layer: number;
  /** the earliest and latest arrival of the stay's frames */
  fromNs: number;
  lastNs: number;
  /** the arrival of the stay's first complete keyframe; -1: none */
  firstKeyNs: number;
  /** the RTP timestamp of the stay's first frame and its newest one */
  firstTs: number;
  lastTs: number;
}

/**
 * Live hooks (docs/definitions.md#layer-metrics): `change` at a new stay's first frame after
 * another's, `key` at such a stay's first complete keyframe (the stay began at `fromNs`).
 */
export interface LayerStayHooks {
  change(from: number, to: number): void;
  key(layer: number, fromNs: number, keyNs: number): void;
}

/** Stays kept per viewer; a viewer that changes layers more often keeps its times, not its stays. */
export const MAX_STAYS = 256;

export class LayerStays {
  /** time on each layer (ns) of the stays before the current one */
  private readonly timeNs: number[];
  private readonly kept: LayerStay[] = [];
  private cur: LayerStay | null = null;
  /** stays beyond MAX_STAYS, not kept */
  dropped = 0;
  /** the live hooks, when the viewer reports live figures */
  hooks: LayerStayHooks | null = null;
  /** the current stay followed another: a switch */
  private switched = false;

  constructor(layers: number) {
    this.timeNs = new Array<number>(layers).fill(0);
  }

  /**
   * A complete frame of `layer` arrived at `arrivalNs` with timestamp `ts`. Frames complete out of
   * arrival order (a first frame proven late, a retransmission): a stay spans the earliest and
   * latest arrival of its frames.
   */
  frame(layer: number, arrivalNs: number, ts: number, key: boolean): void {
    const s = this.cur;
    if (s === null || layer !== s.layer) {
      if (s !== null) this.timeNs[s.layer]! += Math.max(0, arrivalNs - s.fromNs);
      const next = {
        layer,
        fromNs: arrivalNs,
        lastNs: arrivalNs,
        firstKeyNs: key ? arrivalNs : -1,
        firstTs: ts,
        lastTs: ts,
      };
      this.cur = next;
      this.switched = s !== null;
      if (s !== null) this.hooks?.change(s.layer, layer);
      if (key && s !== null) this.hooks?.key(layer, arrivalNs, arrivalNs);
      if (this.kept.length < MAX_STAYS) this.kept.push(next);
      else this.dropped++;
      return;
    }
    if (arrivalNs < s.fromNs) s.fromNs = arrivalNs;
    if (arrivalNs > s.lastNs) s.lastNs = arrivalNs;
    if (key && s.firstKeyNs < 0 && this.switched) this.hooks?.key(layer, s.fromNs, arrivalNs);
    if (key && (s.firstKeyNs < 0 || arrivalNs < s.firstKeyNs)) s.firstKeyNs = arrivalNs;
    if (((ts - s.lastTs) | 0) > 0) s.lastTs = ts;
  }

  /** Time on each layer (ns), lowest first: every stay's, the last one to its latest frame. */
  timesNs(): number[] {
    const out = [...this.timeNs];
    const s = this.cur;
    if (s !== null) out[s.layer]! += s.lastNs - s.fromNs;
    return out;
  }

  /** The stays kept, in order (copies). */
  list(): LayerStay[] {
    return this.kept.map((s) => ({ ...s }));
  }
}
