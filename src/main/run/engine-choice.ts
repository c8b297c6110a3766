// Which engine a run gets, decided once for every command: `workers` from the flag or the
// scenario (unset: as many threads as the viewers fill, at most one per core beside the main
// thread's: engine.ts), and whether its shards collect live one-way delay samples.
import { cpus } from "node:os";
import type { Scenario } from "../../core/scenario/types.ts";
import { LiveThresholds } from "../../core/thresholds/live.ts";
import type { Logger } from "../observe/log.ts";
import { defaultWorkers, type Engine, inThreadEngine, oversubscribedNote } from "./engine.ts";
import { poolEngine } from "./pool-engine.ts";

/**
 * Live one-way delay samples in the ticks: for /metrics, the progress line and the live thresholds,
 * their only readers.
 */
export function liveDelaysWanted(s: Scenario, progress: boolean): boolean {
  return progress || (s.metrics ?? "") !== "" || LiveThresholds.wanted(s.thresholds);
}

/**
 * The engine of a run of `s`; `progress` when a progress line shows; `reuse` keeps the worker
 * pool from one run to the next (a capacity search), released by `close()`; `viewers`: the most
 * viewers it runs at once (a capacity search's largest step), for the default worker count.
 */
export function engineFor(
  s: Scenario,
  progress: boolean,
  log: Logger,
  reuse = false,
  viewers = s.viewers,
): Engine {
  const workers = s.workers ?? defaultWorkers(viewers);
  const note = oversubscribedNote(workers, cpus().length);
  if (note !== null) log.line(note);
  const liveDelays = liveDelaysWanted(s, progress);
  return workers === 0 ? inThreadEngine({ liveDelays }) : poolEngine({ workers, liveDelays, reuse });
}
