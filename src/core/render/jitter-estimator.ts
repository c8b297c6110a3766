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

export class JitterEstimator {
  /**
   * updateIn()'s instant and frame delay, ms, set by the caller: fields, not arguments, because a
   * number outside the small integers (−0 too) is boxed on the heap when passed to a call that is not
   * inlined (issue 40)
   */
  inMs = 0;
  inDelayMs = 0;
  private avgSize = 500;
  private maxSize = 500;
  private varSize = 100;
  private startupSizeSum = 0;
  private startupSizeCount = 0;
  private prevSize = 0;
  private avgNoise = 0;
  private varNoise = 4;
  /** √varNoise, taken once where varNoise changes (each update read it up to four times) */
  private sdNoise = 2;
  private alphaCount = 1;
  // the last alpha ** scale noise() took, with its two operands: after 400 frames alpha is fixed, and
  // frames decoded at their render time (whole ms) repeat the interval mean, so the scale repeats
  // (bench:hotpath's streams: 42–46 % of frames); ** is the costliest operation of an update
  private powAlpha = -1;
  private powScale = -1;
  private powOut = 0;
  private filtered = 0;
  private prevEstimate = -1;
  private startup = 0;
  private lastUpdateMs = Number.NaN;
  /** `filtered` was just calculated from the state as it is */
  private fresh = false;
  // Kalman state: ms per byte, queueing ms; covariance
  private theta0 = 1 / (512e3 / 8);
  private theta1 = 0;
  private c00 = 1e-4;
  private c01 = 0;
  private c10 = 0;
  private c11 = 1e2;
  // frame intervals for the frame rate (ms), a ring
  private readonly intervals = new Float64Array(FPS_WINDOW);
  private intervalN = 0;
  private intervalAt = 0;
  private intervalSum = 0;
  /** the frame rate of those intervals, fps (0: none yet) */
  private rate = 0;
  /** the frame delay clamped, kalman()'s input */
  private clampedMs = 0;

  reset(): void {
    this.avgSize = 500;
    this.maxSize = 500;
    this.varSize = 100;
    this.startupSizeSum = 0;
    this.startupSizeCount = 0;
    this.prevSize = 0;
    this.avgNoise = 0;
    this.varNoise = 4;
    this.sdNoise = 2;
    this.alphaCount = 1;
    this.filtered = 0;
    this.prevEstimate = -1;
    this.startup = 0;
    this.lastUpdateMs = Number.NaN;
    this.fresh = false;
    this.theta0 = 1 / (512e3 / 8);
    this.theta1 = 0;
    this.c00 = 1e-4;
    this.c01 = 0;
    this.c10 = 0;
    this.c11 = 1e2;
    this.intervalN = 0;
    this.intervalAt = 0;
    this.intervalSum = 0;
    this.rate = 0;
  }

  /** One frame released at `nowMs`: its frame delay (whole ms) and size (bytes; 0 is ignored). */
  update(nowMs: number, delayMs: number, bytes: number): void {
    this.inMs = nowMs;
    this.inDelayMs = delayMs;
    this.updateIn(bytes);
  }

  /** update(inMs, inDelayMs, bytes). */
  updateIn(bytes: number): void {
    if (bytes === 0) return;
    const delayMs = this.inDelayMs;
    const deltaBytes = bytes - this.prevSize;
    if (this.startupSizeCount < SIZE_FILTER_FRAMES) {
      this.startupSizeSum += bytes;
      this.startupSizeCount++;
    } else if (this.startupSizeCount === SIZE_FILTER_FRAMES) {
      this.avgSize = this.startupSizeSum / this.startupSizeCount;
      this.startupSizeCount++;
    }
    const avg = PHI * this.avgSize + (1 - PHI) * bytes;
    if (bytes < this.avgSize + 2 * Math.sqrt(this.varSize)) this.avgSize = avg; // not a keyframe
    const d = bytes - avg;
    this.varSize = Math.max(PHI * this.varSize + (1 - PHI) * d * d, 1);
    this.maxSize = Math.max(PSI * this.maxSize, bytes);
    if (this.prevSize === 0) {
      this.prevSize = bytes;
      return;
    }
    this.prevSize = bytes;
    const sd = this.sdNoise;
    const bound = Math.floor(DELAY_CLAMP_SD * sd + 0.5);
    const delay = Math.min(Math.max(delayMs, -bound), bound);
    this.clampedMs = delay;
    const deviation = delay - (this.theta0 * deltaBytes + this.theta1);
    if (
      Math.abs(deviation) < DELAY_OUTLIER_SD * sd ||
      bytes > this.avgSize + SIZE_OUTLIER_SD * Math.sqrt(this.varSize)
    ) {
      this.noise(deviation);
      if (deltaBytes > CONGESTION_FACTOR * this.maxSize) this.kalman(deltaBytes);
    } else {
      this.noise((deviation >= 0 ? DELAY_OUTLIER_SD : -DELAY_OUTLIER_SD) * sd);
    }
    if (this.startup >= STARTUP_FRAMES) {
      this.calculate();
      this.filtered = this.prevEstimate;
      this.fresh = true;
    } else this.startup++;
  }

  /** The jitter delay, whole ms, at the latest update. */
  estimateMs(): number {
    // libwebrtc computes the estimate again here; right after an update that is the filtered one
    let calc = this.filtered;
    if (!this.fresh) {
      this.calculate();
      calc = this.prevEstimate;
    }
    this.fresh = false;
    let jitter = calc + OS_JITTER_MS;
    if (this.filtered > jitter) jitter = this.filtered;
    const fps = this.rate;
    if (fps > 0 && fps < 5) return 0;
    if (fps > 0 && fps < 10) jitter *= (fps - 5) / 5;
    return Math.floor(Math.max(0, jitter) + 0.5);
  }

  /** The estimate from the state as it is, into prevEstimate. */
  private calculate(): void {
    const noiseThreshold = Math.max(NOISE_SD * this.sdNoise - NOISE_OFFSET_MS, 1);
    let ms = this.theta0 * (this.maxSize - this.avgSize) + noiseThreshold;
    if (ms < 1) ms = this.prevEstimate < 0 ? 1 : this.prevEstimate;
    else if (ms > MAX_ESTIMATE_MS) ms = MAX_ESTIMATE_MS;
    this.prevEstimate = ms;
  }

  /** The frame rate of the intervals kept, into rate (0: none yet). */
  private setRate(): void {
    const mean = this.intervalN === 0 ? 0 : this.intervalSum / this.intervalN;
    this.rate = mean <= 0 ? 0 : Math.min(1000 / mean, 200);
  }

  /** The residual noise's mean and variance at inMs, weighted for a 30 fps stream. */
  private noise(dev: number): void {
    const nowMs = this.inMs;
    if (!Number.isNaN(this.lastUpdateMs)) {
      const x = nowMs - this.lastUpdateMs;
      if (this.intervalN === FPS_WINDOW) this.intervalSum -= this.intervals[this.intervalAt]!;
      else this.intervalN++;
      this.intervals[this.intervalAt] = x;
      this.intervalSum += x;
      this.intervalAt = (this.intervalAt + 1) % FPS_WINDOW;
      this.setRate();
    }
    this.lastUpdateMs = nowMs;
    let alpha = (this.alphaCount - 1) / this.alphaCount;
    this.alphaCount = Math.min(this.alphaCount + 1, ALPHA_COUNT_MAX);
    const fps = this.rate;
    if (fps > 0) {
      let scale = 30 / fps;
      if (this.alphaCount < STARTUP_FRAMES)
        scale = (this.alphaCount * scale + (STARTUP_FRAMES - this.alphaCount)) / STARTUP_FRAMES;
      // the same operands give the same result (alpha is +0 or more and scale above 0: no −0 for ===)
      if (alpha !== this.powAlpha || scale !== this.powScale) {
        this.powAlpha = alpha;
        this.powScale = scale;
        this.powOut = alpha ** scale;
      }
      alpha = this.powOut;
    }
    const e = dev - this.avgNoise;
    this.avgNoise = alpha * this.avgNoise + (1 - alpha) * dev;
    this.varNoise = Math.max(alpha * this.varNoise + (1 - alpha) * e * e, 1);
    this.sdNoise = Math.sqrt(this.varNoise);
  }

  /** The Kalman filter of frame delay against the frame size change. */
  private kalman(deltaBytes: number): void {
    const delay = this.clampedMs;
    if (this.maxSize < 1) return;
    this.c00 += 2.5e-10;
    this.c11 += 1e-10;
    const m0 = this.c00 * deltaBytes + this.c01;
    const m1 = this.c10 * deltaBytes + this.c11;
    let sigma = (300 * Math.exp(-Math.abs(deltaBytes) / this.maxSize) + 1) * this.sdNoise;
    if (sigma < 1) sigma = 1;
    const s = deltaBytes * m0 + m1 + sigma;
    if (Math.abs(s) < 1e-9) return;
    const k0 = m0 / s;
    const k1 = m1 / s;
    const residual = delay - (deltaBytes * this.theta0 + this.theta1);
    this.theta0 += k0 * residual;
    this.theta1 += k1 * residual;
    if (this.theta0 < THETA_LOW) this.theta0 = THETA_LOW;
    const t00 = this.c00;
    const t01 = this.c01;
    this.c00 = (1 - k0 * deltaBytes) * t00 - k0 * this.c10;
    this.c01 = (1 - k0 * deltaBytes) * t01 - k0 * this.c11;
    this.c10 = this.c10 * (1 - k1) - k1 * deltaBytes * t00;
    this.c11 = this.c11 * (1 - k1) - k1 * deltaBytes * t01;
  }
}
