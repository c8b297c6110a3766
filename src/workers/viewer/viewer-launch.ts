// Starting a shard's viewers at their instants, and each viewer's own stop: the shard's stop, or
// its lifetime's end with churn (docs/definitions.md#churn-schedule). One timer waits for the next
// start, so a shard holds state only for the viewers that have started and not yet finished
// (and the records of those that have: the report's).

import { monoNs } from "../../core/clock/clock.ts";
import type { ViewerRecord } from "../../core/types.ts";
import type { ShardTask } from "../protocol.ts";
import { atMonoNs } from "../timers.ts";

export type ShardViewer = ShardTask["viewers"][number];

/**
 * A viewer's stop signal: aborts with the shard's stop, or at `stopMonoNs` when it is set.
 * `release` cancels the timer and the listener, so nothing of the viewer stays on the shard's
 * signal once it has finished.
 */
export function viewerStop(
  shardStop: AbortSignal,
  stopMonoNs: number | undefined,
): { signal: AbortSignal; release(): void } {
  if (stopMonoNs === undefined) return { signal: shardStop, release: () => {} };
  const own = new AbortController();
  const abort = (): void => own.abort();
  if (shardStop.aborted) own.abort();
  else shardStop.addEventListener("abort", abort, { once: true });
  const timer = atMonoNs(stopMonoNs, abort);
  return {
    signal: own.signal,
    release: () => {
      timer.cancel();
      shardStop.removeEventListener("abort", abort);
    },
  };
}

/**
 * Runs `run` for each viewer at its start instant, in order of start (ties: task order), waiting
 * for one start at a time; a viewer whose start the stop overtakes gets `notStarted(v)` instead.
 * Resolves with every viewer's record once all have finished.
 */
export async function launchViewers(
  viewers: readonly ShardViewer[],
  stop: AbortSignal,
  run: (v: ShardViewer) => Promise<ViewerRecord>,
  notStarted: (v: ShardViewer) => ViewerRecord,
): Promise<ViewerRecord[]> {
  const order = [...viewers].sort((a, b) => a.startMonoNs - b.startMonoNs);
  const running: Promise<ViewerRecord>[] = [];
  for (const v of order) {
    if (v.startMonoNs > monoNs()) await sleepUntil(v.startMonoNs, stop);
    running.push(stop.aborted ? Promise.resolve(notStarted(v)) : run(v));
  }
  return Promise.all(running);
}

function sleepUntil(untilMonoNs: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      t.cancel();
      signal.removeEventListener("abort", done);
      resolve();
    };
    const t = atMonoNs(untilMonoNs, done);
    signal.addEventListener("abort", done, { once: true });
  });
}
