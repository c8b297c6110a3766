// `whipbench compare BASE NEW`: may the two reports be ranked (docs/definitions.md#ranking, with
// the reasons when not), the headline figures side by side with their differences, a bootstrap
// interval over viewers for the one-way delay percentiles, and the --fail-on gates.

import { UsageError } from "../errors.ts";
import { rankable } from "../report/comparability.ts";
import type { DelaySource, Report } from "../report/types.ts";
import type { FigureUnit, FigureValue, Operator } from "../scenario/threshold-types.ts";
import { holds } from "../thresholds/evaluate.ts";
import { FIGURES } from "../thresholds/figures.ts";
import { LAYER_RIDS } from "../thresholds/layer-figures.ts";
import { bootstrapDiff, type DiffInterval, perViewerDelayMs } from "./bootstrap.ts";

/** The figures of the side-by-side table, in order. */
export const COMPARE_FIGURES = [
  "oneWayDelay.p50",
  "oneWayDelay.p95",
  "oneWayDelay.p99",
  "oneWayDelay.max",
  "oneWayDelay.stamp.p50",
  "oneWayDelay.stamp.p95",
  "oneWayDelay.stamp.p99",
  "packetTransit.p50",
  "packetTransit.p99",
  "join.p50",
  "join.p95",
  "loss",
  "jitter.p50",
  "nacks",
  "stalls",
  "freezeShare.p50",
  "freezeShare.p95",
  "freezes.perViewerMinute",
  "failedViewers",
] as const;

/**
 * The simulcast rows (docs/definitions.md#layer-thresholds), after the others when either report
 * sent simulcast layers: each layer's one-way delay p50 and p95 (the layers of either), then the
 * switch time's p50 and p95 when either has aggregate.layerSwitches: a scenario-wide layerSwitch,
 * a cohort's layer/layerSwitch, or a relay that switched on its own all record switches.
 */
export function layerCompareFigures(base: Report, next: Report): string[] {
  const rids = new Set([...(base.scenario.simulcast ?? []), ...(next.scenario.simulcast ?? [])]);
  const delays = LAYER_RIDS.filter((rid) => rids.has(rid)).flatMap((rid) =>
    ["p50", "p95"].map((s) => `layerDelay.${rid}.${s}`),
  );
  const switches = base.aggregate.layerSwitches !== undefined || next.aggregate.layerSwitches !== undefined;
  return [...delays, ...(switches ? ["layerSwitch.p50", "layerSwitch.p95"] : [])];
}

export interface CompareRow {
  figure: string;
  unit: FigureUnit;
  base: FigureValue;
  next: FigureValue;
  /** NEW − BASE in the figure's unit, when both have a value */
  diff?: number;
  /** 100 × (NEW − BASE) / BASE, when BASE is not 0 */
  diffPercent?: number;
  /** one-way delay percentiles: the bootstrap interval of the difference of the per-viewer figure */
  interval?: DiffInterval;
}

/** A --fail-on gate: `figure op value` on NEW's value, its change, or its relative change. */
export interface FailOn {
  text: string;
  figure: string;
  op: Operator;
  /** "value": NEW's own figure; "change": NEW − BASE; "relative": the change in % of BASE */
  kind: "value" | "change" | "relative";
  value: number;
}

export interface GateResult {
  text: string;
  kind: FailOn["kind"];
  unit: FigureUnit;
  /** true when the condition holds, i.e. NEW is worse beyond the limit */
  tripped: boolean;
  observed?: number;
  unavailable?: string;
}

export interface Comparison {
  rankable: Record<DelaySource, { ok: true } | { ok: false; reason: string }>;
  rows: CompareRow[];
  gates: GateResult[];
}

const FAIL_ON_RE =
  /^\s*([A-Za-z][\w.]*)\s*(<=|>=|==|!=|<|>)\s*([+-]?)((?:\d+(?:\.\d*)?|\.\d+))\s*(ms|s|%|pp)?\s*$/;

/**
 * Parses a --fail-on such as "oneWayDelay.p95 > +10%" (relative change), "oneWayDelay.p95 > +5ms"
 * (change), "loss > +0.2pp" (change of a percentage, in points) or "oneWayDelay.p95 > 60ms"
 * (NEW's own value). Throws a UsageError (exit 2) naming the text.
 */
export function parseFailOn(text: string): FailOn {
  const m = FAIL_ON_RE.exec(text);
  const bad = (why: string): never => {
    throw new UsageError(`--fail-on ${JSON.stringify(text)}: ${why}`);
  };
  if (m === null) return bad('want "<figure> <op> [+|-]<number><unit>", e.g. "oneWayDelay.p95 > +10%"');
  const [, figure = "", op = "", sign = "", num = "", unitText = ""] = m;
  const f = FIGURES.get(figure);
  if (f === undefined) return bad(`unknown figure ${figure}`);
  const n = Number(num) * (sign === "-" ? -1 : 1);
  const signed = sign !== "";
  let kind: FailOn["kind"];
  let value = n;
  if (signed && unitText === "%") {
    kind = "relative";
  } else {
    kind = signed ? "change" : "value";
    if (f.unit === "ms" || f.unit === "s") {
      if (unitText !== "ms" && unitText !== "s")
        bad("a time figure needs ms or s (or % for a relative change)");
      const ms = unitText === "s" ? n * 1000 : n;
      value = f.unit === "s" ? ms / 1000 : ms;
    } else if (f.unit === "%") {
      const want = signed ? "pp" : "%";
      if (unitText !== want)
        bad(signed ? "a change of a percentage is in points (pp), or +N% relative" : "a percentage needs %");
    } else if (unitText !== "") {
      bad("a count takes no unit (or % for a relative change)");
    }
  }
  return { text: text.trim(), figure, op: op as Operator, kind, value };
}

function row(base: Report, next: Report, figure: string): CompareRow {
  const f = FIGURES.get(figure);
  const unit = f?.unit ?? "";
  const b: FigureValue = f ? f.read(base) : { unavailable: "unknown figure" };
  const n: FigureValue = f ? f.read(next) : { unavailable: "unknown figure" };
  const out: CompareRow = { figure, unit, base: b, next: n };
  if ("value" in b && "value" in n) {
    out.diff = n.value - b.value;
    if (b.value !== 0) out.diffPercent = (100 * (n.value - b.value)) / b.value;
  }
  const m = /^oneWayDelay\.(?:(fingerprint|stamp)\.)?(p50|p95|p99|max)$/.exec(figure);
  if (m !== null) {
    const source = (m[1] ?? "fingerprint") as DelaySource;
    const stat = m[2] as "p50" | "p95" | "p99" | "max";
    const interval = bootstrapDiff(
      perViewerDelayMs(base, source, stat),
      perViewerDelayMs(next, source, stat),
    );
    if (interval !== null) out.interval = interval;
  }
  return out;
}

function gate(base: Report, next: Report, g: FailOn): GateResult {
  const f = FIGURES.get(g.figure);
  const head = { text: g.text, kind: g.kind, unit: f?.unit ?? "" };
  const b = f ? f.read(base) : { unavailable: "unknown figure" };
  const n = f ? f.read(next) : { unavailable: "unknown figure" };
  if ("unavailable" in n) return { ...head, tripped: true, unavailable: `NEW: ${n.unavailable}` };
  let observed = n.value;
  if (g.kind !== "value") {
    if ("unavailable" in b) return { ...head, tripped: true, unavailable: `BASE: ${b.unavailable}` };
    observed = n.value - b.value;
    if (g.kind === "relative") {
      if (b.value === 0) {
        return { ...head, tripped: true, unavailable: "BASE is 0: no relative change" };
      }
      observed = (100 * observed) / b.value;
    }
  }
  return { ...head, tripped: holds(observed, g.op, g.value), observed };
}

export function compareReports(base: Report, next: Report, failOn: readonly FailOn[] = []): Comparison {
  return {
    rankable: {
      fingerprint: rankable(base, next, "fingerprint"),
      stamp: rankable(base, next, "stamp"),
    },
    rows: [...COMPARE_FIGURES, ...layerCompareFigures(base, next)].map((f) => row(base, next, f)),
    gates: failOn.map((g) => gate(base, next, g)),
  };
}
