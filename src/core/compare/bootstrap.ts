// A percentile bootstrap over viewers for the difference between two runs: each resample draws
// the viewers of BASE and of NEW with replacement (independently) and takes the difference of the
// mean per-viewer figure. Deterministic (a fixed-seed mulberry32), so a CI log reads the same twice.

import type { DelaySource, Report } from "../report/types.ts";

export interface DiffInterval {
  /** confidence level, e.g. 0.95 */
  level: number;
  lowMs: number;
  highMs: number;
  resamples: number;
}

/** mulberry32: a small, fast 32-bit generator; uniform in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The per-viewer figure (ms) of every joined viewer whose block has one. */
export function perViewerDelayMs(
  r: Report,
  source: DelaySource,
  stat: "p50" | "p95" | "p99" | "max",
): number[] {
  const out: number[] = [];
  for (const v of r.viewers ?? []) {
    if (!v.joined) continue;
    const b = v.oneWayDelay.find((x) => x.source === source);
    if (b?.available === true && b.ms !== undefined && b.ms.n > 0) out.push(b.ms[stat]);
  }
  return out;
}

function resampledMean(values: readonly number[], next: () => number): number {
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += values[Math.floor(next() * values.length)] ?? 0;
  return sum / values.length;
}

/** Nearest-rank quantile of sorted values. */
function quantile(sorted: readonly number[], q: number): number {
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1] ?? Number.NaN;
}

/**
 * The interval of mean(NEW) − mean(BASE) over viewers; null when either side has fewer than two
 * viewers (no spread to resample).
 */
export function bootstrapDiff(
  base: readonly number[],
  next: readonly number[],
  o: { resamples?: number; level?: number; seed?: number } = {},
): DiffInterval | null {
  if (base.length < 2 || next.length < 2) return null;
  const resamples = o.resamples ?? 2000;
  const level = o.level ?? 0.95;
  const draw = mulberry32(o.seed ?? 0x5eed);
  const diffs: number[] = [];
  for (let i = 0; i < resamples; i++) diffs.push(resampledMean(next, draw) - resampledMean(base, draw));
  diffs.sort((a, b) => a - b);
  const tail = (1 - level) / 2;
  return { level, lowMs: quantile(diffs, tail), highMs: quantile(diffs, 1 - tail), resamples };
}
