// How shards run. `--workers 0`: the one shard runs in the main thread through the same entry
// function a worker calls. The worker-thread engine (piscina) implements the same interface.
import type { ViewerRecord } from "../core/types.ts";
import { runShard, type ShardTask, type ShardTick } from "../workers/shard.ts";

export interface Engine {
  /** worker threads used; 0 = viewers in the main thread */
  readonly workers: number;
  run(tasks: ShardTask[], interrupt: AbortSignal, onTick: (tick: ShardTick) => void): Promise<ViewerRecord[]>;
}

export const inThreadEngine: Engine = {
  workers: 0,
  async run(tasks, interrupt, onTick) {
    const out: ViewerRecord[][] = await Promise.all(
      tasks.map((task) => runShard(task, { tick: onTick, stop: interrupt })),
    );
    return out.flat();
  },
};
