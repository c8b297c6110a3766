// The report's types derived from the declarations of delivery.ts (docs/architecture.md#adding-a-figure):
// the aggregate's keys pooled from each joined viewer's report object (a declaration's `viewer`
// source), by how they pool, and the viewer's own counts a sum reads.
import type { DELIVERY_FIGURES } from "./delivery.ts";
import { pooledFromViewers } from "./registry.ts";

type Decl = (typeof DELIVERY_FIGURES)[number];

/** The aggregate key of the declarations D with a `viewer` source. */
type AggregateKey<D> = D extends { report: `aggregate.${infer K}`; viewer: object } ? K : never;

/** The aggregate's summaries over the viewers (pool perViewer). */
export type ViewerSummaryKey = AggregateKey<Extract<Decl, { pool: "perViewer" }>>;

/** The aggregate's sums of each viewer's count (pool sum). */
export type ViewerSumKey = AggregateKey<Extract<Decl, { pool: "sum" }>>;

/** The aggregate's ratios of two sums (pool ofSums). */
export type ViewerRatioKey = AggregateKey<Extract<Decl, { pool: "ofSums" }>>;

/**
 * The counts a sum reads at the top of each viewer's report object (a key path with no dot): the
 * viewer report's type (core/report/types.ts ViewerReport) carries each, so its builder must set it.
 */
export type ViewerCountKey = Extract<
  Decl,
  { pool: "sum"; viewer: { key: string } }
>["viewer"]["key"] extends infer K
  ? K extends `${string}.${string}`
    ? never
    : K
  : never;

/** The viewer's counts the aggregate sums (ViewerCountKey), in the report's key order. */
export const VIEWER_COUNT_KEYS = pooledFromViewers().flatMap((p) =>
  p.pool === "sum" && !p.path.includes(".") ? [p.path as ViewerCountKey] : [],
);

/** Each count at zero: what a viewer starts from (core/viewer-record.ts, workers/viewer/viewer.ts). */
export function zeroCounts(): Record<ViewerCountKey, number> {
  return Object.fromEntries(VIEWER_COUNT_KEYS.map((k) => [k, 0])) as Record<ViewerCountKey, number>;
}

/** A viewer's counts copied from what carries them (its record, its state), in the key order. */
export function countsOf(from: Readonly<Record<ViewerCountKey, number>>): Record<ViewerCountKey, number> {
  return Object.fromEntries(VIEWER_COUNT_KEYS.map((k) => [k, from[k]])) as Record<ViewerCountKey, number>;
}

/**
 * The figures pooled over the joined viewers, one per registry declaration with a viewer source:
 * summaries (of type S: core/types.ts Summary, which imports this file), sums and ratios of sums;
 * a ratio is null, with its reason, where nothing was expected.
 */
export type ViewerPooled<S> = { [K in ViewerSummaryKey]: S } & { [K in ViewerSumKey]: number } & {
  [K in ViewerRatioKey]: number | null;
} & { [K in `${ViewerRatioKey}Reason`]?: string };
