// The built-in relay's estimate of what a viewer leg can carry, from the leg's transport-wide
// feedback, and the layer it moves the leg to when the viewer chose none
// (docs/definitions.md#relay-layer-estimate). Per window of WINDOW_MS closed by a feedback message:
// the loss p is the feedback's packets reported not received over those it reports; the
// delivered rate R the bits the relay sent the leg in the window times (1 − p). The estimate A
// starts at the leg's first window's sending rate × HEADROOM (the layer it is on fits) and moves
// as a loss-based controller does (draft-ietf-rmcat-gcc, section 6): above LOSS_HIGH, A ← A·(1 − p/2),
// never below R; under LOSS_LOW, A ← A·GROWTH, at most CAP_FACTOR × the top layer's rate;
// between, A holds. A layer fits when its own measured rate × HEADROOM ≤ A. Down at once to the
// highest layer that fits (the lowest when none does); up one layer only after UP_WINDOWS windows
// in a row in which a higher one fit, and not within HOLD_DOWN_MS of the last move down.

export const WINDOW_MS = 1000;
export const LOSS_HIGH = 0.1;
export const LOSS_LOW = 0.02;
export const GROWTH = 1.08;
export const HEADROOM = 1.2;
export const CAP_FACTOR = 1.5;
export const UP_WINDOWS = 3;
export const HOLD_DOWN_MS = 10_000;

/** Each layer's incoming rate at the relay, bits per second over the last closed window. */
export class LayerRates {
  private readonly bytes = new Map<string, number>();
  private readonly bps = new Map<string, number>();
  private startMs = -1;

  /** A packet of layer `rid` with `bytes` of payload arrived at `nowMs`. */
  add(rid: string, bytes: number, nowMs: number): void {
    if (this.startMs < 0) this.startMs = nowMs;
    const span = nowMs - this.startMs;
    if (span >= WINDOW_MS) {
      for (const [r, b] of this.bytes) this.bps.set(r, (b * 8 * 1000) / span);
      this.bytes.clear();
      this.startMs = nowMs;
    }
    this.bytes.set(rid, (this.bytes.get(rid) ?? 0) + bytes);
  }

  /** The layer's rate over the last closed window; undefined before one closed or with no packet. */
  rate(rid: string): number | undefined {
    return this.bps.get(rid);
  }
}

/** One closed window's figures (for the tests and the relay's counters). */
export interface EstimateWindow {
  lossFraction: number;
  deliveredBps: number;
  estimateBps: number;
}

export class LegEstimate {
  /** the estimate, bits per second; null before the first window closed */
  estimateBps: number | null = null;
  /** the last closed window, null before one */
  last: EstimateWindow | null = null;
  /** moves the estimate made: down and up */
  downs = 0;
  ups = 0;
  private sentBytes = 0;
  private received = 0;
  private lost = 0;
  private startMs = -1;
  private upStreak = 0;
  private lastDownMs = Number.NEGATIVE_INFINITY;

  /** The relay sent the leg `bytes` of RTP payload at `nowMs`. */
  sent(bytes: number, nowMs: number): void {
    if (this.startMs < 0) this.startMs = nowMs;
    this.sentBytes += bytes;
  }

  /**
   * A feedback message reporting `received` packets received and `lost` not; returns the closed
   * window when this message closes one (WINDOW_MS since the window began), else null.
   */
  feedback(received: number, lost: number, nowMs: number, topBps: number): EstimateWindow | null {
    if (this.startMs < 0) return null;
    this.received += received;
    this.lost += lost;
    const span = nowMs - this.startMs;
    const reported = this.received + this.lost;
    if (span < WINDOW_MS || reported === 0) return null;
    const p = this.lost / reported;
    const sentBps = (this.sentBytes * 8 * 1000) / span;
    const delivered = sentBps * (1 - p);
    let a = this.estimateBps ?? sentBps * HEADROOM;
    if (p > LOSS_HIGH) a = Math.max(a * (1 - p / 2), delivered);
    else if (p < LOSS_LOW) a = Math.min(a * GROWTH, Math.max(topBps * CAP_FACTOR, a));
    this.estimateBps = a;
    this.last = { lossFraction: p, deliveredBps: delivered, estimateBps: a };
    this.sentBytes = 0;
    this.received = 0;
    this.lost = 0;
    this.startMs = nowMs;
    return this.last;
  }

  /**
   * The layer the leg should take now, given the one it is on (`current`), the layers lowest first
   * and their rates; `current` when it stays. Call after a window closed.
   */
  choose(current: string, rids: readonly string[], rate: (rid: string) => number | undefined, nowMs: number) {
    const a = this.estimateBps;
    const at = rids.indexOf(current);
    if (a === null || at < 0 || rids.some((r) => rate(r) === undefined)) return current;
    let fit = 0;
    for (const [i, r] of rids.entries()) if ((rate(r) ?? 0) * HEADROOM <= a) fit = i;
    if (fit < at) {
      this.lastDownMs = nowMs;
      this.upStreak = 0;
      this.downs++;
      return rids[fit] ?? current;
    }
    if (fit === at) {
      this.upStreak = 0;
      return current;
    }
    this.upStreak++;
    if (this.upStreak < UP_WINDOWS || nowMs - this.lastDownMs < HOLD_DOWN_MS) return current;
    this.upStreak = 0;
    this.ups++;
    return rids[at + 1] ?? current;
  }
}
