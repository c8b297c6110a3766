// The worker-thread engine: one piscina task per shard, living as long as its viewers. Ticks
// arrive over a MessagePort per shard; a worker that dies takes only its own viewers with it.
import { setFlagsFromString } from "node:v8";
import { MessageChannel } from "node:worker_threads";
import { Piscina } from "piscina";
import { errorMessage } from "../../core/errors.ts";
import type { ViewerRecord } from "../../core/types.ts";
import { emptyRecord } from "../../core/viewer-record.ts";
import type {
  MainToWorker,
  ShardJob,
  ShardResult,
  ShardTask,
  WarmJob,
  WorkerToMain,
} from "../../workers/protocol.ts";
import type { Engine, EngineOptions, EngineResult } from "./engine.ts";

export interface PoolEngineOptions extends EngineOptions {
  workers: number;
  /**
   * tests and bench:truth only: the shards run through this worker entry instead (one that wraps
   * the real one, e.g. test/e2e/faulty-worker.ts or bench/truth-worker.ts), which reads
   * `workerData` (piscina's) for what to do
   */
  test?: { workerEntry: URL; workerData?: unknown };
  /**
   * keep the pool's threads (and what their JIT compiled) from one `run` to the next with as many
   * shards, until `close()`: a capacity search's steps (docs/definitions.md#capacity-search)
   */
  reuse?: boolean;
  /**
   * bench:viewer-gc only: the threads' young generation, MB (null: V8's default); absent:
   * VIEWER_YOUNG_GENERATION_MB
   */
  youngGenerationMb?: number | null;
}

// the worker file: `.ts` in a checkout, `.js` in the built package (dist/)
const WORKER = new URL(
  `../../workers/worker-entry${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`,
  import.meta.url,
);

/**
 * A viewer thread's young generation, MB (2 MB semi-spaces). With V8's default (semi-spaces up to
 * 16 MB) a thread of 30 viewers ran no scavenge and a full mark-compact of its ~30 MB of peers
 * every ~2 s (started early, as the old generation's headroom was below what the young one may
 * promote), stalling its datagrams 20–50 ms each time; with this, frequent cheap scavenges and
 * an old generation nearly still (bench/README.md, "A viewer thread's garbage collection").
 */
export const VIEWER_YOUNG_GENERATION_MB = 6;

/**
 * V8's memory reducer off, for the worker threads created from now on (a V8 flag is the
 * process's; isolates read this one when they are made). On a lightly loaded thread it runs full
 * mark-compacts to shrink the heap: with the small young generation one viewer's thread saw two
 * of them 8–9 s in, stalling its datagrams 25–37 ms. A load tool's threads have no memory to give
 * back mid-run.
 */
function noMemoryReducer(): void {
  setFlagsFromString("--no-memory-reducer");
}

function newPool(threads: number, test: PoolEngineOptions["test"], youngMb: number | null): Piscina {
  noMemoryReducer();
  return new Piscina({
    filename: (test?.workerEntry ?? WORKER).href,
    ...(test?.workerData !== undefined ? { workerData: test.workerData } : {}),
    minThreads: threads,
    maxThreads: threads,
    concurrentTasksPerWorker: 1,
    idleTimeout: 60_000,
    ...(youngMb !== null ? { resourceLimits: { maxYoungGenerationSizeMb: youngMb } } : {}),
  });
}

export function poolEngine(opts: PoolEngineOptions): Engine {
  const young = opts.youngGenerationMb === undefined ? VIEWER_YOUNG_GENERATION_MB : opts.youngGenerationMb;
  // the pool warmUp started and warmed, for the next run with as many shards
  let warmed: { pool: Piscina; threads: number } | null = null;
  return {
    workers: opts.workers,
    async warmUp(shards): Promise<void> {
      // a kept pool of as many threads is already warm
      if (opts.reuse === true && warmed !== null && warmed.threads === shards) return;
      if (warmed !== null) await warmed.pool.destroy();
      const pool = newPool(shards, opts.test, young);
      warmed = { pool, threads: shards };
      const warm: WarmJob = { warm: { barrier: new SharedArrayBuffer(4), threads: shards } };
      // one warm task per thread: each holds its thread until all have arrived; a thread that
      // fails to warm is replaced by piscina, and its shard reports its own failure
      await Promise.all(Array.from({ length: shards }, () => pool.run(warm).catch(() => null)));
    },
    async run(tasks, interrupt, onTick): Promise<EngineResult> {
      let pool: Piscina;
      if (warmed !== null && warmed.threads === tasks.length) {
        pool = warmed.pool;
      } else {
        await warmed?.pool.destroy();
        pool = newPool(tasks.length, opts.test, young);
      }
      warmed = null;
      const ports: { postMessage(m: MainToWorker): void; close(): void }[] = [];
      const stopAll = () => {
        for (const p of ports) p.postMessage({ type: "stop" });
      };
      interrupt.addEventListener("abort", stopAll, { once: true });
      try {
        const results = await Promise.all(
          tasks.map(async (task): Promise<ShardResult | { failed: string; task: ShardTask }> => {
            const { port1, port2 } = new MessageChannel();
            ports.push(port1);
            // interrupted before the shards started (during warmup): the listener below never fires
            if (interrupt.aborted) port1.postMessage({ type: "stop" } satisfies MainToWorker);
            port1.on("message", (m: WorkerToMain) => {
              if (m.type === "tick") onTick(m.tick);
            });
            const job: ShardJob = { task, port: port2, liveDelays: opts.liveDelays ?? false };
            if (interrupt.aborted) job.stopped = true;
            try {
              return (await pool.run(job, { transferList: [port2] })) as ShardResult;
            } catch (err) {
              return { failed: errorMessage(err), task };
            } finally {
              port1.close();
            }
          }),
        );
        const records: ViewerRecord[] = [];
        const profiles: EngineResult["profiles"] = [];
        for (const r of results) {
          if ("failed" in r) {
            records.push(...deadShard(r.task, r.failed));
          } else {
            records.push(...r.records);
            profiles.push(r.profile);
          }
        }
        return { records, profiles };
      } finally {
        interrupt.removeEventListener("abort", stopAll);
        if (opts.reuse === true) warmed = { pool, threads: tasks.length };
        else await pool.destroy();
      }
    },
    async close(): Promise<void> {
      await warmed?.pool.destroy();
      warmed = null;
    },
  };
}

/** Every viewer of a shard whose worker died is failed, with its own error kind. */
function deadShard(task: ShardTask, message: string): ViewerRecord[] {
  return task.viewers.map((v) => {
    const rec = emptyRecord(v.id, task.sendLog !== null);
    rec.errorKind = "worker_died";
    rec.error = `the worker thread running this viewer stopped: ${oneLine(message)}`;
    return rec;
  });
}

function oneLine(text: string): string {
  return text.split("\n")[0]?.slice(0, 200) ?? "";
}
