// The types of the figure registry (registry.ts): what one declaration of a figure states.

/** A threshold figure's unit (core/scenario/threshold-types.ts FigureUnit). */
export type RegistryUnit = "ms" | "s" | "%" | "";

/** histogram: a distribution; counter: a count; level: a value at an instant; ratio: a share. */
export type FigureKind = "histogram" | "counter" | "level" | "ratio";

/**
 * How a figure pools over viewers, threads and agents: merge (histograms added exactly), sum, max,
 * perViewer (one exact value per viewer, summarised), ofSums (a ratio of two pooled sums).
 */
export type FigurePool = "merge" | "sum" | "max" | "perViewer" | "ofSums";

/**
 * A Markdown table of summary rows generated from the declarations (core/report/markdown-cells.ts
 * summaryRows): the Aggregate table's rows before packet transit (aggregate.join) and after it
 * (aggregate.rtp), the "What viewers saw" table (render), and the Aggregate's sentence of packet
 * counts (aggregate.packets: one item per row, not a table).
 */
export type SummaryTable = "aggregate.join" | "aggregate.rtp" | "render" | "aggregate.packets";

/** A pooled figure's source in each viewer's report object (FigureDecl's `viewer`). */
export type ViewerSource =
  | { key: string; at: number; only?: "twoKeyframes" }
  | { part: string; of: readonly string[]; at: number };

/**
 * An HTML card whose facts table (one figure per row) and big stats are generated from the
 * declarations (core/report/html-render.ts figureRows, bigStats): the "What viewers saw" card.
 */
export type HtmlTable = "render";

/** The stats of a summary an HTML row may show. */
export type HtmlStat = "p50" | "p95" | "p99" | "min" | "max";

/** A label the output shows, or why that output has none. */
export type Shown = string | { none: string };

export interface FigureDecl {
  /** the threshold, compare and matrix name (with `stats`, its base); a report key's name otherwise */
  name: string;
  /** the stats a threshold name takes after the base: the summary's, or the receive lag's three */
  stats?: "summary" | "p50p99max";
  /** one name per simulcast rid between the base and the stat (docs/definitions.md#layer-thresholds) */
  rids?: true;
  /** false: the report carries it, but no threshold may name it */
  threshold?: false;
  unit: RegistryUnit;
  kind: FigureKind;
  pool: FigurePool;
  /** its key path as test/e2e/report-keys.ts writes it (no `+`, no `?`) */
  report: string;
  /** its /metrics family, or why /metrics has none */
  metric: Shown;
  /** text the Markdown report shows beside it */
  markdown: Shown;
  /**
   * where the aggregate pools it from each joined viewer's report object (core/report/aggregate.ts
   * pooledOverViewers), by its pool: perViewer, an exact summary of the values at `key` over the
   * viewers kept (by default those with the value; `twoKeyframes`: those that received two keyframes
   * or more); sum, the sum of the counts at `key`; ofSums, the sum of the counter `part` as a % of
   * the sums of the counters `of` (their aggregate keys; null when those sum to 0). `at`: its place
   * among the aggregate's pooled keys, the report's key order
   */
  viewer?: ViewerSource;
  /**
   * its Markdown summary row, labelled `markdown`: the table and its place there (rows sorted by
   * it); in the Packets sentence, a count is its number and label, a ratio its % and label in
   * brackets after the count before it
   */
  row?: { table: SummaryTable; at: number };
  /** text the HTML report shows beside it */
  html: Shown;
  /**
   * its HTML row, labelled `html`: the table, its place among the table's rows (those written by
   * hand included) and the stats of its summary the row shows
   */
  htmlRow?: { table: HtmlTable; at: number; stats: readonly HtmlStat[] };
  /**
   * its big stats at the top of an HTML card (core/report/html-render.ts bigStats): the card, its
   * place among them, and for a summary the stats shown, one big stat each labelled `label` (or
   * `html`) and the stat
   */
  htmlBig?: { card: HtmlTable; at: number; stats?: readonly HtmlStat[]; label?: string };
  /**
   * its rows in the HTML cohort table (a cell per cohort), labelled `html`, or `label` where `html`
   * is worded for a card: its place among the table's rows (those written by hand included; equal
   * places keep their order) and, for a summary, the stats shown, a row each labelled with the stat
   */
  cohortRow?: { at: number; stats?: readonly HtmlStat[]; label?: string };
  /** its paragraph in docs/definitions.md */
  anchor: string;
  /** the threshold catalogue's line; `<stat>` stands for the stat (figures derived from here) */
  about?: string;
}
