// Preloaded into a child whipbench (NODE_OPTIONS=--import) by the process-faults test: holds the
// process's first report file WHIPBENCH_TEST_WRITE_DELAY_MS (at most 60 s) between writing its
// temporary copy and renaming it, through the write path's one injection point, so that the test
// can signal the process while it writes. Production code reads no such variable.

import { setBeforeRenameHook } from "../../../src/main/output/write-report.ts";
import { preloadEnv } from "./preload.ts";

const DELAY_ENV = "WHIPBENCH_TEST_WRITE_DELAY_MS";

/** The child's extra environment: this file preloaded, and the delay. */
export function writeDelayEnv(ms: number): Record<string, string> {
  return preloadEnv(import.meta.url, DELAY_ENV, String(ms));
}

const delayMs = Number(process.env[DELAY_ENV] ?? "");
if (Number.isFinite(delayMs) && delayMs > 0) {
  let taken = false;
  setBeforeRenameHook(async () => {
    if (taken) return;
    taken = true;
    await new Promise((resolve) => setTimeout(resolve, Math.min(delayMs, 60_000)));
  });
}
