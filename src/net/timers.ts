// A timer for an absolute monotonic instant, however far: Node fires any setTimeout longer than
// 2^31 − 1 ms (24.8 days) after 1 ms, so a long wait is re-armed in steps until the instant.
import { monoNs } from "./clock.ts";

const MAX_TIMEOUT_MS = 2_147_483_647;

export interface Timer {
  cancel(): void;
}

export function atMonoNs(untilNs: number, fn: () => void): Timer {
  let t: NodeJS.Timeout;
  const arm = () => {
    const ms = Math.max(0, (untilNs - monoNs()) / 1e6);
    t = setTimeout(ms > MAX_TIMEOUT_MS ? arm : fn, Math.min(ms, MAX_TIMEOUT_MS));
  };
  arm();
  return { cancel: () => clearTimeout(t) };
}
