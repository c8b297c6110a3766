// Allocation windows need a young generation that does not fill during the window and a way
// to force a full GC before it: a benchmark that measures allocation re-runs itself with these
// V8 flags when it was started without them.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

export const ALLOCATION_V8_FLAGS = ["--expose-gc", "--min-semi-space-size=256", "--max-semi-space-size=256"];

/** The gc() function; without it, re-runs the calling script (its import.meta.url) with the flags and exits with its status. */
export function allocationGc(selfUrl: string): () => void {
  if (typeof globalThis.gc !== "function") {
    const self = fileURLToPath(selfUrl);
    const r = spawnSync(process.execPath, [...ALLOCATION_V8_FLAGS, self, ...process.argv.slice(2)], {
      stdio: "inherit",
    });
    process.exit(r.status ?? 1);
  }
  return globalThis.gc as () => void;
}
