// Two small steps of a run: the line that says how the viewers start, and the warmup's sleep
// that an interrupt cuts short.
import { fmtG } from "../../core/go-compat/fmt.ts";
import type { Scenario } from "../../core/scenario/scenario.ts";
import type { Logger } from "../observe/log.ts";

export function logStart(log: Logger, s: Scenario): void {
  const g = fmtG;
  if (s.rampOffsetSeed !== undefined) {
    log.line(
      `starting ${s.viewers} viewers over ${g(s.rampSeconds)}s, each offset by up to ${g(s.rampOffsetMaxSeconds ?? 0)}s (seed ${s.rampOffsetSeed}), holding ${g(s.holdSeconds)}s`,
    );
  } else {
    log.line(`starting ${s.viewers} viewers over ${g(s.rampSeconds)}s, holding ${g(s.holdSeconds)}s`);
  }
}

export function sleepUnless(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted || ms <= 0) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
