// One viewer's per-packet pipeline (docs/definitions.md#viewer-pipeline), pure and synchronous:
// live counters, RTP statistics and join, packet transit from abs-capture-time, for a VP8/H.264
// track reassembly and the render model (what the viewer would have seen, keyframe requests), and
// when the run publishes fingerprint, clip lookup, matching and the one-way delay sample window.
// The caller (the viewer's read loop) owns the socket, the clock and the PLI timer.
import { keyframeStartH264 } from "../codec/h264.ts";
import { keyframeStartVp8 } from "../codec/vp8.ts";
import type { ViewerHistogramKey } from "../figures/histograms.ts";
import { ViewerRender } from "../render/viewer-render.ts";
import { reassemblerFor } from "../rtp/codec-frames.ts";
import type { PayloadStore } from "../rtp/payload-store.ts";
import type { Reassembler } from "../rtp/reassembler.ts";
import { RtpStats } from "../rtp/stats.ts";
import type { KeyframeRequestMode } from "../scenario/defaults.ts";
import { DelayHistogram } from "../stats/summaries.ts";
import type { Codec, OneWayDelayBlocker, ViewerRecord } from "../types.ts";
import type { AvOffset } from "./av-offset.ts";
import type { ClipTable, Hasher } from "./fingerprint.ts";
import { FingerprintDelay, type LayerRecordKeys, NO_FINGERPRINT } from "./fingerprint-delay.ts";
import type { SendLog } from "./sendlog.ts";
import { emptyStampCounters, StampDelay } from "./stamp-delay.ts";

export { H264_FRAME_START, VP8_FRAME_START } from "../rtp/codec-frames.ts";
/** A packet transit above this, or below zero, is implausible (clocks or a rewritten stamp). */
export const MAX_PLAUSIBLE_TRANSIT_NS = 60e9;
const VIDEO_CLOCK_RATE = 90000;

export interface ViewerPipelineOptions {
  /** negotiated track codec: "vp8", "h264" or another name */
  codec: string;
  stallNs: number;
  /**
   * delay samples are taken only from frames whose first packet arrived this long after the
   * viewer's first packet
   */
  excludeFirstNs: number;
  /** monotonic instant of the WHEP POST (ns) */
  postNs: number;
  /** wall clock (Unix ns) minus monotonic ns, to turn an arrival into a wall instant */
  wallMinusMonoNs: number;
  hasher: Hasher | null;
  table: ClipTable | null;
  sendLog: SendLog | null;
  absCaptureNegotiated: boolean;
  /** live-metric hook, called with every delay sample (the same samples as the histograms) */
  onDelaySample?: (delayNs: number, keyframe: boolean, layer: number) => void;
  /** live-metric hooks for the stamp source's samples and packet transit samples */
  onStampSample?: (delayNs: number) => void;
  onTransitSample?: (transitNs: number) => void;
  /** RTP clock rate of the track; 90 000 when omitted */
  clockRate?: number;
  /**
   * The publisher's wall clock minus this process's monotonic clock (ns) at [0], for the stamp
   * source; the caller updates it as a clock exchange measures the offset. Omitted: the
   * publisher reads this process's wall clock (`wallMinusMonoNs`).
   */
  publisherWallMinusMono?: Float64Array;
  /**
   * Match a complete frame against the send log only once the log holds a send after its last
   * packet's arrival, or this long after that arrival (still with the arrival as t1): in a split
   * run the log's entries travel over their own channel and may arrive after the frame does.
   * 0 (single process): at once.
   */
  logWaitNs?: number;
  /** the viewer's A/V offset (an audio run): every fingerprint sample goes to it too */
  offset?: AvOffset;
  /** live hook: a freeze was counted, bounded by these two shown frames (monotonic ns) */
  onFreeze?: (startNs: number, endNs: number) => void;
  /** when the viewer asks for a keyframe (docs/definitions.md#keyframe-requests); "browser" when omitted */
  keyframeRequests?: KeyframeRequestMode;
  /** false: no render model (bench:hotpath's baseline, the pipeline as it was without it); default true */
  renderModel?: boolean;
}

export type ViewerPipelineResult = Pick<
  ViewerRecord,
  | "rtp"
  | "oneWayDelay"
  | "oneWayDelayBlocker"
  | "packetTransit"
  | "stampDelay"
  | "render"
  | ViewerHistogramKey
  | LayerRecordKeys
> & { codec: string };

function isCodec(c: string): c is Codec {
  return c === "vp8" || c === "h264";
}

const notKey = (_payload: Uint8Array): boolean => false;

export class ViewerPipeline {
  /** POST → first RTP packet, ns; −1 before */
  firstRtpNs = -1;
  /** POST → the packet that completed the first keyframe, ns; −1 before (#first-complete-keyframe) */
  firstKeyframeNs = -1;

  private readonly codec: string;
  private readonly postNs: number;
  private readonly excludeFirstNs: number;
  private readonly wallMinusMonoNs: number;
  private readonly negotiated: boolean;
  private readonly blocker: OneWayDelayBlocker;
  private readonly rtp: RtpStats;
  private readonly keyframeStart: (payload: Uint8Array) => boolean;
  private sampleFromNs = 0;
  private lastArrivalNs = 0;
  private started = false;
  private readonly stamp: StampDelay | null = null;

  private stamped = 0;
  private transitInvalid = 0;
  private readonly transitHist = new DelayHistogram();

  // frames are reassembled for every VP8/H.264 track (the render model); depacketised when a delay
  // source runs (the fingerprint source needs a send log)
  private readonly reasm: Reassembler | null = null;
  /** the render model and keyframe requests (docs/definitions.md#viewer-experience) */
  readonly render: ViewerRender;
  private readonly modelled: boolean;
  readonly fingerprint: FingerprintDelay | null = null;
  private readonly onTransitSample: ((transitNs: number) => void) | null;

  constructor(opts: ViewerPipelineOptions) {
    this.codec = opts.codec;
    this.postNs = opts.postNs;
    this.excludeFirstNs = opts.excludeFirstNs;
    this.wallMinusMonoNs = opts.wallMinusMonoNs;
    this.negotiated = opts.absCaptureNegotiated;
    this.onTransitSample = opts.onTransitSample ?? null;
    const keyframeStart =
      opts.codec === "vp8" ? keyframeStartVp8 : opts.codec === "h264" ? keyframeStartH264 : notKey;
    this.keyframeStart = keyframeStart;
    this.rtp = new RtpStats({
      clockRate: opts.clockRate ?? VIDEO_CLOCK_RATE,
      stallNs: opts.stallNs,
      keyframeStart,
      originNs: opts.postNs,
    });
    this.modelled = opts.renderModel !== false;
    const mode = opts.keyframeRequests ?? "browser";
    this.render = new ViewerRender(this.modelled ? opts.codec : "", mode, opts.onFreeze ?? null, opts.postNs);
    if (isCodec(opts.codec) && (this.modelled || opts.absCaptureNegotiated)) {
      this.reasm = reassemblerFor(opts.codec);
    }
    if (this.reasm !== null && opts.absCaptureNegotiated) {
      this.stamp = new StampDelay(
        opts.publisherWallMinusMono ?? Float64Array.of(opts.wallMinusMonoNs),
        opts.onStampSample ?? null,
      );
    }

    if (opts.sendLog === null || opts.table === null || opts.hasher === null) {
      this.blocker = { kind: "no_send_log" };
    } else if (!isCodec(opts.codec)) {
      this.blocker = { kind: "codec", codec: opts.codec };
    } else {
      this.blocker = { kind: "none" };
      this.reasm ??= reassemblerFor(opts.codec);
      this.fingerprint = new FingerprintDelay({
        codec: opts.codec,
        hasher: opts.hasher,
        table: opts.table,
        sendLog: opts.sendLog,
        logWaitNs: opts.logWaitNs ?? 0,
        onSample: opts.onDelaySample ?? null,
        offset: opts.offset ?? null,
      });
    }
    // completed frames are read within onPacket only (the delay sources copy what they keep)
    if (this.reasm !== null) {
      this.reasm.results.reuse = true;
      this.reasm.depacketise = this.fingerprint !== null;
    }
  }

  /**
   * Payloads are views their caller reuses after onPacket (the arena path): pending frames keep
   * copies in `store`, the thread's payload chunks (src/workers/thread.ts ViewerThread.payloads).
   */
  reusesPayloads(store: PayloadStore): void {
    if (this.reasm !== null) this.reasm.copyInto = store;
  }

  /** The viewer has received a complete keyframe (join criterion; the timeout is the caller's). */
  get joined(): boolean {
    return this.firstKeyframeNs >= 0;
  }

  /**
   * One packet, in read order. `arrivalNs` is the monotonic instant it was read (ns);
   * `captureWallNs` its abs-capture-time as Unix ns, or −1 when it had none. The payload is
   * handed over: the pipeline may keep a reference until its frame completes.
   */
  onPacket(
    seq: number,
    ts: number,
    marker: boolean,
    payload: Uint8Array,
    arrivalNs: number,
    captureWallNs: number,
  ): void {
    if (!this.started) {
      this.started = true;
      this.sampleFromNs = arrivalNs + this.excludeFirstNs;
      this.firstRtpNs = arrivalNs - this.postNs;
    }

    this.lastArrivalNs = arrivalNs;
    if (this.modelled) this.render.packet(arrivalNs, payload, this.firstKeyframeNs >= 0, seq, ts, marker);
    const rtp = this.rtp;
    // a duplicate or too-late packet is counted there and taken by no other figure
    if (!rtp.push(seq, ts, marker, payload, arrivalNs)) return;
    if (this.firstKeyframeNs < 0 && rtp.firstKeyframeArrivalNs >= 0) {
      this.firstKeyframeNs = rtp.firstKeyframeArrivalNs;
    }

    if (this.negotiated && captureWallNs !== -1) this.transit(arrivalNs, captureWallNs);

    if (this.stamp !== null) {
      this.stamp.packet(seq, ts, this.negotiated ? captureWallNs : -1, this.keyframeStart(payload));
    }
    if (this.reasm !== null) {
      const n = this.reasm.push(seq, ts, marker, payload, arrivalNs);
      for (let j = 0; j < n; j++) {
        const f = this.reasm.results.frame(j);
        // the join rule reads the frames the render model reads: one reassembly, in any order
        if (f.keyframe && this.firstKeyframeNs < 0) this.firstKeyframeNs = f.completedNs - this.postNs;
        this.render.frame(f);
        const excluded = f.firstNs < this.sampleFromNs;
        if (this.fingerprint !== null) this.fingerprint.frame(f, excluded);
        if (this.stamp !== null) this.stamp.frame(f, excluded);
      }
    }
    if (this.fingerprint !== null) this.fingerprint.due(arrivalNs);
  }

  /**
   * A stamped packet's transit. Its own function: the transit is a new number, boxed on the heap
   * where it is passed to a call that is not inlined, as in onPacket (whose inlining budget the
   * reassembler takes), but not here.
   */
  private transit(arrivalNs: number, captureWallNs: number): void {
    this.stamped++;
    const transit = arrivalNs + this.wallMinusMonoNs - captureWallNs;
    if (transit < 0 || transit > MAX_PLAUSIBLE_TRANSIT_NS) this.transitInvalid++;
    else {
      this.transitHist.recordNs(transit);
      if (this.onTransitSample !== null) this.onTransitSample(transit);
    }
  }

  /**
   * The viewer's figures at its end `endNs` (monotonic; the render model's end gap), histograms
   * encoded for the thread crossing.
   */
  finish(endNs: number = this.lastArrivalNs): ViewerPipelineResult {
    const fpd = this.fingerprint;
    fpd?.flush();
    const r = this.reasm;
    // the fingerprint block reports the reassembler only when the fingerprint source ran
    const fp = fpd !== null ? r : null;
    const c = fpd !== null ? fpd.counters() : NO_FINGERPRINT;
    const st = this.stamp;
    const empty = (): DelayHistogram => new DelayHistogram();
    return {
      codec: this.codec,
      rtp: this.rtp.report(),
      oneWayDelay: {
        frameEnd: fp !== null ? fp.frameEnd : "",
        ...c,
        incompleteFrames: fp !== null ? fp.incompleteFrames : 0,
        lateCompletedFrames: fp !== null ? fp.lateCompletedFrames : 0,
      },
      oneWayDelayBlocker: this.blocker,
      delayHist: (fpd?.all() ?? empty()).encode(),
      delayKeyHist: (fpd?.keyHist ?? empty()).encode(),
      delayDeltaHist: (fpd?.deltaHist ?? empty()).encode(),
      packetTransit: { negotiated: this.negotiated, stamped: this.stamped, invalid: this.transitInvalid },
      transitHist: this.transitHist.encode(),
      stampDelay:
        st !== null && r !== null
          ? {
              ...st.counters(),
              frameEnd: r.frameEnd,
              incompleteFrames: r.incompleteFrames,
              lateCompletedFrames: r.lateCompletedFrames,
            }
          : emptyStampCounters(),
      stampHist: (st?.all() ?? empty()).encode(),
      stampKeyHist: (st?.keyHist ?? empty()).encode(),
      stampDeltaHist: (st?.deltaHist ?? empty()).encode(),
      ...this.render.finish(endNs),
      ...fpd?.layerRecord(),
    };
  }
}
