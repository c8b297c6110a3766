// How shards run. `--workers 0`: the one shard runs in the main thread through the same entry
// function a worker calls. `--workers N`: N shards in a piscina pool (pool-engine.ts). The
// merge, the report and the Markdown never know which.
import { cpus } from "node:os";
import type { ViewerRecord } from "../../core/types.ts";
import type { ShardProfile, ShardTask, ShardTick } from "../../workers/protocol.ts";
import { runShard, warmShard } from "../../workers/shard.ts";

export interface EngineResult {
  records: ViewerRecord[];
  /** one per shard that returned; a shard whose worker died has none */
  profiles: ShardProfile[];
}

export interface Engine {
  /** worker threads used; 0 = viewers in the main thread */
  readonly workers: number;
  /**
   * Optional: start the threads of `shards` shards and load what a shard's first viewer needs
   * (modules, the xxhash wasm), so that the runner can do it before t0 and the first viewer's
   * POST goes out at its scheduled instant.
   */
  warmUp?(shards: number): Promise<void>;
  run(tasks: ShardTask[], interrupt: AbortSignal, onTick: (tick: ShardTick) => void): Promise<EngineResult>;
  /** Optional: release what outlives a run (a pool kept for the next run). */
  close?(): Promise<void>;
}

/** Collect live one-way delay samples in the ticks (for /metrics); off unless asked. */
export interface EngineOptions {
  liveDelays?: boolean;
}

export function inThreadEngine(opts: EngineOptions = {}): Engine {
  return {
    workers: 0,
    warmUp: () => warmShard(),
    async run(tasks, interrupt, onTick) {
      const out = await Promise.all(
        tasks.map((task) =>
          runShard(task, { tick: onTick, stop: interrupt, liveDelays: opts.liveDelays ?? false }, "main"),
        ),
      );
      return { records: out.flatMap((r) => r.records), profiles: out.map((r) => r.profile) };
    },
  };
}

/** The cores left beside the main thread (publisher, send log, merge); at least one. */
function spareCores(cores: number): number {
  return Math.max(1, cores - 1);
}

/**
 * Viewers one worker thread takes before the default opens the next (docs/definitions.md#default-workers):
 * on the arena path with the shared socket a thread of 200 viewers ran quiet, 0 loss, on 2 cores and
 * on 16 (23.4–23.6 µs of thread CPU per packet: ~0.32 of a core at ~69 packets/s), and its
 * setups stayed under 1 s; at 300 it still kept up, but 21–110 of its joins took over 1 s
 * (bench/README.md, "Density"). Spread thin, a thread costs more per packet.
 */
export const VIEWERS_PER_THREAD = 200;

/**
 * The default: one core kept for the main thread, and as many worker threads as `viewers` fill
 * at VIEWERS_PER_THREAD each, at most one per remaining core (at least one). Without `viewers`
 * (an agent, whose share is not known yet) one per remaining core.
 */
export function defaultWorkers(viewers?: number, cores = cpus().length): number {
  const spare = spareCores(cores);
  if (viewers === undefined) return spare;
  return Math.min(spare, Math.max(1, Math.ceil(viewers / VIEWERS_PER_THREAD)));
}

/**
 * The stderr line for more worker threads than the cores left beside the main thread, or null.
 * Such a run still works — threads share cores — but its per-thread CPU figures say less, and
 * whether the client kept up is for the ceiling guard to judge.
 */
export function oversubscribedNote(workers: number, cores: number): string | null {
  const spare = spareCores(cores);
  if (workers <= spare) return null;
  return `note: ${workers} worker thread${workers === 1 ? "" : "s"} for ${spare} core${spare === 1 ? "" : "s"} beside the main thread's (${cores} in all): threads share cores; client.ceiling says whether the client kept up`;
}
