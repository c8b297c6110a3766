// The calibration's fault window (bench/libwebrtc.ts): the stream-wide faults go on FAULT_FROM_S after
// the last receiver has its leg and off FAULT_UNTIL_S before the first receiver stops. Each receiver
// runs `seconds` from its own start, so the end follows the receivers, not the bench's clock: a
// receiver whose leg came late also stops late. What was applied is recorded, and a faulted pattern
// whose window came out shorter than MIN_WINDOW_SHARE of the intended one is unavailable, not compared
// (two receivers that saw no fault agree vacuously). Pure: instants are ms from the receivers' spawn.

/** Stream-wide drops start this long after the last receiver has its leg, and end this long before the first stops. */
export const FAULT_FROM_S = 2;
export const FAULT_UNTIL_S = 3;
/** The least share of the intended window (every leg at once) a faulted pattern must have had. */
export const MIN_WINDOW_SHARE = 0.5;

/** The window every receiver would see were all legs there at once: seconds − FROM − UNTIL. */
export function intendedWindowMs(seconds: number): number {
  return Math.max(0, (seconds - FAULT_FROM_S - FAULT_UNTIL_S) * 1000);
}

/**
 * The window to apply, from the instants the receivers' legs appeared at the relay (ms): on after
 * the last, off before the first's stop (its leg + `seconds`: a libwebrtc receiver starts its
 * `seconds` once answered, a `view`'s viewers at its t0, before their POSTs, which FAULT_UNTIL_S
 * covers). `untilMs <= fromMs`: empty, nothing to apply.
 */
export function plannedWindow(
  legsMs: readonly number[],
  seconds: number,
): { fromMs: number; untilMs: number } {
  if (legsMs.length === 0) return { fromMs: Number.POSITIVE_INFINITY, untilMs: Number.NEGATIVE_INFINITY };
  return {
    fromMs: Math.max(...legsMs) + FAULT_FROM_S * 1000,
    untilMs: Math.min(...legsMs) + (seconds - FAULT_UNTIL_S) * 1000,
  };
}

/** The window actually applied, ms from the receivers' spawn (a calibration pattern's result). */
export interface AppliedWindow {
  /** when the faults went on; null: never (the legs did not all come, or the window was empty) */
  fromMs: number | null;
  /** when they went off; null where they never went on */
  untilMs: number | null;
  /** untilMs − fromMs, 0 where nothing was applied */
  lengthMs: number;
  /** seconds − FAULT_FROM_S − FAULT_UNTIL_S, in ms: the window with every leg at once */
  intendedMs: number;
  /** the instants each receiver's leg appeared at the relay, in order */
  legsMs: number[];
  /** the legs the pattern waited for */
  legsWanted: number;
}

/** Records the legs as they appear and the instants the faults went on and off. */
export class FaultWindowClock {
  private readonly legsMs: number[] = [];
  private onMs: number | null = null;
  private offMs: number | null = null;
  private planned = false;
  private readonly seconds: number;
  private readonly legsWanted: number;

  constructor(seconds: number, legsWanted: number) {
    this.seconds = seconds;
    this.legsWanted = legsWanted;
  }

  /**
   * The relay's leg count at `nowMs` (polled): each new leg's instant is kept; the window to apply
   * once every leg is there (once), else null.
   */
  legs(count: number, nowMs: number): { fromMs: number; untilMs: number } | null {
    while (this.legsMs.length < Math.min(count, this.legsWanted)) this.legsMs.push(nowMs);
    if (this.planned || this.legsMs.length < this.legsWanted) return null;
    this.planned = true;
    return plannedWindow(this.legsMs, this.seconds);
  }

  switchedOn(nowMs: number): void {
    this.onMs ??= nowMs;
  }

  switchedOff(nowMs: number): void {
    if (this.onMs !== null) this.offMs ??= nowMs;
  }

  /** The window applied; faults still on at `endMs` (a receiver ended early) count until then. */
  applied(endMs: number): AppliedWindow {
    const until = this.onMs === null ? null : (this.offMs ?? endMs);
    return {
      fromMs: this.onMs,
      untilMs: until,
      lengthMs: this.onMs === null || until === null ? 0 : Math.max(0, until - this.onMs),
      intendedMs: intendedWindowMs(this.seconds),
      legsMs: [...this.legsMs],
      legsWanted: this.legsWanted,
    };
  }
}

const s1 = (ms: number): string => (ms / 1000).toFixed(1);

/** Why a faulted pattern's comparison is unavailable: its window was short or empty; null when it was not. */
export function shortWindowReason(w: AppliedWindow): string | null {
  const least = MIN_WINDOW_SHARE * w.intendedMs;
  if (w.lengthMs >= least && w.lengthMs > 0) return null;
  const legs = w.legsMs.map(s1).join(", ");
  const why =
    w.legsMs.length < w.legsWanted
      ? `only ${w.legsMs.length} of ${w.legsWanted} receivers got a leg`
      : `the receivers' legs came at ${legs} s`;
  return (
    `the fault window was ${s1(w.lengthMs)} s, under ${MIN_WINDOW_SHARE * 100} % of the ${s1(w.intendedMs)} s ` +
    `intended (${why}): both receivers may have seen little or no fault`
  );
}

/** The window as bench:calibration prints it. */
export function windowLine(w: AppliedWindow): string {
  const legs = `legs at ${w.legsMs.map(s1).join(", ") || "—"} s of ${w.legsWanted}`;
  if (w.fromMs === null || w.untilMs === null) return `fault window: none applied (${legs})`;
  return (
    `fault window: ${s1(w.fromMs)} → ${s1(w.untilMs)} s after the receivers were started, ` +
    `${s1(w.lengthMs)} s (intended ${s1(w.intendedMs)} s; ${legs})`
  );
}
