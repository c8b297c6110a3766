// A worker entry for the worker tests: the real one (src/workers/worker-entry.ts), plus a fault
// the test plans for one shard through piscina's workerData — what that shard's worker does to
// itself `afterMs` after its job starts. Production code has no such switch.
import { Piscina } from "piscina";
import type { Engine } from "../../src/main/run/engine.ts";
import { poolEngine } from "../../src/main/run/pool-engine.ts";
import type { ShardJob, ShardResult, WarmJob } from "../../src/workers/protocol.ts";
import shardWorker from "../../src/workers/worker-entry.ts";

export interface WorkerFault {
  shard: number;
  kind: "throw" | "exit" | "busy";
  afterMs: number;
}

/** A pool of `workers` threads whose shard `fault.shard` suffers the fault. */
export function faultyPoolEngine(workers: number, fault: WorkerFault): Engine {
  return poolEngine({ workers, test: { workerEntry: new URL(import.meta.url), workerData: fault } });
}

export default async function faultyShardWorker(job: ShardJob | WarmJob): Promise<ShardResult | null> {
  const fault = Piscina.workerData as WorkerFault | undefined;
  if (!("warm" in job) && fault !== undefined && fault.shard === job.task.shard) injectFault(fault);
  return shardWorker(job);
}

/** What the shard's worker does to itself `afterMs` after its job starts. */
export function injectFault(fault: WorkerFault): void {
  setTimeout(() => {
    if (fault.kind === "exit") process.exit(7);
    if (fault.kind === "throw") {
      // an uncaught exception in the worker: the thread dies with it
      setImmediate(() => {
        throw new Error("injected worker fault");
      });
    }
    if (fault.kind === "busy") {
      // block the loop 60 ms out of every 100 ms: an overloaded client
      setInterval(() => {
        const until = performance.now() + 60;
        while (performance.now() < until) {
          // spin
        }
      }, 100).unref();
    }
  }, fault.afterMs).unref();
}
