// The render model's counts of one viewer (docs/definitions.md#viewer-experience-per-viewer),
// declared once with what each means and how it pools over viewers: the viewer's counters
// (core/types.ts RenderCounters), its report block (report/render-types.ts), the zeroes of a
// viewer that showed nothing and the pooled block's sums (report/render.ts) are derived from this
// list; a unit test (test/unit/figure-lists.test.ts) checks the pooled block and the Markdown
// against it.

/** One count: its key, what it counts, how it pools, and its pooled key where it is renamed there. */
export interface RenderCountSpec {
  readonly key: string;
  readonly help: string;
  /** over the joined viewers: summed, or the largest */
  readonly pool: "sum" | "max";
  /** the pooled block's key, in seconds, where the per-viewer one is in ms */
  readonly pooledSeconds?: string;
}

/** In the viewer block's key order. */
export const RENDER_COUNTS = [
  { key: "framesShown", pool: "sum", help: "frames passed to the sink (decodable, in order, not late)" },
  {
    key: "framesNotDecodable",
    pool: "sum",
    help: "complete frames never shown because a frame they depend on was not decoded",
  },
  { key: "framesLate", pool: "sum", help: "frames that completed after a later frame had been shown" },
  { key: "freezes", pool: "sum", help: "freezes counted as libwebrtc counts them" },
  {
    key: "frozenMs",
    pool: "sum",
    pooledSeconds: "frozenSeconds",
    help: "the sum of the freeze intervals, ms",
  },
  { key: "longestFreezeMs", pool: "max", help: "the longest freeze interval, ms (0 when freezes is 0)" },
  { key: "pauses", pool: "sum", help: "pauses (no RTP packet for 5 s)" },
  { key: "pausedMs", pool: "sum", pooledSeconds: "pausedSeconds", help: "the pauses' intervals, ms" },
  {
    key: "measuredMs",
    pool: "sum",
    pooledSeconds: "measuredSeconds",
    help: "first shown frame → the viewer's end, ms: the time the rules judged (0 when nothing was shown)",
  },
  {
    key: "recoveries",
    pool: "sum",
    help: "broken chains that ended with a shown frame (their durations in recoveryHist)",
  },
  { key: "plisSent", pool: "sum", help: "keyframe requests (PLI) this viewer sent, at join and after" },
  {
    key: "plisAnswered",
    pool: "sum",
    help: "PLIs answered by a shown keyframe (their durations in pliKeyframeHist)",
  },
] as const satisfies readonly RenderCountSpec[];

type Spec = (typeof RENDER_COUNTS)[number];
export type RenderCount = Spec["key"];
export type RenderCounts = Record<RenderCount, number>;
/** A count's key in the pooled block: its seconds key where it has one. */
type PooledKey<S extends Spec> = S extends { pooledSeconds: infer P extends string } ? P : S["key"];
/** The pooled block's counts, each under its pooled key. */
export type PooledRenderCounts = { [S in Spec as PooledKey<S>]: number };
export const RENDER_COUNT_KEYS: readonly RenderCount[] = RENDER_COUNTS.map((s) => s.key);

/** The counts pooled over `blocks` as the list says (each summed, or the largest). */
export function poolRenderCounts(blocks: readonly Readonly<RenderCounts>[]): RenderCounts {
  const out = {} as RenderCounts;
  for (const s of RENDER_COUNTS) {
    let v = 0;
    for (const b of blocks) v = s.pool === "max" ? Math.max(v, b[s.key]) : v + b[s.key];
    out[s.key] = v;
  }
  return out;
}
