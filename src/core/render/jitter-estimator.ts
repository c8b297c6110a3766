// libwebrtc's jitter estimate (modules/video_coding/timing/jitter_estimator.cc and
// frame_delay_variation_kalman_filter.cc, at M106 as docs/definitions.md#playout reads them): per
// frame released for decoding and not delayed by a retransmission, its frame delay (the receive
// interval minus the RTP interval, ms) and size feed a Kalman filter of delay against size change
// and a filtered variance of the residual noise; the estimate is the delay a worst-case frame size
// adds plus 2.33 noise deviations less 30 ms (at least 1 ms), plus 10 ms for the operating
// system, scaled down below 10 fps. No NACK term: libwebrtc adds the RTT only in a field trial.
// Times in ms. Pure: the caller gives the instants.

const STARTUP_FRAMES = 30;
const SIZE_FILTER_FRAMES = 5;
const PHI = 0.97;
const PSI = 0.9999;
const DELAY_CLAMP_SD = 3.5;
const DELAY_OUTLIER_SD = 15;
const SIZE_OUTLIER_SD = 3;
const CONGESTION_FACTOR = -0.25;
const ALPHA_COUNT_MAX = 400;
const NOISE_SD = 2.33;
const NOISE_OFFSET_MS = 30;
const OS_JITTER_MS = 10;
const MAX_ESTIMATE_MS = 10_000;
const THETA_LOW = 1e-6;
/** frame intervals in the frame-rate mean (its rolling accumulator) */
const FPS_WINDOW = 30;

// The estimator's doubles, as indices into one Float64Array (issue 40): V8 keeps each double-valued
// object field in a heap box of its own, so every read is a pointer chase and the state is scattered;
// in a Float64Array the same state is contiguous and unboxed. The arithmetic is unchanged.
/** updateIn()'s instant and frame delay, ms, set by the caller (inMs, inDelayMs) */
const IN_MS = 0;
const IN_DELAY_MS = 1;
const AVG_SIZE = 2;
const MAX_SIZE = 3;
const VAR_SIZE = 4;
const STARTUP_SIZE_SUM = 5;
const AVG_NOISE = 6;
const VAR_NOISE = 7;
/** √varNoise, taken once where varNoise changes (each update read it up to four times) */
const SD_NOISE = 8;
// the last alpha ** scale noise() took, with its two operands: after 400 frames alpha is fixed, and
// frames decoded at their render time (whole ms) repeat the interval mean, so the scale repeats
// (bench:hotpath's streams: 42–46 % of frames); ** is the costliest operation of an update
export const POW_ALPHA = 9;
export const POW_SCALE = 10;
const POW_OUT = 11;
const FILTERED = 12;
const PREV_ESTIMATE = 13;
const LAST_UPDATE_MS = 14;
// Kalman state: ms per byte, queueing ms; covariance
const THETA0 = 15;
const THETA1 = 16;
const C00 = 17;
const C01 = 18;
const C10 = 19;
const C11 = 20;
/** the sum of the frame intervals kept (ms) */
const INTERVAL_SUM = 21;
/** the frame rate of those intervals, fps (0: none yet) */
const RATE = 22;
/** the frame delay clamped, kalman()'s input */
const CLAMPED_MS = 23;
const DOUBLES = 24;
/** the array as its indices: each is below DOUBLES, so each reads a number, never undefined */
type Doubles = Record<
  0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10 | 11 | 12 | 13 | 14 | 15 | 16 | 17 | 18 | 19 | 20 | 21 | 22 | 23,
  number
>;

export class JitterEstimator {
  /** the doubles, at the indices above */
  private readonly s = new Float64Array(DOUBLES) as unknown as Doubles;
  private startupSizeCount = 0;
  private prevSize = 0;
  private alphaCount = 1;
  private startup = 0;
  /** `filtered` was just calculated from the state as it is */
  private fresh = false;
  // frame intervals for the frame rate (ms), a ring
  private readonly intervals = new Float64Array(FPS_WINDOW);
  private intervalN = 0;
  private intervalAt = 0;

  constructor() {
    this.reset();
    this.s[POW_ALPHA] = -1;
    this.s[POW_SCALE] = -1;
  }

  /**
   * updateIn()'s instant and frame delay, ms, set by the caller: state, not arguments, because a
   * number outside the small integers (−0 too) is boxed on the heap when passed to a call that is not
   * inlined (issue 40)
   */
  set inMs(ms: number) {
    this.s[IN_MS] = ms;
  }

  set inDelayMs(ms: number) {
    this.s[IN_DELAY_MS] = ms;
  }

  reset(): void {
    this.s[AVG_SIZE] = 500;
    this.s[MAX_SIZE] = 500;
    this.s[VAR_SIZE] = 100;
    this.s[STARTUP_SIZE_SUM] = 0;
    this.startupSizeCount = 0;
    this.prevSize = 0;
    this.s[AVG_NOISE] = 0;
    this.s[VAR_NOISE] = 4;
    this.s[SD_NOISE] = 2;
    this.alphaCount = 1;
    this.s[FILTERED] = 0;
    this.s[PREV_ESTIMATE] = -1;
    this.startup = 0;
    this.s[LAST_UPDATE_MS] = Number.NaN;
    this.fresh = false;
    this.s[THETA0] = 1 / (512e3 / 8);
    this.s[THETA1] = 0;
    this.s[C00] = 1e-4;
    this.s[C01] = 0;
    this.s[C10] = 0;
    this.s[C11] = 1e2;
    this.intervalN = 0;
    this.intervalAt = 0;
    this.s[INTERVAL_SUM] = 0;
    this.s[RATE] = 0;
  }

  /** One frame released at `nowMs`: its frame delay (whole ms) and size (bytes; 0 is ignored). */
  update(nowMs: number, delayMs: number, bytes: number): void {
    this.s[IN_MS] = nowMs;
    this.s[IN_DELAY_MS] = delayMs;
    this.updateIn(bytes);
  }

  /** update(inMs, inDelayMs, bytes). */
  updateIn(bytes: number): void {
    if (bytes === 0) return;
    const delayMs = this.s[IN_DELAY_MS];
    const deltaBytes = bytes - this.prevSize;
    if (this.startupSizeCount < SIZE_FILTER_FRAMES) {
      this.s[STARTUP_SIZE_SUM] += bytes;
      this.startupSizeCount++;
    } else if (this.startupSizeCount === SIZE_FILTER_FRAMES) {
      this.s[AVG_SIZE] = this.s[STARTUP_SIZE_SUM] / this.startupSizeCount;
      this.startupSizeCount++;
    }
    const avg = PHI * this.s[AVG_SIZE] + (1 - PHI) * bytes;
    if (bytes < this.s[AVG_SIZE] + 2 * Math.sqrt(this.s[VAR_SIZE])) this.s[AVG_SIZE] = avg; // not a keyframe
    const d = bytes - avg;
    this.s[VAR_SIZE] = Math.max(PHI * this.s[VAR_SIZE] + (1 - PHI) * d * d, 1);
    this.s[MAX_SIZE] = Math.max(PSI * this.s[MAX_SIZE], bytes);
    if (this.prevSize === 0) {
      this.prevSize = bytes;
      return;
    }
    this.prevSize = bytes;
    const sd = this.s[SD_NOISE];
    const bound = Math.floor(DELAY_CLAMP_SD * sd + 0.5);
    const delay = Math.min(Math.max(delayMs, -bound), bound);
    this.s[CLAMPED_MS] = delay;
    const deviation = delay - (this.s[THETA0] * deltaBytes + this.s[THETA1]);
    if (
      Math.abs(deviation) < DELAY_OUTLIER_SD * sd ||
      bytes > this.s[AVG_SIZE] + SIZE_OUTLIER_SD * Math.sqrt(this.s[VAR_SIZE])
    ) {
      this.noise(deviation);
      if (deltaBytes > CONGESTION_FACTOR * this.s[MAX_SIZE]) this.kalman(deltaBytes);
    } else {
      this.noise((deviation >= 0 ? DELAY_OUTLIER_SD : -DELAY_OUTLIER_SD) * sd);
    }
    if (this.startup >= STARTUP_FRAMES) {
      this.calculate();
      this.s[FILTERED] = this.s[PREV_ESTIMATE];
      this.fresh = true;
    } else this.startup++;
  }

  /** The jitter delay, whole ms, at the latest update. */
  estimateMs(): number {
    // libwebrtc computes the estimate again here; right after an update that is the filtered one
    let calc = this.s[FILTERED];
    if (!this.fresh) {
      this.calculate();
      calc = this.s[PREV_ESTIMATE];
    }
    this.fresh = false;
    let jitter = calc + OS_JITTER_MS;
    if (this.s[FILTERED] > jitter) jitter = this.s[FILTERED];
    const fps = this.s[RATE];
    if (fps > 0 && fps < 5) return 0;
    if (fps > 0 && fps < 10) jitter *= (fps - 5) / 5;
    return Math.floor(Math.max(0, jitter) + 0.5);
  }

  /** The estimate from the state as it is, into prevEstimate. */
  private calculate(): void {
    const noiseThreshold = Math.max(NOISE_SD * this.s[SD_NOISE] - NOISE_OFFSET_MS, 1);
    let ms = this.s[THETA0] * (this.s[MAX_SIZE] - this.s[AVG_SIZE]) + noiseThreshold;
    if (ms < 1) ms = this.s[PREV_ESTIMATE] < 0 ? 1 : this.s[PREV_ESTIMATE];
    else if (ms > MAX_ESTIMATE_MS) ms = MAX_ESTIMATE_MS;
    this.s[PREV_ESTIMATE] = ms;
  }

  /** The frame rate of the intervals kept, into rate (0: none yet). */
  private setRate(): void {
    const mean = this.intervalN === 0 ? 0 : this.s[INTERVAL_SUM] / this.intervalN;
    this.s[RATE] = mean <= 0 ? 0 : Math.min(1000 / mean, 200);
  }

  /** The residual noise's mean and variance at inMs, weighted for a 30 fps stream. */
  private noise(dev: number): void {
    const nowMs = this.s[IN_MS];
    if (!Number.isNaN(this.s[LAST_UPDATE_MS])) {
      const x = nowMs - this.s[LAST_UPDATE_MS];
      if (this.intervalN === FPS_WINDOW) this.s[INTERVAL_SUM] -= this.intervals[this.intervalAt]!;
      else this.intervalN++;
      this.intervals[this.intervalAt] = x;
      this.s[INTERVAL_SUM] += x;
      this.intervalAt = (this.intervalAt + 1) % FPS_WINDOW;
      this.setRate();
    }
    this.s[LAST_UPDATE_MS] = nowMs;
    let alpha = (this.alphaCount - 1) / this.alphaCount;
    this.alphaCount = Math.min(this.alphaCount + 1, ALPHA_COUNT_MAX);
    const fps = this.s[RATE];
    if (fps > 0) {
      let scale = 30 / fps;
      if (this.alphaCount < STARTUP_FRAMES)
        scale = (this.alphaCount * scale + (STARTUP_FRAMES - this.alphaCount)) / STARTUP_FRAMES;
      // the same operands give the same result (alpha is +0 or more and scale above 0: no −0 for ===)
      if (alpha !== this.s[POW_ALPHA] || scale !== this.s[POW_SCALE]) {
        this.s[POW_ALPHA] = alpha;
        this.s[POW_SCALE] = scale;
        this.s[POW_OUT] = alpha ** scale;
      }
      alpha = this.s[POW_OUT];
    }
    const e = dev - this.s[AVG_NOISE];
    this.s[AVG_NOISE] = alpha * this.s[AVG_NOISE] + (1 - alpha) * dev;
    this.s[VAR_NOISE] = Math.max(alpha * this.s[VAR_NOISE] + (1 - alpha) * e * e, 1);
    this.s[SD_NOISE] = Math.sqrt(this.s[VAR_NOISE]);
  }

  /** The Kalman filter of frame delay against the frame size change. */
  private kalman(deltaBytes: number): void {
    const delay = this.s[CLAMPED_MS];
    if (this.s[MAX_SIZE] < 1) return;
    this.s[C00] += 2.5e-10;
    this.s[C11] += 1e-10;
    const m0 = this.s[C00] * deltaBytes + this.s[C01];
    const m1 = this.s[C10] * deltaBytes + this.s[C11];
    let sigma = (300 * Math.exp(-Math.abs(deltaBytes) / this.s[MAX_SIZE]) + 1) * this.s[SD_NOISE];
    if (sigma < 1) sigma = 1;
    const s = deltaBytes * m0 + m1 + sigma;
    if (Math.abs(s) < 1e-9) return;
    const k0 = m0 / s;
    const k1 = m1 / s;
    const residual = delay - (deltaBytes * this.s[THETA0] + this.s[THETA1]);
    this.s[THETA0] += k0 * residual;
    this.s[THETA1] += k1 * residual;
    if (this.s[THETA0] < THETA_LOW) this.s[THETA0] = THETA_LOW;
    const t00 = this.s[C00];
    const t01 = this.s[C01];
    this.s[C00] = (1 - k0 * deltaBytes) * t00 - k0 * this.s[C10];
    this.s[C01] = (1 - k0 * deltaBytes) * t01 - k0 * this.s[C11];
    this.s[C10] = this.s[C10] * (1 - k1) - k1 * deltaBytes * t00;
    this.s[C11] = this.s[C11] * (1 - k1) - k1 * deltaBytes * t01;
  }
}
