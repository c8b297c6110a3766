// The second one-way delay source, `stamp` (one the reference planned but never built): per complete frame,
// from the abs-capture-time stamp of the frame's first packet (lowest sequence number, the
// publisher's wall clock at its send) to the arrival of the frame's last packet, read on the
// publisher's wall clock: in a single-process run both ends read one clock; in a split run the
// measured clock offset is added to the arrival. Never averaged with the fingerprint source.

import { zeroCounts } from "../figures.ts";
import type { CompletedFrame } from "../rtp/reassembler.ts";
import { DelayHistogram } from "../stats/summaries.ts";
import type { StampDelayCounters } from "../types.ts";
import { VIEWER_DELAY_COUNTERS } from "./counters.ts";
import { FrameHeads } from "./frame-heads.ts";

/** A stamp delay below zero or above this is invalid (clocks, or a rewritten extension). */
export const MAX_PLAUSIBLE_STAMP_DELAY_NS = 60e9;
/** Frames whose first packet is still remembered; older ones (given up as incomplete) are dropped. */
const MAX_OPEN_FRAMES = 128;

export function emptyStampCounters(): StampDelayCounters {
  return { frameEnd: "", ...zeroCounts(VIEWER_DELAY_COUNTERS) };
}

export class StampDelay {
  /**
   * publisher wall clock minus this process's monotonic clock, ns, at [0]; updated by the caller as
   * the offset is measured
   */
  private readonly pubWallMinusMono: Float64Array;
  private readonly heads = new FrameHeads(MAX_OPEN_FRAMES);
  // every sample goes to exactly one of these two; all() is their union
  readonly keyHist = new DelayHistogram();
  readonly deltaHist = new DelayHistogram();
  private readonly c: StampDelayCounters = emptyStampCounters();

  private readonly onSample: ((delayNs: number) => void) | null;

  constructor(pubWallMinusMono: Float64Array, onSample: ((delayNs: number) => void) | null = null) {
    this.pubWallMinusMono = pubWallMinusMono;
    this.onSample = onSample;
  }

  /**
   * Every packet of a frame-carrying stream: remember the stamp (−1: the packet had none) of each
   * frame's lowest sequence number.
   */
  packet(seq: number, ts: number, stampNs: number, keyStart: boolean): void {
    const heads = this.heads;
    const s = heads.find(ts);
    if (s < 0) heads.add(ts, seq, stampNs, keyStart);
    else if (((seq - heads.seqAt(s)) << 16) >> 16 < 0) heads.set(s, seq, stampNs, keyStart);
  }

  /** A complete frame; `excluded` when its first packet arrived inside the viewer's window. */
  frame(f: CompletedFrame, excluded: boolean): void {
    const c = this.c;
    c.completeFrames++;
    const heads = this.heads;
    const s = heads.find(f.timestamp);
    const stampNs = s >= 0 ? heads.stampAt(s) : -1;
    const key = s >= 0 && heads.keyAt(s);
    if (s >= 0) heads.remove(s);
    if (excluded) {
      c.excludedFrames++;
      return;
    }
    if (stampNs === -1) {
      c.unmatchedFrames++;
      return;
    }
    const delay = f.arrivalNs + (this.pubWallMinusMono[0] as number) - stampNs;
    if (delay < 0 || delay > MAX_PLAUSIBLE_STAMP_DELAY_NS) {
      c.invalid++;
      return;
    }
    c.samples++;
    if (this.onSample !== null) this.onSample(delay);
    if (key) {
      c.keyframeSamples++;
      this.keyHist.recordNs(delay);
    } else {
      c.deltaFrameSamples++;
      this.deltaHist.recordNs(delay);
    }
  }

  /** The histogram of every sample: the union of the keyframe and delta-frame ones. */
  all(): DelayHistogram {
    return DelayHistogram.union(this.keyHist, this.deltaHist);
  }

  counters(): StampDelayCounters {
    return { ...this.c };
  }
}
