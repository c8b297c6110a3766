// Summaries (docs/definitions.md#summaries-and-percentiles): exact nearest-rank summaries of
// per-viewer values, and the mergeable histogram for one-way delay and packet transit (an HDR
// histogram in whole microseconds with exact n / sum / min / max kept beside it).

import * as hdr from "hdr-histogram-js";
import type { EncodedHistogram, Summary } from "../types.ts";

const ZERO_SUMMARY: Summary = { n: 0, min: 0, mean: 0, p50: 0, p95: 0, p99: 0, max: 0 };

/** Nearest rank r = ceil(p/100 · n) clamped to [1, n] (1-based). */
export function nearestRank(p: number, n: number): number {
  const r = Math.ceil((p / 100) * n);
  return Math.max(1, Math.min(r, n));
}

/** Exact summary: sort a copy, nearest-rank percentiles, mean = sum / n. n = 0 → all zeros. */
export function exactSummary(values: readonly number[]): Summary {
  const n = values.length;
  if (n === 0) return { ...ZERO_SUMMARY };
  const sorted = Float64Array.from(values).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  const at = (p: number): number => sorted[nearestRank(p, n) - 1] ?? 0;
  return {
    n,
    min: sorted[0] ?? 0,
    mean: sum / n,
    p50: at(50),
    p95: at(95),
    p99: at(99),
    max: sorted[n - 1] ?? 0,
  };
}

const HIGHEST_US = 60_000_000; // 60 s
const HIGHEST_NS = HIGHEST_US * 1000;

/** Whole µs, round half up, clamped to [0, 60 s] (bucketing only). */
function bucketUs(ns: number): number {
  return Math.floor((Math.min(Math.max(ns, 0), HIGHEST_NS) + 500) / 1000);
}

/**
 * hdr counts-array index of a whole-µs value in [0, 2^32) for this configuration: bucket
 * b = max(0, floor(log2 us) − 7), index = b·128 + (us >> b). Exported for the test that pins
 * it against hdr's own countsArrayIndex.
 */
export function countsIndexUs(us: number): number {
  const b = Math.max(0, 24 - Math.clz32(us));
  return (b << 7) + (us >>> b);
}

/** Counts per block of the recording form (a power of two: a sub-bucket half). */
const BLOCK_SHIFT = 7;
const BLOCK_COUNTS = 1 << BLOCK_SHIFT;

function newHdr(): hdr.JsHistogram {
  const h = hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: HIGHEST_US,
    numberOfSignificantValueDigits: 2,
    bitBucketSize: 32,
    autoResize: false,
    useWebAssembly: false,
  });
  // internal: invariant, hdr-histogram-js builds a JsHistogram for these options
  if (!(h instanceof hdr.JsHistogram)) throw new Error("stats: hdr-histogram-js did not build a JsHistogram");
  return h;
}

/**
 * Mergeable histogram of nanosecond values (one-way delay, packet transit). Buckets are
 * hdr-histogram-js with 2 significant digits over whole microseconds 0..60 s; values outside
 * are clamped for bucketing only. n, sum, min and max are exact (ns).
 */
export class DelayHistogram {
  static readonly precisionNote =
    "histogram percentiles are HDR histogram bucket midpoints (2 significant digits: a bucket is at most 1/128 of its values wide, so the midpoint is within ±0.4 % of any value in it; exact to 1 µs below 256 µs); min, max and mean are exact";

  /**
   * Before the first read (quantile, merge, encode), the bucket counts live in blocks of
   * BLOCK_COUNTS allocated as values land in them: one-way delays and transits of a viewer span a
   * few binary orders of magnitude, so a viewer's five histograms hold a few KB instead of 10 KB
   * each. The first read builds the hdr histogram from the blocks; from then on it holds them.
   */
  private blocks: (Uint32Array | undefined)[] = [];
  /** the smallest value above 0 µs recorded into the blocks (hdr keeps it beside its min) */
  private minNonZeroUs = Number.POSITIVE_INFINITY;
  private h: hdr.JsHistogram | null = null;
  private n = 0;
  private sumNs = 0;
  private minNs = 0;
  private maxNs = 0;

  /** Record one value in ns (hot path: no allocation but a block's first value). */
  recordNs(ns: number): void {
    // Same index as hdr's countsArrayIndex for 2 significant digits (sub-bucket count 256,
    // unit 1 µs), without its log2/pow: ~5 ns instead of ~120 ns per record.
    const us = bucketUs(ns);
    const i = countsIndexUs(us);
    const h = this.h;
    if (h !== null) {
      h.incrementCountAtIndex(i);
      h.incrementTotalCount();
      h.updateMinAndMax(us);
    } else {
      if (us !== 0 && us < this.minNonZeroUs) this.minNonZeroUs = us;
      const block = this.blocks[i >>> BLOCK_SHIFT] ?? this.newBlock(i >>> BLOCK_SHIFT);
      block[i & (BLOCK_COUNTS - 1)]!++;
    }
    if (this.n === 0) {
      this.minNs = ns;
      this.maxNs = ns;
    } else {
      if (ns < this.minNs) this.minNs = ns;
      if (ns > this.maxNs) this.maxNs = ns;
    }
    this.n++;
    this.sumNs += ns;
  }

  /** Bytes the bucket counts hold now (blocks, or the hdr histogram once built). */
  get countsBytes(): number {
    if (this.h !== null) return this.h.estimatedFootprintInBytes;
    let bytes = 0;
    for (const b of this.blocks) if (b !== undefined) bytes += b.byteLength;
    return bytes;
  }

  private newBlock(b: number): Uint32Array {
    const block = new Uint32Array(BLOCK_COUNTS);
    this.blocks[b] = block;
    return block;
  }

  get count(): number {
    return this.n;
  }

  /**
   * Nearest-rank quantile in ns: rank 1 → exact min, rank n → exact max, otherwise the midpoint
   * of the bucket holding rank r, clamped into [min, max]. 0 when empty.
   */
  quantileNs(p: number): number {
    const n = this.n;
    if (n === 0) return 0;
    const r = nearestRank(p, n);
    if (r === 1) return this.minNs;
    if (r === n) return this.maxNs;
    const h = this.counts();
    // Only the index range between the exact min and max can hold counts.
    const lo = h.countsArrayIndex(bucketUs(this.minNs));
    const hi = h.countsArrayIndex(bucketUs(this.maxNs));
    let index = hi;
    if (r <= n / 2) {
      let acc = 0;
      for (let i = lo; i <= hi; i++) {
        acc += h.getCountAtIndex(i);
        if (acc >= r) {
          index = i;
          break;
        }
      }
    } else {
      // walk down: the bucket holding rank r is the first from the top where the count of
      // values above it is < n − r + 1
      let above = 0;
      const need = n - r + 1; // values with rank ≥ r
      for (let i = hi; i >= lo; i--) {
        above += h.getCountAtIndex(i);
        if (above >= need) {
          index = i;
          break;
        }
      }
    }
    const lowUs = h.valueFromIndex(index);
    const midUs = lowUs + h.sizeOfEquivalentValueRange(lowUs) / 2;
    const midNs = midUs * 1000;
    return Math.min(Math.max(midNs, this.minNs), this.maxNs);
  }

  /** p50, p99 and the exact max in ms (the client's own lags); undefined when empty, never zeros. */
  p50p99MaxMs(): { p50: number; p99: number; max: number } | undefined {
    if (this.n === 0) return undefined;
    return { p50: this.quantileNs(50) / 1e6, p99: this.quantileNs(99) / 1e6, max: this.maxNs / 1e6 };
  }

  /** Seven-number summary in ms (min/max/mean exact, p50/p95/p99 from quantileNs). */
  summaryMs(): Summary {
    if (this.n === 0) return { ...ZERO_SUMMARY };
    return {
      n: this.n,
      min: this.minNs / 1e6,
      mean: this.sumNs / this.n / 1e6,
      p50: this.quantileNs(50) / 1e6,
      p95: this.quantileNs(95) / 1e6,
      p99: this.quantileNs(99) / 1e6,
      max: this.maxNs / 1e6,
    };
  }

  /** Exact merge: bucket counts add, n/sum add, min/max combine. */
  add(other: DelayHistogram): void {
    if (other.n === 0) return;
    this.counts().add(other.counts());
    if (this.n === 0) {
      this.minNs = other.minNs;
      this.maxNs = other.maxNs;
    } else {
      if (other.minNs < this.minNs) this.minNs = other.minNs;
      if (other.maxNs > this.maxNs) this.maxNs = other.maxNs;
    }
    this.n += other.n;
    this.sumNs += other.sumNs;
  }

  /**
   * A new histogram holding every value of the given ones (an exact merge). A viewer records a
   * frame's delay once, in its keyframe or its delta-frame histogram, and builds the histogram of
   * all frames from the two at the end instead of keeping a third set of buckets.
   */
  static union(...parts: readonly DelayHistogram[]): DelayHistogram {
    const out = new DelayHistogram();
    for (const p of parts) out.add(p);
    return out;
  }

  /** Each non-empty bucket, ascending: its lowest whole-µs value, its width in µs, its count. */
  forEachBucket(fn: (lowUs: number, widthUs: number, count: number) => void): void {
    if (this.n === 0) return;
    const h = this.counts();
    for (let i = 0; i < h.countsArrayLength; i++) {
      const count = h.getCountAtIndex(i);
      if (count === 0) continue;
      const lowUs = h.valueFromIndex(i);
      fn(lowUs, h.sizeOfEquivalentValueRange(lowUs), count);
    }
  }

  encode(): EncodedHistogram {
    return {
      hdr: this.n === 0 ? "" : hdr.encodeIntoCompressedBase64(this.counts()),
      n: this.n,
      sumNs: this.sumNs,
      minNs: this.minNs,
      maxNs: this.maxNs,
    };
  }

  static decode(e: EncodedHistogram): DelayHistogram {
    const out = new DelayHistogram();
    if (e.n === 0) return out;
    const decoded = hdr.decodeFromCompressedBase64(e.hdr, 32, false);
    // internal: what this process encoded decodes; an agent's histogram is checked by histogramOk
    // (main/agents/shapes.ts), which catches this and the count check below
    if (!(decoded instanceof hdr.JsHistogram)) throw new Error("stats: cannot decode histogram");
    if (decoded.totalCount !== e.n) {
      // internal: as above
      throw new Error(`stats: histogram holds ${decoded.totalCount} values, expected ${e.n}`);
    }
    out.counts().add(decoded);
    out.n = e.n;
    out.sumNs = e.sumNs;
    out.minNs = e.minNs;
    out.maxNs = e.maxNs;
    return out;
  }

  private counts(): hdr.JsHistogram {
    if (this.h !== null) return this.h;
    const h = newHdr();
    const blocks = this.blocks;
    if (blocks.length > 0) {
      for (let b = 0; b < blocks.length; b++) {
        const block = blocks[b];
        if (block === undefined) continue;
        for (let j = 0; j < BLOCK_COUNTS; j++) {
          const c = block[j]!;
          if (c !== 0) h.addToCountAtIndex((b << BLOCK_SHIFT) + j, c);
        }
      }
      h.setTotalCount(this.n);
      // hdr's min and max are of the bucketed values; bucketing keeps the order
      if (this.minNonZeroUs !== Number.POSITIVE_INFINITY) h.updateMinAndMax(this.minNonZeroUs);
      h.updateMinAndMax(bucketUs(this.maxNs));
    }
    this.blocks = [];
    this.h = h;
    return h;
  }
}
