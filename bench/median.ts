// The median the benchmarks print over their rounds: the nearest-rank p50 of the project's exact
// summaries (the lower middle value of an even count), and NaN — printed as such, never 0 — when
// there is nothing to take it of.
import { exactSummary } from "../src/core/stats/summaries.ts";

export function median(xs: readonly number[]): number {
  return xs.length === 0 ? Number.NaN : exactSummary(xs).p50;
}
