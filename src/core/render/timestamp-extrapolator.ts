// libwebrtc's timestamp extrapolator (modules/video_coding/timing/timestamp_extrapolator.cc, as
// docs/definitions.md#playout reads it): a recursive least-squares fit of local time against the
// frames' RTP timestamps (90 kHz), fed the receive instant of every complete frame not delayed by a
// retransmission, so that a frame's expected completion can be read from its timestamp. A CUSUM
// detector of sudden delay changes reopens the offset's uncertainty; ten seconds without a frame
// restart the fit; a timestamp older than the last one fed is not fitted. Times in ms. Pure.

const LAMBDA = 1;
/** frames fed before the fit is used (kStartUpFilterDelayInPackets) */
const STARTUP_FRAMES = 2;
const ALARM_THRESHOLD = 60e3;
const ACC_DRIFT = 6600;
const ACC_MAX_ERROR = 7000;
const P11 = 1e10;
/** a frame after this long without one restarts the fit, ms */
const RESET_AFTER_MS = 10_000;

export class TimestampExtrapolator {
  /**
   * updateIn()'s instant (ms) and its and localIn()'s RTP timestamp, set by the caller, and localIn()'s
   * result: fields, not arguments or a return, because a number outside the small integers is boxed
   * on the heap when it crosses a call that is not inlined (issue 40)
   */
  inMs = 0;
  inTs = 0;
  outMs = Number.NaN;
  private startMs = 0;
  private prevMs = 0;
  /** unwrapped timestamp of the first frame since the reset; NaN before */
  private firstTs = Number.NaN;
  /** unwrapped timestamp of the last frame fitted; NaN before */
  private prevTs = Number.NaN;
  /** the unwrapper's last timestamp (unwrapped); NaN before */
  private lastUnwrapped = Number.NaN;
  /** the timestamp as given (32 bits) that unwrapped to lastUnwrapped: no float modulo per frame */
  private lastTs = 0;
  private w0 = 90;
  private w1 = 0;
  private p00 = 1;
  private p01 = 0;
  private p10 = 0;
  private p11 = P11;
  private frames = 0;
  private accPos = 0;
  private accNeg = 0;

  constructor(nowMs: number) {
    this.reset(nowMs);
  }

  reset(nowMs: number): void {
    this.startMs = nowMs;
    this.prevMs = nowMs;
    this.firstTs = Number.NaN;
    this.prevTs = Number.NaN;
    this.lastUnwrapped = Number.NaN;
    this.w0 = 90;
    this.w1 = 0;
    this.p00 = 1;
    this.p01 = 0;
    this.p10 = 0;
    this.p11 = P11;
    this.frames = 0;
    this.accPos = 0;
    this.accNeg = 0;
  }

  /** A complete frame with RTP timestamp `ts` (32 bits) was received at `nowMs`. */
  update(nowMs: number, ts: number): void {
    this.inMs = nowMs;
    this.inTs = ts;
    this.updateIn();
  }

  /** update(inMs, inTs). */
  updateIn(): void {
    const nowMs = this.inMs;
    if (nowMs - this.prevMs > RESET_AFTER_MS) this.reset(nowMs);
    else this.prevMs = nowMs;
    const t = Math.round(nowMs - this.startMs);
    // the timestamp unwrapped: the signed 32-bit step from the last one
    const ts = this.inTs;
    const last = this.lastUnwrapped;
    const u = Number.isNaN(last) ? ts : last + ((ts - this.lastTs) | 0);
    this.lastUnwrapped = u;
    this.lastTs = ts;
    if (Number.isNaN(this.firstTs)) {
      this.w1 = -this.w0 * t;
      this.firstTs = u;
    }
    const residual = u - this.firstTs - t * this.w0 - this.w1;
    if (this.delayChanged(residual) && this.frames >= STARTUP_FRAMES) this.p11 = P11;
    if (u < this.prevTs) return; // reordered
    let k0 = this.p00 * t + this.p01;
    let k1 = this.p10 * t + this.p11;
    const tpt = LAMBDA + t * k0 + k1;
    k0 /= tpt;
    k1 /= tpt;
    this.w0 += k0 * residual;
    this.w1 += k1 * residual;
    const p00 = (this.p00 - (k0 * t * this.p00 + k0 * this.p10)) / LAMBDA;
    const p01 = (this.p01 - (k0 * t * this.p01 + k0 * this.p11)) / LAMBDA;
    this.p10 = (this.p10 - (k1 * t * this.p00 + k1 * this.p10)) / LAMBDA;
    this.p11 = (this.p11 - (k1 * t * this.p01 + k1 * this.p11)) / LAMBDA;
    this.p00 = p00;
    this.p01 = p01;
    this.prevTs = u;
    if (this.frames < STARTUP_FRAMES) this.frames++;
  }

  /** The local instant, ms, a frame with RTP timestamp `ts` is expected complete; NaN before any frame. */
  localMs(ts: number): number {
    this.inTs = ts;
    this.localIn();
    return this.outMs;
  }

  /** localMs(inTs), into outMs. */
  localIn(): void {
    if (Number.isNaN(this.firstTs)) {
      this.outMs = Number.NaN;
      return;
    }
    const last = this.lastUnwrapped;
    const u = Number.isNaN(last) ? this.inTs : last + ((this.inTs - this.lastTs) | 0);
    if (this.frames < STARTUP_FRAMES) this.outMs = this.prevMs + Math.floor((u - this.prevTs) / 90 + 0.5);
    else if (this.w0 < 1e-3) this.outMs = this.startMs;
    else this.outMs = this.startMs + Math.floor((u - this.firstTs - this.w1) / this.w0 + 0.5);
  }

  /** CUSUM of the residuals: true (and restarted) when the delay moved. */
  private delayChanged(error: number): boolean {
    const e = error > 0 ? Math.min(error, ACC_MAX_ERROR) : Math.max(error, -ACC_MAX_ERROR);
    this.accPos = Math.max(this.accPos + e - ACC_DRIFT, 0);
    this.accNeg = Math.min(this.accNeg + e + ACC_DRIFT, 0);
    if (this.accPos > ALARM_THRESHOLD || this.accNeg < -ALARM_THRESHOLD) {
      this.accPos = 0;
      this.accNeg = 0;
      return true;
    }
    return false;
  }
}
