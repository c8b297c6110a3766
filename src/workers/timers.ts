// A timer for an absolute monotonic instant, however far, never early: Node fires any setTimeout
// longer than 2^31 − 1 ms (24.8 days) after 1 ms, so a long wait is re-armed in steps.
import { monoNs } from "../core/clock/clock.ts";

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
