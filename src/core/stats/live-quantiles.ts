// Quantiles over a sliding window of whole seconds, for the live progress line: log-spaced
// buckets (each 2 % wide) from 1 µs to 60 s, one bucket array per second of the window. Recording
// is one log and one increment; a quantile walks the buckets once. Accuracy is the bucket width
// (a quantile is the geometric middle of its bucket, within ±1 % of any value in it), which is
// plenty for a status line; the report's figures come from the exact histograms, not from here.

const MIN_NS = 1e3;
const MAX_NS = 60e9;
const GROWTH = 1.02;
const LOG_GROWTH = Math.log(GROWTH);
/** buckets between MIN_NS and MAX_NS, plus one below and one above */
export const LIVE_BUCKETS = Math.ceil(Math.log(MAX_NS / MIN_NS) / LOG_GROWTH) + 2;

function bucketOf(ns: number): number {
  if (!(ns >= MIN_NS)) return 0; // also NaN
  if (ns >= MAX_NS) return LIVE_BUCKETS - 1;
  return 1 + Math.floor(Math.log(ns / MIN_NS) / LOG_GROWTH);
}

/** Geometric middle of bucket b, ns. */
function middleOf(b: number): number {
  if (b <= 0) return MIN_NS;
  if (b >= LIVE_BUCKETS - 1) return MAX_NS;
  return MIN_NS * GROWTH ** (b - 1 + 0.5);
}

export class LiveQuantiles {
  private readonly slots: Uint32Array[];
  private readonly totals: number[];
  private current = 0;

  /** `seconds`: how many whole seconds the window holds (the current one included). */
  constructor(seconds: number) {
    const n = Math.max(1, Math.floor(seconds));
    this.slots = Array.from({ length: n }, () => new Uint32Array(LIVE_BUCKETS));
    this.totals = new Array<number>(n).fill(0);
  }

  /** Records values (ns) into the current second. */
  record(values: readonly number[]): void {
    const slot = this.slots[this.current]!;
    for (let i = 0; i < values.length; i++) slot[bucketOf(values[i]!)]!++;
    this.totals[this.current]! += values.length;
  }

  /** Moves the window on by one second: the oldest second is forgotten. */
  advance(): void {
    this.current = (this.current + 1) % this.slots.length;
    this.slots[this.current]!.fill(0);
    this.totals[this.current] = 0;
  }

  /** Values in the window. */
  get count(): number {
    let n = 0;
    for (const t of this.totals) n += t;
    return n;
  }

  /**
   * Nearest-rank quantiles (p in 0..100, ascending) over the window, ns; null when the window
   * is empty. One pass over the buckets for all of them.
   */
  quantilesNs(ps: readonly number[]): number[] | null {
    const n = this.count;
    if (n === 0) return null;
    const ranks = ps.map((p) => Math.max(1, Math.min(n, Math.ceil((p / 100) * n))));
    const out = new Array<number>(ps.length).fill(MAX_NS);
    let next = 0;
    let acc = 0;
    for (let b = 0; b < LIVE_BUCKETS && next < ranks.length; b++) {
      for (const slot of this.slots) acc += slot[b]!;
      while (next < ranks.length && acc >= ranks[next]!) out[next++] = middleOf(b);
    }
    return out;
  }
}
