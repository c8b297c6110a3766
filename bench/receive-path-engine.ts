// An engine that chooses the receive path of its shards (bench/density.ts, the receive-path
// conformance test): with one path every shard runs on it; with several, each shard is split
// into one shard per path, viewer k going to paths[k mod n], so the paths share one stream,
// one process and (in-thread) one event loop. Ticks of the extra shards are passed on as they
// come: the runner's per-second timeline sums them.

import type { Engine } from "../src/main/run/engine.ts";
import type { ReceivePath, ShardTask } from "../src/workers/protocol.ts";

export function receivePathEngine(inner: Engine, paths: readonly ReceivePath[]): Engine {
  // internal: invariant, only bench/ and test/ call it, always with a path
  if (paths.length === 0) throw new RangeError("receivePathEngine: no path");
  const e: Engine = {
    workers: inner.workers,
    run(tasks, interrupt, onTick) {
      const out: ShardTask[] = [];
      for (const t of tasks) {
        if (paths.length === 1) {
          out.push({ ...t, receivePath: paths[0]! });
          continue;
        }
        paths.forEach((path, k) => {
          const viewers = t.viewers.filter((v) => v.id % paths.length === k);
          if (viewers.length > 0)
            out.push({ ...t, shard: t.shard * paths.length + k, viewers, receivePath: path });
        });
      }
      return inner.run(out, interrupt, onTick);
    },
  };
  // with several paths each shard becomes one per path that has viewers: at most shards × paths
  if (inner.warmUp) e.warmUp = (shards) => inner.warmUp?.(shards * paths.length) ?? Promise.resolve();
  return e;
}
