// The truth test's viewer thread: bench:truth's worker (bench/truth-worker.ts, the intake's tap
// into the shared buffer), plus an optional fault for shard 0 from piscina's workerData (`fault`),
// the same faults test/e2e/faulty-worker.ts injects. Production code has no such switch.
import { Piscina } from "piscina";
import truthWorker from "../../bench/truth-worker.ts";
import type { ShardJob, ShardResult, WarmJob } from "../../src/workers/protocol.ts";
import { injectFault, type WorkerFault } from "./faulty-worker.ts";

export type TruthFault = Omit<WorkerFault, "shard">;

export default async function truthFaultWorker(job: ShardJob | WarmJob): Promise<ShardResult | null> {
  const fault = (Piscina.workerData as { fault?: WorkerFault } | undefined)?.fault;
  if (!("warm" in job) && fault !== undefined && fault.shard === job.task.shard) injectFault(fault);
  return truthWorker(job);
}
