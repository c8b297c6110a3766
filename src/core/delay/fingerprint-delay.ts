// The headline one-way delay source, `fingerprint` (docs/definitions.md#fingerprint-source), beside
// `StampDelay`: each complete frame is hashed, looked up in the clip table and matched to the
// latest send of that clip frame at or before its last packet's arrival; the sample is that
// arrival minus the send instant, on this process's monotonic clock. In a split run the send log's
// entries travel over their own channel and may arrive after the frame they time: a frame (already
// hashed, its payload not kept) waits until the log holds a send after its arrival, when the log
// is what an in-process one was at that arrival, or at most `logWaitNs`; it is matched then, still
// with its own arrival as t1.

import { zeroCounts } from "../figures.ts";
import type { CompletedFrame } from "../rtp/reassembler.ts";
import { DelayHistogram } from "../stats/summaries.ts";
import type { Codec, OneWayDelayCounters, ViewerRecord } from "../types.ts";
import type { AvOffset } from "./av-offset.ts";
import { VIEWER_DELAY_COUNTERS } from "./counters.ts";
import type { ClipTable, Hasher } from "./fingerprint.ts";
import { LayerStays } from "./layer-stays.ts";
import { Matcher } from "./matcher.ts";
import type { SendLog } from "./sendlog.ts";

export interface FingerprintDelayOptions {
  codec: Codec;
  hasher: Hasher;
  table: ClipTable;
  sendLog: SendLog;
  /** 0: match each frame at once; else the longest a frame waits for the log to pass its arrival */
  logWaitNs: number;
  /** live-metric hook, called with every sample (the same samples as the histograms) */
  onSample: ((delayNs: number, keyframe: boolean, layer: number) => void) | null;
  /** the viewer's A/V offset, which takes every sample with its frame's arrival (an audio run) */
  offset?: AvOffset | null;
}

/**
 * What became of one complete frame before the sample window is applied, as `outcome()` returns
 * it: a sampled frame's clip index (≥ 0; its delay is the matcher's), or one of these (no
 * allocation per frame).
 */
const INVALID = -1;
const UNMATCHED = -2;
const DUPLICATE = -3;

/** The record's per-layer fields (FingerprintDelay.layerRecord). */
export type LayerRecordKeys =
  | "layerSamples"
  | "layerNs"
  | "layerDelayHists"
  | "layerFrames"
  | "layerExcluded";

/** A completed frame waiting for its match: its fingerprint and instants, not its payload. */
interface HashedFrame {
  fp: bigint | null;
  timestamp: number;
  arrivalNs: number;
  excluded: boolean;
}

/** The fingerprint counters of a viewer whose fingerprint source did not run. */
export const NO_FINGERPRINT: Readonly<Omit<OneWayDelayCounters, "frameEnd">> = {
  ...zeroCounts(VIEWER_DELAY_COUNTERS),
  duplicateFrames: 0,
};

export class FingerprintDelay {
  // every sample goes to exactly one of these two; all() is their union
  readonly keyHist = new DelayHistogram();
  readonly deltaHist = new DelayHistogram();

  private readonly codec: Codec;
  private readonly hasher: Hasher;
  private readonly table: ClipTable;
  private readonly matcher: Matcher;
  private readonly log: SendLog;
  private readonly logWaitNs: number;
  private readonly onSample: ((delayNs: number, keyframe: boolean, layer: number) => void) | null;
  private readonly offset: AvOffset | null;
  private readonly deferred: HashedFrame[] = [];
  /** each simulcast layer's samples, lowest first (docs/definitions.md#layer-delay); null: one encoding */
  private readonly perLayer: DelayHistogram[] | null;
  /** per layer, the complete frames whose fingerprint named it, and those of them excluded */
  private readonly framesPerLayer: number[] | null;
  private readonly excludedPerLayer: number[] | null;
  /** the layer the last outcome's fingerprint named; -1: none */
  private lastLayer = -1;
  private readonly layerFrames: number;
  /** the viewer's stays on layers, with simulcast (layer-stays.ts) */
  readonly stays: LayerStays | null;
  /** the frame counters (core/delay/counters.ts); the reassembler's stay 0 here */
  private readonly c: Omit<OneWayDelayCounters, "frameEnd"> = { ...NO_FINGERPRINT };

  constructor(opts: FingerprintDelayOptions) {
    this.codec = opts.codec;
    this.hasher = opts.hasher;
    this.table = opts.table;
    this.matcher = new Matcher(opts.sendLog, opts.table.loopFrames, opts.table.ticks, opts.table.layers);
    this.log = opts.sendLog;
    this.logWaitNs = opts.logWaitNs;
    this.onSample = opts.onSample;
    this.offset = opts.offset ?? null;
    const layers = opts.table.layers;
    this.perLayer = layers > 1 ? Array.from({ length: layers }, () => new DelayHistogram()) : null;
    this.framesPerLayer = layers > 1 ? new Array<number>(layers).fill(0) : null;
    this.excludedPerLayer = layers > 1 ? new Array<number>(layers).fill(0) : null;
    this.layerFrames = opts.table.loopFrames / layers;
    this.stays = layers > 1 ? new LayerStays(layers) : null;
  }

  /** A complete frame; `excluded` when its first packet arrived inside the viewer's window. */
  frame(f: CompletedFrame, excluded: boolean): void {
    const fp = f.pieces !== null ? this.hasher.fingerprintPieces(this.codec, f.pieces) : null;
    if (this.logWaitNs > 0) {
      this.deferred.push({ fp, timestamp: f.timestamp, arrivalNs: f.arrivalNs, excluded });
    } else {
      this.count(this.outcome(fp, f.timestamp, f.arrivalNs, true), f.arrivalNs, excluded);
    }
  }

  /**
   * Match the deferred frames, in order, whose arrival the log has passed (it holds a send after
   * it), or that have waited logWaitNs by `nowNs`.
   */
  due(nowNs: number): void {
    const d = this.deferred;
    if (d.length === 0) return;
    const newestNs = this.log.newestNs();
    let n = 0;
    while (n < d.length) {
      const h = d[n] as HashedFrame;
      const covered = newestNs > h.arrivalNs;
      if (!covered && nowNs - h.arrivalNs < this.logWaitNs) break;
      this.count(this.outcome(h.fp, h.timestamp, h.arrivalNs, covered), h.arrivalNs, h.excluded);
      n++;
    }
    if (n > 0) d.splice(0, n);
  }

  /** Every deferred frame, matched now (the viewer stops). */
  flush(): void {
    this.due(Number.POSITIVE_INFINITY);
  }

  /**
   * The frame's outcome from its fingerprint (null: rejected by the depacketiser or nothing to
   * hash). Taken for an excluded frame too, so the matcher's anchor moves as without the window.
   * A frame the log has not passed (`covered` false) may have its own send missing: only the
   * matcher's anchor can tell a loop older than its own, so without one it is invalid.
   */
  private outcome(fp: bigint | null, timestamp: number, arrivalNs: number, covered: boolean): number {
    this.lastLayer = -1;
    if (fp === null) return UNMATCHED;
    const hit = this.table.lookup(fp);
    if (hit.status === "duplicate") return DUPLICATE;
    if (hit.status !== "unique") return UNMATCHED;
    if (this.stays !== null) {
      this.lastLayer = Math.floor(hit.index / this.layerFrames);
      this.stays.frame(this.lastLayer, arrivalNs, timestamp, this.table.isKeyframe(hit.index));
    }
    if (!covered && this.matcher.anchorK < 0) return INVALID;
    if (this.matcher.match(hit.index, timestamp, arrivalNs) !== "sampled") return INVALID;
    return hit.index;
  }

  /**
   * Counts a frame's outcome; a sampled one (`outcome` ≥ 0, its clip index) gives the sample the
   * matcher's match just measured, its frame arrived at `t1Ns`.
   */
  private count(outcome: number, t1Ns: number, excluded: boolean): void {
    const c = this.c;
    c.completeFrames++;
    if (this.framesPerLayer !== null && this.lastLayer >= 0) this.framesPerLayer[this.lastLayer]!++;
    if (excluded) {
      c.excludedFrames++;
      if (this.excludedPerLayer !== null && this.lastLayer >= 0) this.excludedPerLayer[this.lastLayer]!++;
      return;
    }
    if (outcome >= 0) {
      const delayNs = this.matcher.delayNs;
      const key = this.table.isKeyframe(outcome);
      c.samples++;
      if (key) {
        c.keyframeSamples++;
        this.keyHist.recordNs(delayNs);
      } else {
        c.deltaFrameSamples++;
        this.deltaHist.recordNs(delayNs);
      }
      const perLayer = this.perLayer;
      const layer = perLayer !== null ? Math.floor(outcome / this.layerFrames) : -1;
      if (this.onSample !== null) this.onSample(delayNs, key, layer);
      if (perLayer !== null) perLayer[layer]!.recordNs(delayNs);
      if (this.offset !== null) this.offset.videoSample(t1Ns, delayNs);
    } else if (outcome === INVALID) c.invalid++;
    else if (outcome === UNMATCHED) c.unmatchedFrames++;
    else c.duplicateFrames++;
  }

  /**
   * The record's per-layer figures, lowest first (docs/definitions.md#layer): samples, time on the
   * layer (layer-stays.ts), the samples' histogram, the frames naming it and those excluded; {} for
   * one encoding.
   */
  layerRecord(): Pick<ViewerRecord, LayerRecordKeys> {
    const per = this.perLayer;
    if (per === null || this.stays === null) return {};
    return {
      layerSamples: per.map((h) => h.count),
      layerNs: this.stays.timesNs(),
      layerDelayHists: per.map((h) => h.encode()),
      layerFrames: [...(this.framesPerLayer ?? [])],
      layerExcluded: [...(this.excludedPerLayer ?? [])],
    };
  }

  /** The histogram of every sample: the union of the keyframe and delta-frame ones. */
  all(): DelayHistogram {
    return DelayHistogram.union(this.keyHist, this.deltaHist);
  }

  /**
   * The frame counters; the reassembler's figures (frame end, incomplete, late) are the caller's
   * (0 here).
   */
  counters(): Omit<OneWayDelayCounters, "frameEnd"> {
    return { ...this.c };
  }
}
