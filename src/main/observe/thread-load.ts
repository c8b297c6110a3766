// One thread's figures as the ceiling rule reads them (docs/definitions.md#client-ceiling): what the
// live display judges each second and the report's thread loads start from.
import type { ThreadLoad } from "../../core/report/ceiling.ts";
import type { ThreadFigures } from "../../net/thread-profile.ts";

/** One thread's figures as the ceiling rule reads them (the whole run, or one second of it). */
export function threadLoad(name: string, f: ThreadFigures): ThreadLoad {
  return {
    name,
    eventLoopUtilisation: f.eventLoopUtilisation,
    eventLoopDelayP99Ms: f.eventLoopDelayMs.p99,
    ...(f.receiveLagMs !== undefined ? { receiveLagP99Ms: f.receiveLagMs.p99 } : {}),
    ...(f.stampSource !== undefined ? { stampSource: f.stampSource } : {}),
    ...(f.processingWaitMs !== undefined
      ? { processingWaitP50Ms: f.processingWaitMs.p50, processingWaitP99Ms: f.processingWaitMs.p99 }
      : {}),
  };
}
