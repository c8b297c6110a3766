// The second one-way delay source, `stamp` (one the reference planned but never built): per complete frame,
// from the abs-capture-time stamp of the frame's first packet (lowest sequence number, the
// publisher's wall clock at its send) to the arrival of the frame's last packet, read on the
// publisher's wall clock: in a single-process run both ends read one clock; in a split run the
// measured clock offset is added to the arrival. Never averaged with the fingerprint source.
import type { CompletedFrame } from "../rtp/reassembler.ts";
import { DelayHistogram } from "../stats/summaries.ts";
import type { StampDelayCounters } from "../types.ts";

/** A stamp delay below zero or above this is invalid (clocks, or a rewritten extension). */
export const MAX_PLAUSIBLE_STAMP_DELAY_NS = 60e9;
/** Frames whose first packet is still remembered; older ones (given up as incomplete) are dropped. */
const MAX_OPEN_FRAMES = 128;

export function emptyStampCounters(): StampDelayCounters {
  return {
    frameEnd: "",
    completeFrames: 0,
    incompleteFrames: 0,
    lateCompletedFrames: 0,
    samples: 0,
    invalid: 0,
    unstampedFrames: 0,
    excludedFrames: 0,
    keyframeSamples: 0,
    deltaFrameSamples: 0,
  };
}

interface FrameHead {
  seq: number;
  stampNs: number;
  key: boolean;
}

export class StampDelay {
  /**
   * publisher wall clock minus this process's monotonic clock, ns, at [0]; updated by the caller as
   * the offset is measured
   */
  private readonly pubWallMinusMono: Float64Array;
  private readonly heads = new Map<number, FrameHead>();
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
    const head = this.heads.get(ts);
    if (head === undefined) {
      if (this.heads.size >= MAX_OPEN_FRAMES) {
        const oldest = this.heads.keys().next();
        if (!oldest.done) this.heads.delete(oldest.value);
      }
      this.heads.set(ts, { seq, stampNs, key: keyStart });
    } else if (((seq - head.seq) << 16) >> 16 < 0) {
      head.seq = seq;
      head.stampNs = stampNs;
      head.key = keyStart;
    }
  }

  /** A complete frame; `excluded` when its first packet arrived inside the viewer's window. */
  frame(f: CompletedFrame, excluded: boolean): void {
    const c = this.c;
    c.completeFrames++;
    const head = this.heads.get(f.timestamp);
    if (head !== undefined) this.heads.delete(f.timestamp);
    if (excluded) {
      c.excludedFrames++;
      return;
    }
    if (head === undefined || head.stampNs === -1) {
      c.unstampedFrames++;
      return;
    }
    const delay = f.arrivalNs + (this.pubWallMinusMono[0] as number) - head.stampNs;
    if (delay < 0 || delay > MAX_PLAUSIBLE_STAMP_DELAY_NS) {
      c.invalid++;
      return;
    }
    c.samples++;
    if (this.onSample !== null) this.onSample(delay);
    if (head.key) {
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
