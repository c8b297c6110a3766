// A worker entry for the worker tests: the real one (src/workers/worker-entry.ts), plus a fault
// the test plans for one shard through piscina's workerData — what that shard's worker does to
// itself `afterMs` after its job starts. Production code has no such switch.
import { Piscina } from "piscina";
import type { Engine } from "../../src/main/run/engine.ts";
import { poolEngine } from "../../src/main/run/pool-engine.ts";
import type { ShardJob, ShardResult, WarmJob } from "../../src/workers/protocol.ts";
import { viewerThread } from "../../src/workers/thread.ts";
import shardWorker from "../../src/workers/worker-entry.ts";

export interface WorkerFault {
  shard: number;
  /** busy: blocks 60 of every 100 ms; saturate: 10 ms of work per media datagram (its queue grows); stall: once, for 3 s */
  kind: "throw" | "exit" | "busy" | "saturate" | "stall" | "noArena";
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
  // as on a platform without batched reads: the arena path falls back to the lean one
  const thread = viewerThread();
  if (fault.kind === "noArena") thread.setArenaUnavailable("batched reads switched off by the test");
  setTimeout(() => {
    if (fault.kind === "exit") process.exit(7);
    if (fault.kind === "throw") {
      // an uncaught exception in the worker: the thread dies with it
      setImmediate(() => {
        throw new Error("injected worker fault");
      });
    }
    if (fault.kind === "busy") {
      // block the loop 60 ms out of every 100 ms: a loaded client that still keeps up
      setInterval(() => spinMs(60), 100).unref();
    }
    if (fault.kind === "saturate") {
      // 10 ms of work per media datagram, in the intake's slices: more work than a second holds
      const intake = thread.intake;
      const push = intake.push.bind(intake);
      intake.push = (stage, data, fromPort, fd) =>
        push(
          {
            receive(d, length, at) {
              spinMs(10);
              stage.receive(d, length, at);
            },
          },
          data,
          fromPort,
          fd,
        );
      // the arena path processes each datagram as it reads it: the same work there
      const arrived = intake.arrived.bind(intake);
      intake.arrived = (...args) => {
        arrived(...args);
        spinMs(10);
      };
    }
    // the socket buffers fill while the thread reads nothing: the kernel drops
    if (fault.kind === "stall") spinMs(3000);
  }, fault.afterMs).unref();
}

function spinMs(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // spin
  }
}
