// The piscina worker: runs one shard per task with the same entry function the main thread uses
// for --workers 0. The task is async, so the worker's event loop keeps delivering messages.

import { useViewerBufferPool } from "./buffer-pool.ts";
import type { MainToWorker, ShardJob, ShardResult, WorkerToMain } from "./protocol.ts";
import { runShard } from "./shard.ts";

// this thread hosts viewers only
useViewerBufferPool();

export default async function shardWorker(job: ShardJob): Promise<ShardResult> {
  const stop = new AbortController();
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
