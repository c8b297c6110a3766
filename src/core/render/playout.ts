// When a decodable frame is shown (docs/definitions.md#playout), as Chrome's libwebrtc M106 decides
// it (video/video_stream_buffer_controller.cc, video/frame_decode_timing.cc,
// modules/video_coding/timing/timing.cc): each frame's render time is its RTP timestamp
// extrapolated to local time (timestamp-extrapolator.ts) plus the current playout delay, clamped
// to the min/max playout delay; the next decodable frame is decoded when render time − decode time
// − 10 ms render delay comes (at once when that has passed; never later than the frame buffer's
// timeout), except that a frame ≥ 5 ms past it is skipped when a later decodable frame is waiting.
// After each decode the jitter estimate (jitter-estimator.ts, frames delayed by a retransmission
// left out) sets the target delay, and the current delay rises toward it by what the frame was
// late, or drops to it. The first keyframe is decoded at once. Chrome shows a frame when it is
// decoded (no pre-renderer smoothing): that instant is the show instant. There is no decoder
// here: the timing takes DECODE_MS for libwebrtc's decode-time estimate, and the decoder is busy
// DECODER_BUSY_MS with each frame. Pure; no allocation per frame.
import { JitterEstimator } from "./jitter-estimator.ts";
import { TimestampExtrapolator } from "./timestamp-extrapolator.ts";

/** kMaxAllowedFrameDelay: a frame this late is skipped when a later one is decodable, ms */
export const SKIP_LATE_MS = 5;
/** the render delay (kDefaultRenderDelay), ms */
export const RENDER_DELAY_MS = 10;
/**
 * libwebrtc's decode-time estimate (the 95th percentile of its decodes over 10 s, each in whole ms):
 * a fixed value here, the whole ms the calibration binary's 0.5–0.75 ms mean decodes round to, ms
 */
export const DECODE_MS = 1;
/**
 * how long the decoder is busy with one frame: the calibration binary's mean VP8 decode at 640×360
 * (getStats totalDecodeTime / framesDecoded, 0.55–0.72 ms in four runs), ms
 */
export const DECODER_BUSY_MS = 0.6;
/** the frame buffer's wait once frames are shown (its timeout), ms */
const MAX_WAIT_MS = 3000;
/** a render time this far from now, or a target delay this long, resets the timing, ms */
const MAX_VIDEO_DELAY_MS = 10_000;
/** playout delays at or under this (with a min of 0) render at once (the low-latency path), ms */
const LOW_LATENCY_MAX_MS = 500;
/** frames decodable and waiting, at most (libwebrtc's buffer holds 800) */
const QUEUE = 1024;
const QMASK = QUEUE - 1;

export interface PlayoutDelay {
  minMs: number;
  maxMs: number;
}

export class Playout {
  /** decodable frames passed over because they were late (skipped, or the queue overflowed) */
  skipped = 0;
  /** decodable frames taken off the queue so far, shown or skipped */
  taken = 0;
  readonly extrapolator = new TimestampExtrapolator(0);
  private readonly jitter = new JitterEstimator();
  private readonly delay: PlayoutDelay;
  private readonly onShow: (ns: number, keyframe: boolean) => void;
  private currentMs = 0;
  private jitterMs = 0;
  // the queue of decodable frames: RTP timestamp, receive instant (ms), bytes (negative:
  // delayed by a retransmission), keyframe
  private readonly qTs = new Float64Array(QUEUE);
  private readonly qRecvMs = new Float64Array(QUEUE);
  private readonly qBytes = new Float64Array(QUEUE);
  private readonly qKey = new Uint8Array(QUEUE);
  private qHead = 0;
  private qLen = 0;
  /** the next event, ns (−1: none): the decoder takes the next frame, or decodes the head frame */
  private eventNs = -1;
  private eventDecode = false;
  /**
   * the instant schedule() and decode() act at, ns: a field, not an argument, because a number
   * outside the small integers is boxed on the heap when passed to a call that is not inlined
   */
  private atNs = 0;
  /** the decoder is busy with the last frame until then, ns */
  private busyUntilNs = 0;
  private scheduledRenderMs = 0;
  private lastDecodeMs = Number.NaN;
  private keyframeRequired = true;
  // the inter-frame delay's previous decoded frame
  private prevTs = Number.NaN;
  private prevRecvMs = 0;

  constructor(
    onShow: (ns: number, keyframe: boolean) => void,
    delay: PlayoutDelay = { minMs: 0, maxMs: 10_000 },
  ) {
    this.onShow = onShow;
    this.delay = delay;
  }

  /** Frames decodable and not yet shown. */
  get waiting(): number {
    return this.qLen;
  }

  /** A frame entered the frame buffer (complete, not late) at `recvNs`. */
  completed(recvNs: number, ts: number, retransmitted: boolean): void {
    if (!retransmitted) this.extrapolator.update(recvNs / 1e6, ts);
  }

  /**
   * A frame became decodable at `readyNs` (its reference decodable, or itself a keyframe); call
   * release(readyNs) once every frame decodable at that instant is in.
   */
  ready(
    readyNs: number,
    ts: number,
    recvNs: number,
    bytes: number,
    retransmitted: boolean,
    key: boolean,
  ): void {
    this.advance(readyNs);
    if (this.qLen === QUEUE) this.drop();
    const at = (this.qHead + this.qLen) & QMASK;
    this.qTs[at] = ts;
    this.qRecvMs[at] = recvNs / 1e6;
    this.qBytes[at] = retransmitted ? -bytes - 1 : bytes;
    this.qKey[at] = key ? 1 : 0;
    this.qLen++;
  }

  /** The frames made decodable at `ns` are in: an idle decoder takes the next one. */
  release(ns: number): void {
    if (this.eventNs < 0 && this.qLen > 0) {
      this.eventNs = Math.max(ns, this.busyUntilNs);
      this.eventDecode = false;
    }
    this.advance(ns);
  }

  /** Decodes every frame due by `ns`. */
  advance(ns: number): void {
    while (this.eventNs >= 0 && this.eventNs <= ns) {
      const at = this.eventNs;
      this.eventNs = -1;
      if (!this.eventDecode) {
        this.atNs = at;
        this.schedule();
        continue;
      }
      this.atNs = at;
      this.decode();
      // the decoder takes the next frame once this one is decoded
      this.busyUntilNs = at + DECODER_BUSY_MS * 1e6;
      if (this.qLen > 0) {
        this.eventNs = this.busyUntilNs;
        this.eventDecode = false;
      }
    }
  }

  /** The next frame to decode, at atNs: skips late ones while a later one waits. */
  private schedule(): void {
    const ns = this.atNs;
    const nowMs = ns / 1e6;
    while (this.qLen > 0) {
      const ts = this.qTs[this.qHead]!;
      if (this.keyframeRequired) {
        if (this.qKey[this.qHead] === 0) {
          this.drop();
          continue;
        }
        this.scheduledRenderMs = this.renderMs(ts, nowMs);
        this.eventNs = ns;
        this.eventDecode = true;
        return;
      }
      const render = this.renderMs(ts, nowMs);
      const wait = render === 0 ? 0 : render - nowMs - DECODE_MS - RENDER_DELAY_MS;
      if (wait <= -SKIP_LATE_MS && this.qLen > 1) {
        this.drop();
        continue;
      }
      const maxWait = Math.max(this.lastDecodeMs + MAX_WAIT_MS - nowMs - 1, 0);
      this.scheduledRenderMs = render;
      this.eventNs = ns + Math.min(Math.max(wait, 0), maxWait) * 1e6;
      this.eventDecode = true;
      return;
    }
  }

  /** The head frame is decoded (shown) at atNs: the timing learns from it. */
  private decode(): void {
    const ns = this.atNs;
    const nowMs = ns / 1e6;
    const h = this.qHead;
    const ts = this.qTs[h]!;
    const recvMs = this.qRecvMs[h]!;
    const bytes = this.qBytes[h]!;
    const key = this.qKey[h] === 1;
    this.qHead = (h + 1) & QMASK;
    this.qLen--;
    this.taken++;
    let render = this.scheduledRenderMs;
    const bad = render !== 0 && (render < 0 || Math.abs(render - nowMs) > MAX_VIDEO_DELAY_MS);
    if (bad || this.targetMs() > MAX_VIDEO_DELAY_MS) {
      this.jitter.reset();
      this.extrapolator.reset(nowMs);
      this.currentMs = 0;
      this.jitterMs = 0;
      render = this.renderMs(ts, nowMs);
    }
    if (bytes >= 0) {
      const delay = this.frameDelayMs(ts, recvMs);
      if (!Number.isNaN(delay)) this.jitter.update(nowMs, delay, bytes);
      this.setJitter(this.jitter.estimateMs());
      this.updateCurrent(render, nowMs);
    }
    this.keyframeRequired = false;
    this.lastDecodeMs = nowMs;
    this.onShow(ns, key);
  }

  private drop(): void {
    this.qHead = (this.qHead + 1) & QMASK;
    this.qLen--;
    this.taken++;
    this.skipped++;
  }

  private targetMs(): number {
    return Math.max(this.delay.minMs, this.jitterMs + DECODE_MS + RENDER_DELAY_MS);
  }

  /** The render time of a frame, ms; 0: render at once (the low-latency path). */
  private renderMs(ts: number, nowMs: number): number {
    const { minMs, maxMs } = this.delay;
    if (minMs === 0 && maxMs <= LOW_LATENCY_MAX_MS) return 0;
    const local = this.extrapolator.localMs(ts);
    const complete = Number.isNaN(local) ? Math.round(nowMs) : local;
    return complete + Math.min(Math.max(this.currentMs, minMs), maxMs);
  }

  private setJitter(ms: number): void {
    if (ms === this.jitterMs) return;
    this.jitterMs = ms;
    if (this.currentMs === 0) this.currentMs = ms;
  }

  /** The current delay rises by what the frame was late, up to the target, or drops to it. */
  private updateCurrent(renderMs: number, nowMs: number): void {
    const target = this.targetMs();
    const delayed = Math.round(nowMs - renderMs) + DECODE_MS + RENDER_DELAY_MS;
    if (delayed < 0) return;
    if (this.currentMs + delayed <= target) this.currentMs += delayed;
    else this.currentMs = target;
  }

  /** The receive interval minus the RTP interval to the last decoded frame, whole ms; NaN when older. */
  private frameDelayMs(ts: number, recvMs: number): number {
    if (Number.isNaN(this.prevTs)) {
      this.prevTs = ts;
      this.prevRecvMs = recvMs;
      return 0;
    }
    const dTs = (ts - this.prevTs) | 0; // the signed 32-bit step
    if (dTs < 0) return Number.NaN;
    const delay = Math.round(recvMs - this.prevRecvMs - dTs / 90);
    this.prevTs = ts;
    this.prevRecvMs = recvMs;
    return delay;
  }
}
