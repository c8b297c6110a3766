// A timer for an absolute monotonic instant, however far, never early: Node fires any setTimeout
// longer than 2^31 − 1 ms (24.8 days) after 1 ms, so a long wait is re-armed in steps.
import { monoNs } from "../core/clock/clock.ts";
import { beginGather, endGather } from "../net/write-gather.ts";

const MAX_TIMEOUT_MS = 2_147_483_647;

export interface Timer {
  cancel(): void;
}

export function atMonoNs(untilNs: number, fn: () => void): Timer {
  let t: NodeJS.Timeout;
  // libuv timers count whole milliseconds from the loop's cached time, so a timer can fire up to
  // about 1 ms early: it re-checks the monotonic clock and re-arms until the instant has passed
  const delayMs = () => Math.min(Math.max(0, Math.ceil((untilNs - monoNs()) / 1e6)), MAX_TIMEOUT_MS);
  const arm = () => {
    if (monoNs() >= untilNs) fn();
    else t = setTimeout(arm, delayMs());
  };
  // always asynchronous, even for an instant already past
  t = setTimeout(arm, delayMs());
  return { cancel: () => clearTimeout(t) };
}

/**
 * One member of a thread's SharedTick: due at `dueNs` (−1: not due), run by the tick's pass once
 * that instant is reached; `onTick` does its work and sets its next `dueNs`.
 */
export interface TickMember {
  dueNs: number;
  /** its place in the tick's list, −1 while not joined (the tick's to keep) */
  tickSlot: number;
  onTick(nowNs: number): void;
}

/**
 * One timer for many members (a thread's viewers' periodic RTCP, docs/definitions.md#transport-feedback):
 * it fires at the earliest member's due instant and runs, back to back in one pass, every member
 * due by then, so their sends are made hot rather than one per wake-up. Due instants are put on
 * a grid of `granularityNs` on the monotonic clock (`after`), so members' instants coincide; the
 * timer fires at most that early for a member as libuv's millisecond rounding allows (≤ 1 ms,
 * never more than half the grid), late as the loop is. No timer while no member is joined.
 */
export class SharedTick {
  readonly granularityNs: number;
  private readonly members: TickMember[] = [];
  private readonly due: TickMember[] = [];
  private timer: NodeJS.Timeout | null = null;
  private timerDueNs = -1;
  private readonly earlyNs: number;

  /** around each pass (the feedback tick: its writes gathered, net/write-gather.ts) */
  private readonly pass: { begin(): void; end(): void } | null;

  constructor(granularityMs: number, pass: { begin(): void; end(): void } | null = null) {
    this.pass = pass;
    this.granularityNs = granularityMs * 1e6;
    this.earlyNs = Math.min(1e6, this.granularityNs / 2);
  }

  /** Members joined. */
  get size(): number {
    return this.members.length;
  }

  /** Whether the timer is armed. */
  get armed(): boolean {
    return this.timer !== null;
  }

  /**
   * The grid instant nearest `delayNs` after `nowNs` (the next one where that is not after `nowNs`);
   * `gridNs`: a coarser grid, a multiple of the tick's, for members whose instants need not be finer.
   */
  after(nowNs: number, delayNs: number, gridNs = this.granularityNs): number {
    const g = gridNs;
    const t = Math.round((nowNs + delayNs) / g) * g;
    return t > nowNs ? t : t + g;
  }

  /** `m` takes part (again: nothing changes); its `dueNs` must be set. */
  join(m: TickMember): void {
    if (m.tickSlot < 0) m.tickSlot = this.members.push(m) - 1;
    this.arm(m.dueNs);
  }

  /** `m` no longer takes part; the last member to leave stops the timer. */
  leave(m: TickMember): void {
    const i = m.tickSlot;
    if (i < 0 || this.members[i] !== m) return;
    m.tickSlot = -1;
    const last = this.members.pop()!;
    if (i < this.members.length) {
      this.members[i] = last;
      last.tickSlot = i;
    }
    if (this.members.length === 0 && this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
      this.timerDueNs = -1;
    }
  }

  private arm(dueNs: number): void {
    if (dueNs < 0 || (this.timer !== null && this.timerDueNs <= dueNs)) return;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timerDueNs = dueNs;
    this.timer = setTimeout(this.fire, Math.max(0, Math.ceil((dueNs - monoNs()) / 1e6)));
    this.timer.unref();
  }

  private readonly fire = (): void => {
    this.timer = null;
    this.timerDueNs = -1;
    const now = monoNs();
    const by = now + this.earlyNs;
    const due = this.due;
    for (const m of this.members) if (m.dueNs >= 0 && m.dueNs <= by) due.push(m);
    // a member may leave (or join) during the pass: each due one runs once, if still a member
    this.pass?.begin();
    try {
      for (const m of due) if (m.tickSlot >= 0) m.onTick(now);
    } finally {
      due.length = 0;
      this.pass?.end();
    }
    let next = -1;
    for (const m of this.members) if (m.dueNs >= 0 && (next < 0 || m.dueNs < next)) next = m.dueNs;
    this.arm(next);
  };
}

/** The grid of the thread's feedback tick, ms (docs/definitions.md#transport-feedback). */
export const FEEDBACK_TICK_MS = 10;
let feedback: SharedTick | null = null;

/**
 * This thread's tick for its viewers' periodic RTCP (one per thread: module state is per isolate);
 * what a pass writes on the thread's shared socket leaves in one sendmmsg (net/write-gather.ts).
 */
export function feedbackTick(): SharedTick {
  if (feedback === null) feedback = new SharedTick(FEEDBACK_TICK_MS, { begin: beginGather, end: endGather });
  return feedback;
}
