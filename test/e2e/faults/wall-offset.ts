// Preloaded into a child process (NODE_OPTIONS=--import) by the split-run and clock tests: shifts
// the child's wall clock by WHIPBENCH_TEST_WALL_OFFSET_MS through the clock's one injection
// point, so two processes on one host have clocks a known offset apart. Production code reads
// no such variable.

import { setTestWallOffsetNs } from "../../../src/core/clock/clock.ts";
import { preloadEnv } from "./preload.ts";

const OFFSET_ENV = "WHIPBENCH_TEST_WALL_OFFSET_MS";

/** The child's extra environment: this file preloaded, and the offset. */
export function wallOffsetEnv(ms: number): Record<string, string> {
  return preloadEnv(import.meta.url, OFFSET_ENV, String(ms));
}

const offsetMs = Number(process.env[OFFSET_ENV] ?? "");
if (Number.isFinite(offsetMs) && offsetMs !== 0) setTestWallOffsetNs(offsetMs * 1e6);
