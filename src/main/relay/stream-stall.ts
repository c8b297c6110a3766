// Test-only stall of a whole stream in the built-in relay (the calibration's "frames held then
// burst": a server that pauses): every `everyMs`, for the last `forMs` of the period, the
// publisher's packets are held for every leg alike, and at the period's end everything held is
// forwarded at once, in order. A packet that comes while packets are still held waits behind them,
// so the order never changes; the timer that releases them is unreferenced (a run's end never
// waits for it).

export interface StallOptions {
  /** the period, ms (the first period starts with the first packet the stall sees) */
  everyMs: number;
  /** the held part at the end of each period, ms */
  forMs: number;
}

export class StreamStall {
  /** stalls that ended with a release, and packets held in all */
  stalls = 0;
  heldPackets = 0;
  private readonly opts: StallOptions;
  private readonly startMs: number;
  private held: (() => void)[] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(opts: StallOptions, nowMs: number) {
    this.opts = opts;
    this.startMs = nowMs;
  }

  /**
   * One packet at `nowMs`; `enabled`: the fault is on. Returns true when the packet is held
   * (`release` forwards it later), false when it goes now.
   */
  hold(nowMs: number, enabled: boolean, release: () => void): boolean {
    if (this.held.length === 0) {
      if (!enabled) return false;
      const { everyMs, forMs } = this.opts;
      const phase = (nowMs - this.startMs) % everyMs;
      if (phase < everyMs - forMs) return false;
      this.timer = setTimeout(() => this.release(), everyMs - phase);
      this.timer.unref();
    }
    this.held.push(release);
    this.heldPackets++;
    return true;
  }

  /** Forwards everything held, in order (also when the relay closes). */
  release(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const held = this.held;
    if (held.length === 0) return;
    this.held = [];
    this.stalls++;
    for (const r of held) r();
  }
}
