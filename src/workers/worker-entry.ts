// The piscina worker: runs one shard per task with the same entry function the main thread uses
// for --workers 0. The task is async, so the worker's event loop keeps delivering messages.

import { monoNs } from "../core/clock/clock.ts";
import { useViewerBufferPool } from "./buffer-pool.ts";
import type { MainToWorker, ShardJob, ShardResult, WarmJob, WorkerToMain } from "./protocol.ts";
import { runShard, warmShard } from "./shard.ts";

// this thread hosts viewers only
useViewerBufferPool();

/** How long a warm task waits for the pool's other threads at the barrier. */
const WARM_BARRIER_NS = 10e9;

export default async function shardWorker(job: ShardJob | WarmJob): Promise<ShardResult | null> {
  if ("warm" in job) {
    await warm(job.warm);
    return null;
  }
  const stop = new AbortController();
  if (job.stopped) stop.abort();
  job.port.on("message", (m: MainToWorker) => {
    if (m.type === "stop") stop.abort();
  });
  try {
    return await runShard(
      job.task,
      {
        stop: stop.signal,
        liveDelays: job.liveDelays,
        tick: (tick) => job.port.postMessage({ type: "tick", tick } satisfies WorkerToMain),
      },
      "worker",
    );
  } finally {
    job.port.close();
  }
}

async function warm(w: WarmJob["warm"]): Promise<void> {
  await warmShard();
  const arrived = new Int32Array(w.barrier);
  Atomics.add(arrived, 0, 1);
  const until = monoNs() + WARM_BARRIER_NS;
  while (Atomics.load(arrived, 0) < w.threads && monoNs() < until) {
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}
