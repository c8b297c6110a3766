// The typed message protocol between the main thread and a shard's worker thread. Nothing
// crosses the boundary as a thrown object: a worker's failure arrives as a rejected task.
import type { MessagePort } from "node:worker_threads";
import type { ShardResult, ShardTask, ShardTick } from "./shard.ts";

/** Test-only fault injection: what a worker does to itself after `afterMs`. */
export interface WorkerFault {
  kind: "throw" | "exit" | "busy";
  afterMs: number;
}

/** The one long-lived task a worker runs: a whole shard. */
export interface ShardJob {
  task: ShardTask;
  /** the worker's end of a MessageChannel: ticks go out, "stop" comes in */
  port: MessagePort;
  liveDelays: boolean;
  /**
   * the run was interrupted before the shard started: its viewers do not start (a "stop" on the
   * port could arrive after a warmed worker has started its first viewer)
   */
  stopped?: boolean;
  fault?: WorkerFault;
}

/**
 * The task that warms a worker before t0 (its modules, the xxhash wasm): every warm task holds
 * its worker until `threads` have arrived at the barrier (an Int32 at [0]), so each of the
 * pool's threads warms once.
 */
export interface WarmJob {
  warm: { barrier: SharedArrayBuffer; threads: number };
}

export type MainToWorker = { type: "stop" };
export type WorkerToMain = { type: "tick"; tick: ShardTick };
export type { ShardResult };
