// Freezes and pauses of one viewer's shown frames (docs/definitions.md#freezes-and-pauses), counted
// as libwebrtc's video quality observer counts them: the interval between two shown frames, in
// whole milliseconds, enters a window of the last 30 intervals; once 5 are in, it is a freeze when
// it is at least max(3 × the window's mean rounded down, that mean + 150 ms), and the whole
// interval counts as frozen. The window is never reset. After the stream was found inactive (no
// RTP packet for 5 s) the interval that ends it is a pause: it neither enters the window nor is
// tested. Pure: the caller gives the instants.

/** Intervals in the mean (kAvgInterframeDelaysWindowSizeFrames). */
export const FREEZE_WINDOW = 30;
/** Intervals seen before any can be a freeze (kMinFrameSamplesToDetectFreeze). */
export const FREEZE_MIN_SAMPLES = 5;
/** A freeze is at least this much above the mean (kMinIncreaseForFreezeMs). */
export const FREEZE_MIN_INCREASE_MS = 150;

export class FreezeClock {
  freezes = 0;
  frozenMs = 0;
  longestFreezeMs = 0;
  pauses = 0;
  pausedMs = 0;
  /** shown frames seen */
  frames = 0;
  /** instant of the first and last shown frame, ns (−1 before) */
  firstNs = -1;
  lastNs = -1;
  /**
   * shownIn()'s instant, ns, set by the caller: a field, not an argument, because a number outside the
   * small integers is boxed on the heap when passed to a call that is not inlined (issue 40)
   */
  inNs = 0;

  private lastMs = 0;
  private readonly window = new Int32Array(FREEZE_WINDOW);
  private windowN = 0;
  private windowAt = 0;
  private windowSum = 0;
  private paused = false;
  private readonly onFreeze: ((startNs: number, endNs: number) => void) | null;

  constructor(onFreeze: ((startNs: number, endNs: number) => void) | null = null) {
    this.onFreeze = onFreeze;
  }

  /** The stream was found inactive (no packet for 5 s): the next interval is a pause. */
  inactive(): void {
    this.paused = true;
  }

  /** One shown frame at `ns` (monotonic, non-decreasing). */
  shown(ns: number): void {
    this.inNs = ns;
    this.shownIn();
  }

  /** shown(inNs). */
  shownIn(): void {
    const ns = this.inNs;
    const ms = Math.floor(ns / 1e6);
    if (this.frames > 0) {
      const interval = ms - this.lastMs;
      if (this.paused) {
        this.pauses++;
        this.pausedMs += interval;
      } else if (this.isFreeze(interval)) {
        this.freezes++;
        this.frozenMs += interval;
        if (interval > this.longestFreezeMs) this.longestFreezeMs = interval;
        this.onFreeze?.(this.lastNs, ns);
      }
    } else this.firstNs = ns;
    this.paused = false;
    this.frames++;
    this.lastMs = ms;
    this.lastNs = ns;
  }

  /** Its figures for a viewer that ended at `endNs` (RenderCounters' freeze and pause keys). */
  figures(endNs: number) {
    const shown = this.frames > 0;
    return {
      freezes: this.freezes,
      frozenMs: this.frozenMs,
      longestFreezeMs: this.longestFreezeMs,
      pauses: this.pauses,
      pausedMs: this.pausedMs,
      // libwebrtc's span for its rates: first → last shown frame; the pauses are not judged either
      measuredMs: shown
        ? Math.max(0, Math.floor(this.lastNs / 1e6) - Math.floor(this.firstNs / 1e6) - this.pausedMs)
        : 0,
      endGapMs: shown ? Math.max(0, Math.floor(endNs / 1e6) - Math.floor(this.lastNs / 1e6)) : -1,
    };
  }

  /** Adds the interval to the window, then tests it against the window's mean. */
  private isFreeze(interval: number): boolean {
    const w = this.window;
    if (this.windowN === FREEZE_WINDOW) this.windowSum -= w[this.windowAt]!;
    else this.windowN++;
    w[this.windowAt] = interval;
    this.windowSum += interval;
    this.windowAt = (this.windowAt + 1) % FREEZE_WINDOW;
    if (this.windowN < FREEZE_MIN_SAMPLES) return false;
    const mean = Math.floor(this.windowSum / this.windowN);
    return interval >= Math.max(3 * mean, mean + FREEZE_MIN_INCREASE_MS);
  }
}
