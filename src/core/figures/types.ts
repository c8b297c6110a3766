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
 * (aggregate.rtp), and the "What viewers saw" table (render).
 */
export type SummaryTable = "aggregate.join" | "aggregate.rtp" | "render";

/**
 * An HTML table with one figure per row generated from the declarations (core/report/html-render.ts
 * figureRows): the "What viewers saw" card's facts.
 */
export type HtmlTable = "render";

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
   * a perViewer summary's source (core/report/aggregate.ts perViewerSummaries): the key path of
   * each joined viewer's value in its report object; the viewers it keeps (by default those with
   * the value; `twoKeyframes`: those that received two keyframes or more); its place among the
   * aggregate's summaries, the report's key order
   */
  viewer?: { key: string; at: number; only?: "twoKeyframes" };
  /** its Markdown summary row, labelled `markdown`: the table and its place there (rows sorted by it) */
  row?: { table: SummaryTable; at: number };
  /** text the HTML report shows beside it */
  html: Shown;
  /**
   * its HTML row, labelled `html`: the table, its place among the table's rows (those written by
   * hand included) and the stats of its summary the row shows
   */
  htmlRow?: { table: HtmlTable; at: number; stats: readonly ("p50" | "p95" | "p99" | "min" | "max")[] };
  /** its paragraph in docs/definitions.md */
  anchor: string;
  /** the threshold catalogue's line; `<stat>` stands for the stat (figures derived from here) */
  about?: string;
}
