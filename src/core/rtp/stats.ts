// Per-viewer RTP statistics (docs/definitions.md#rtp-statistics): loss from extended sequence
// numbers, RFC 3550 interarrival jitter, gaps and stalls, keyframe count and spacing, and the first
// complete keyframe (the join criterion). Pure arithmetic over (seq, timestamp, marker, arrival),
// fed once per packet in arrival order: no allocation per packet.
import type { RtpReport } from "../types.ts";

const SEQ_SPAN = 65536;

export interface RtpStatsOptions {
  /** RTP clock rate of the track (90 000 for video) */
  clockRate: number;
  /** a gap between two received packets of at least this many ns is a stall (0: none) */
  stallNs: number;
  /** whether a payload starts a keyframe (codec specific; `() => false` for other codecs) */
  keyframeStart: (payload: Uint8Array) => boolean;
  /**
   * push's instants are taken from this origin (ns; 0 when omitted): the viewer passes its arrival
   * instant and its POST here, so that no new number crosses the call (a double outside the small
   * integers is boxed on the heap when passed to a function that is not inlined)
   */
  originNs?: number;
}

export class RtpStats {
  private readonly clockRate: number;
  private readonly stallNs: number;
  private readonly originNs: number;
  private readonly keyframeStart: (payload: Uint8Array) => boolean;

  // Extended sequence numbers (RFC 3550 A.1) and the bitmap of the last 2^16 of them.
  private started = false;
  private cycles = 0; // multiple of 65536
  private maxSeq = 0;
  private baseExt = 0;
  private maxExt = 0;
  private readonly window = new Uint32Array(SEQ_SPAN / 32);
  private received = 0;
  private duplicates = 0;
  private tooLate = 0;

  // Jitter (RTP units), gaps (ns).
  private jitter = 0;
  private lastArrivalRtp = 0;
  private lastTs = 0;
  private firstArrivalNs = 0;
  private lastArrivalNs = 0;
  private stalls = 0;
  private stalledNs = 0;
  private longestGapNs = 0;

  // Keyframes: count and spacing of distinct key-start timestamps.
  private keyframes = 0;
  private haveKey = false;
  private lastKeyTs = 0;
  private intervals = 0;
  private intervalSumS = 0;
  private intervalMinS = 0;
  private intervalMaxS = 0;

  // First complete keyframe.
  private pending = false;
  private pendTs = 0;
  private pendStart = 0;
  private pendCount = 0;
  /**
   * arrival (ns, same origin as push's arrivalNs) of the first complete keyframe's marker packet;
   * −1 until then
   */
  firstKeyframeArrivalNs = -1;

  constructor(opts: RtpStatsOptions) {
    this.clockRate = opts.clockRate;
    this.stallNs = opts.stallNs;
    this.originNs = opts.originNs ?? 0;
    this.keyframeStart = opts.keyframeStart;
  }

  /**
   * Records one packet. `atNs` minus the origin is its arrival measured from the viewer's POST
   * (any fixed origin works: only differences and the RTP-unit conversion for jitter use it).
   * False when the packet was a duplicate or too late (counted, and nothing else may take it).
   */
  push(seq: number, ts: number, marker: boolean, payload: Uint8Array, atNs: number): boolean {
    if (!this.extend(seq)) return false;
    this.received++;
    const arrivalNs = atNs - this.originNs;

    // Interarrival jitter, RFC 3550 A.8, arrival converted to RTP units.
    const arr = (arrivalNs / 1e9) * this.clockRate;
    if (this.received > 1) {
      const d = arr - this.lastArrivalRtp - ((ts - this.lastTs) | 0);
      this.jitter += (Math.abs(d) - this.jitter) / 16;
      const gap = arrivalNs - this.lastArrivalNs;
      if (gap > this.longestGapNs) this.longestGapNs = gap;
      if (this.stallNs > 0 && gap >= this.stallNs) {
        this.stalls++;
        this.stalledNs += gap;
      }
    } else {
      this.firstArrivalNs = arrivalNs;
    }
    this.lastArrivalRtp = arr;
    this.lastTs = ts;
    this.lastArrivalNs = arrivalNs;

    this.keyframe(seq, ts, marker, this.keyframeStart(payload));
    return true;
  }

  /** Places seq on the extended line; false for a duplicate or a too-late packet (counted). */
  private extend(seq: number): boolean {
    if (!this.started) {
      this.started = true;
      this.maxSeq = seq;
      this.baseExt = seq;
      this.maxExt = seq;
      this.mark(seq);
      return true;
    }
    const delta = ((seq - this.maxSeq) << 16) >> 16; // int16
    if (delta > 0) {
      if (seq < this.maxSeq) this.cycles += SEQ_SPAN;
      const ext = this.cycles + seq;
      // The bits between the old maximum and the new one belonged to the previous cycle.
      if (ext - this.maxExt >= SEQ_SPAN) this.window.fill(0);
      else for (let e = this.maxExt + 1; e < ext; e++) this.unmark(e & 0xffff);
      this.maxSeq = seq;
      this.maxExt = ext;
      this.mark(seq);
      return true;
    }
    // Reordered, retransmitted or duplicate: the maximum's cycle or the one before.
    let ext = this.cycles + seq;
    if (seq > this.maxSeq) ext -= SEQ_SPAN;
    if (ext <= this.maxExt - SEQ_SPAN) {
      this.tooLate++;
      return false;
    }
    if (this.marked(seq)) {
      this.duplicates++;
      return false;
    }
    if (ext < this.baseExt) this.baseExt = ext; // the stream started earlier
    this.mark(seq);
    return true;
  }

  private mark(seq: number): void {
    this.window[seq >>> 5]! |= 1 << (seq & 31);
  }
  private unmark(seq: number): void {
    this.window[seq >>> 5]! &= ~(1 << (seq & 31));
  }
  private marked(seq: number): boolean {
    return (this.window[seq >>> 5]! & (1 << (seq & 31))) !== 0;
  }

  /** After push stored the packet's arrival (no number passed: see originNs). */
  private keyframe(seq: number, ts: number, marker: boolean, keyStart: boolean): void {
    if (keyStart) {
      if (!this.haveKey || ts !== this.lastKeyTs) {
        if (this.haveKey) {
          const s = ((ts - this.lastKeyTs) | 0) / this.clockRate;
          if (this.intervals === 0 || s < this.intervalMinS) this.intervalMinS = s;
          if (this.intervals === 0 || s > this.intervalMaxS) this.intervalMaxS = s;
          this.intervalSumS += s;
          this.intervals++;
        }
        this.keyframes++;
        this.lastKeyTs = ts;
        this.haveKey = true;
      }
      this.pending = true;
      this.pendTs = ts;
      this.pendStart = seq;
      this.pendCount = 0;
    }
    if (!this.pending || ts !== this.pendTs) return;
    this.pendCount++;
    if (marker) {
      if (((seq - this.pendStart) & 0xffff) + 1 === this.pendCount && this.firstKeyframeArrivalNs < 0) {
        this.firstKeyframeArrivalNs = this.lastArrivalNs;
      }
      this.pending = false;
    }
  }

  /** The statistics so far, in report units. */
  report(): RtpReport {
    let expected = 0;
    let lost = 0;
    let lossPercent = 0;
    let receivingSeconds = 0;
    if (this.started) {
      expected = this.maxExt - this.baseExt + 1;
      lost = Math.max(expected - this.received, 0);
      lossPercent = (lost / expected) * 100;
      receivingSeconds = (this.lastArrivalNs - this.firstArrivalNs) / 1e9;
    }
    const n = this.intervals;
    return {
      received: this.received,
      expected,
      lost,
      duplicates: this.duplicates,
      tooLate: this.tooLate,
      lossPercent,
      // RFC 3550 6.4.1: D needs two packets; before the second, J measured nothing (not 0)
      jitterMs: this.received > 1 ? (this.jitter / this.clockRate) * 1000 : null,
      receivingSeconds,
      stalls: this.stalls,
      stalledMs: this.stalledNs / 1e6,
      longestGapMs: this.longestGapNs / 1e6,
      keyframes: this.keyframes,
      keyframeIntervalMinS: n > 0 ? this.intervalMinS : 0,
      keyframeIntervalMeanS: n > 0 ? this.intervalSumS / n : 0,
      keyframeIntervalMaxS: n > 0 ? this.intervalMaxS : 0,
    };
  }
}
