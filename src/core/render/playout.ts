// When a decodable frame is shown (docs/definitions.md#playout), as Chrome's libwebrtc M106 decides it
// (video/video_stream_buffer_controller.cc, video/frame_decode_timing.cc,
// modules/video_coding/timing/timing.cc): each frame's render time is its RTP timestamp extrapolated to local
// time (timestamp-extrapolator.ts) plus the current playout delay, clamped to the min/max playout delay; the
// next decodable frame is decoded when render time − decode time − 10 ms render delay comes (at once when
// that has passed; never later than the frame buffer's timeout), except that a frame ≥ 5 ms past it is
// skipped when a later decodable frame is waiting. After each decode the jitter estimate
// (jitter-estimator.ts, frames delayed by a retransmission left out) sets the target delay, and the current
// delay rises toward it by what the frame was late, or drops to it. The first keyframe is decoded at once.
// Chrome shows a frame when it is decoded (no pre-renderer smoothing): that instant is the show instant.
// There is no decoder here: the timing takes DECODE_MS for libwebrtc's decode-time estimate, and the decoder
// is busy DECODER_BUSY_MS with each frame. Pure; no allocation per frame.
import { JitterEstimator } from "./jitter-estimator.ts";
import {
  DECODE_MS,
  DECODER_BUSY_MS,
  LOW_LATENCY_MAX_MS,
  MAX_VIDEO_DELAY_MS,
  MAX_WAIT_MS,
  type PlayoutDelay,
  QMASK,
  QUEUE,
  RENDER_DELAY_MS,
  SKIP_LATE_MS,
} from "./playout-params.ts";
import { TimestampExtrapolator } from "./timestamp-extrapolator.ts";

export class Playout {
  /** decodable frames passed over because they were late (skipped, or the queue overflowed) */
  skipped = 0;
  /** decodable frames taken off the queue so far, shown or skipped */
  taken = 0;
  readonly extrapolator = new TimestampExtrapolator(0);
  /**
   * The instant (ns), RTP timestamp and receive instant (ns) the next completedIn(), readyIn() or
   * releaseIn() acts on, set by the caller: fields, not arguments, because a number outside the small
   * integers is boxed on the heap when passed to a call that is not inlined (issue 40).
   */
  inNs = 0;
  inTs = 0;
  inRecvNs = 0;
  /** the instant the last frame was shown, ns: onShow reads it (a field for the same reason) */
  shownNs = 0;
  private readonly jitter = new JitterEstimator();
  private readonly delay: PlayoutDelay;
  private readonly onShow: (keyframe: boolean) => void;
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
  // the instants schedule() and decode() act at and run() decodes up to, ns (fields: see inNs)
  private atNs = 0;
  private untilNs = 0;
  /** the decoder is busy with the last frame until then, ns */
  private busyUntilNs = 0;
  private scheduledRenderMs = 0;
  // the frame schedule() and decode() work on (its RTP timestamp), atNs in ms, and render()'s result
  private frameTs = 0;
  private nowMs = 0;
  private renderAtMs = 0;
  private lastDecodeMs = Number.NaN;
  private keyframeRequired = true;
  // the inter-frame delay's previous decoded frame, and frameDelay()'s result
  private prevTs = Number.NaN;
  private prevRecvMs = 0;
  private delayMs = 0;

  constructor(onShow: (keyframe: boolean) => void, delay: PlayoutDelay = { minMs: 0, maxMs: 10_000 }) {
    this.onShow = onShow;
    this.delay = delay;
  }

  /** Frames decodable and not yet shown. */
  get waiting(): number {
    return this.qLen;
  }

  /** A frame entered the frame buffer (complete, not late) at `recvNs`. */
  completed(recvNs: number, ts: number, retransmitted: boolean): void {
    this.inNs = recvNs;
    this.inTs = ts;
    this.completedIn(retransmitted);
  }

  /** completed(inNs, inTs, retransmitted). */
  completedIn(retransmitted: boolean): void {
    if (retransmitted) return;
    this.extrapolator.inMs = this.inNs / 1e6;
    this.extrapolator.inTs = this.inTs;
    this.extrapolator.updateIn();
  }

  /**
   * A frame became decodable at `readyNs` (its reference decodable, or itself a keyframe); call
   * release(readyNs) once every frame decodable at that instant is in.
   */
  ready(readyNs: number, ts: number, recvNs: number, bytes: number, rtx: boolean, key: boolean): void {
    this.inNs = readyNs;
    this.inTs = ts;
    this.inRecvNs = recvNs;
    this.readyIn(bytes, rtx, key);
  }

  /** ready(inNs, inTs, inRecvNs, bytes, retransmitted, key). */
  readyIn(bytes: number, retransmitted: boolean, key: boolean): void {
    this.untilNs = this.inNs;
    this.run();
    if (this.qLen === QUEUE) this.drop();
    const at = (this.qHead + this.qLen) & QMASK;
    this.qTs[at] = this.inTs;
    this.qRecvMs[at] = this.inRecvNs / 1e6;
    this.qBytes[at] = retransmitted ? -bytes - 1 : bytes;
    this.qKey[at] = key ? 1 : 0;
    this.qLen++;
  }

  /** The frames made decodable at `ns` are in: an idle decoder takes the next one. */
  release(ns: number): void {
    this.inNs = ns;
    this.releaseIn();
  }

  /** release(inNs). */
  releaseIn(): void {
    const ns = this.inNs;
    if (this.eventNs < 0 && this.qLen > 0) {
      this.eventNs = Math.max(ns, this.busyUntilNs);
      this.eventDecode = false;
    }
    this.untilNs = ns;
    this.run();
  }

  /** Decodes every frame due by `ns` (in untilNs); called per packet, so run() only when one is due. */
  advance(ns: number): void {
    if (this.eventNs < 0 || this.eventNs > ns) return;
    this.untilNs = ns;
    this.run();
  }

  private run(): void {
    const ns = this.untilNs;
    while (this.eventNs >= 0 && this.eventNs <= ns) {
      const at = this.eventNs;
      this.eventNs = -1;
      this.atNs = at;
      this.nowMs = at / 1e6;
      if (!this.eventDecode) {
        this.schedule();
        continue;
      }
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
    const nowMs = this.nowMs;
    while (this.qLen > 0) {
      this.frameTs = this.qTs[this.qHead]!;
      if (this.keyframeRequired) {
        if (this.qKey[this.qHead] === 0) {
          this.drop();
          continue;
        }
        this.render();
        this.scheduledRenderMs = this.renderAtMs;
        this.eventNs = ns;
        this.eventDecode = true;
        return;
      }
      this.render();
      const render = this.renderAtMs;
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
    const nowMs = this.nowMs;
    const h = this.qHead;
    this.frameTs = this.qTs[h]!;
    const bytes = this.qBytes[h]!;
    const key = this.qKey[h] === 1;
    this.qHead = (h + 1) & QMASK;
    this.qLen--;
    this.taken++;
    const render = this.scheduledRenderMs;
    this.renderAtMs = render;
    const bad = render !== 0 && (render < 0 || Math.abs(render - nowMs) > MAX_VIDEO_DELAY_MS);
    if (bad || this.targetMs() > MAX_VIDEO_DELAY_MS) {
      this.jitter.reset();
      this.extrapolator.reset(nowMs);
      this.currentMs = 0;
      this.jitterMs = 0;
      this.render();
    }
    if (bytes >= 0) {
      this.frameDelay(h);
      if (!Number.isNaN(this.delayMs)) {
        this.jitter.inMs = nowMs;
        this.jitter.inDelayMs = this.delayMs;
        this.jitter.updateIn(bytes);
      }
      this.setJitter(this.jitter.estimateMs());
      this.updateCurrent();
    }
    this.keyframeRequired = false;
    this.lastDecodeMs = nowMs;
    this.shownNs = ns;
    this.onShow(key);
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

  /** The render time of frameTs at nowMs into renderAtMs; 0: render at once (the low-latency path). */
  private render(): void {
    const { minMs, maxMs } = this.delay;
    if (minMs === 0 && maxMs <= LOW_LATENCY_MAX_MS) {
      this.renderAtMs = 0;
      return;
    }
    const x = this.extrapolator;
    x.inTs = this.frameTs;
    x.localIn();
    const complete = Number.isNaN(x.outMs) ? Math.round(this.nowMs) : x.outMs;
    this.renderAtMs = complete + Math.min(Math.max(this.currentMs, minMs), maxMs);
  }

  private setJitter(ms: number): void {
    if (ms === this.jitterMs) return;
    this.jitterMs = ms;
    if (this.currentMs === 0) this.currentMs = ms;
  }

  /** The current delay rises by what the frame was late, up to the target, or drops to it. */
  private updateCurrent(): void {
    const target = this.targetMs();
    const delayed = Math.round(this.nowMs - this.renderAtMs) + DECODE_MS + RENDER_DELAY_MS;
    if (delayed < 0) return;
    if (this.currentMs + delayed <= target) this.currentMs += delayed;
    else this.currentMs = target;
  }

  /** Slot h: receive minus RTP interval to the last decoded frame, whole ms, into delayMs; NaN: older. */
  private frameDelay(h: number): void {
    const ts = this.qTs[h]!;
    const recvMs = this.qRecvMs[h]!;
    if (Number.isNaN(this.prevTs)) {
      this.prevTs = ts;
      this.prevRecvMs = recvMs;
      this.delayMs = 0;
      return;
    }
    const dTs = (ts - this.prevTs) | 0; // the signed 32-bit step
    if (dTs < 0) {
      this.delayMs = Number.NaN;
      return;
    }
    // often −0, which is boxed as any double is: a field, not a return
    this.delayMs = Math.round(recvMs - this.prevRecvMs - dTs / 90);
    this.prevTs = ts;
    this.prevRecvMs = recvMs;
  }
}
