// Small steps of a run: the line that says how the viewers start, the warmup's sleep that an
// interrupt cuts short, a split run's peers, and the report's clock block.

import type { WallAnchor } from "../../core/clock/clock.ts";
import { fmtG } from "../../core/go-compat/fmt.ts";
import type { ClockBlock } from "../../core/report/types.ts";
import type { Scenario } from "../../core/scenario/scenario.ts";
import type { Logger } from "../observe/log.ts";
import { type HostPort, SplitPeers } from "../split/split-peers.ts";

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

/** Monotonic when this process publishes; a split run's exchange; else none. */
export function clockBlock(
  publishing: boolean,
  split: SplitPeers | null,
  clocks: { startMono: number; steps: { stepDetected: boolean } },
): ClockBlock {
  if (publishing) {
    return { method: "monotonic", offsetMs: 0, uncertaintyMs: 0, stepDetected: clocks.steps.stepDetected };
  }
  return (
    split?.clockBlock(clocks.startMono, clocks.steps.stepDetected) ?? { method: "none", stepDetected: false }
  );
}

/** What a run's options say about a split run's peers. */
export interface SplitPeerOptions {
  clockPeer?: HostPort | undefined;
  sendLogPeer?: HostPort | undefined;
  bearer: string | undefined;
  log: Logger;
  clockIntervalMs?: number;
}

/** A split run's clock and send-log peers; a run that publishes ignores a clock peer. */
export function openSplitPeers(
  opts: SplitPeerOptions,
  publishing: boolean,
  anchor: WallAnchor,
): SplitPeers | null {
  if (!publishing && (opts.clockPeer || opts.sendLogPeer)) {
    return new SplitPeers({
      clockPeer: opts.clockPeer,
      sendLogPeer: opts.sendLogPeer,
      bearer: opts.bearer,
      anchor,
      log: opts.log,
      ...(opts.clockIntervalMs !== undefined ? { clockIntervalMs: opts.clockIntervalMs } : {}),
    });
  }
  if (publishing && opts.clockPeer) {
    opts.log.line("clock peer ignored: this run publishes, so one monotonic clock reads both ends");
  }
  return null;
}
