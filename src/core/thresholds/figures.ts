// The report figures a threshold (or `compare --fail-on`, or a matrix cell) may name, each with
// its unit, how it is read from a report, and whether a running run can see it live. Names, units
// and lines come from the figure registry (core/figures/registry.ts); the readers are here.

import { FIGURE_REGISTRY, type FigureDecl, statsOf, thresholdNames, valueAt } from "../figures/registry.ts";
import { NO_JITTER_REASON, NO_PACKET_EXPECTED_REASON } from "../report/reasons.ts";
import type { DelaySource, Report } from "../report/types.ts";
import { type FigureUnit, type FigureValue, STATS, type Stat } from "../scenario/threshold-types.ts";
import type { Summary } from "../types.ts";
import { layerFigures } from "./layer-figures.ts";
import { renderFigures } from "./render-figures.ts";

export type { Stat };

/** What a live evaluation can read once a second (abortOnFail thresholds only). */
export type LiveSource =
  | { kind: "samples"; stream: "fingerprint" | "stamp" | "transit"; stat: Stat }
  | { kind: "failed" }
  | { kind: "failedPercent" };

export interface Figure {
  unit: FigureUnit;
  /** one line for the docs and error messages */
  about: string;
  read: (r: Report) => FigureValue;
  live?: LiveSource;
}

const value = (v: number): FigureValue => ({ value: v });
const unavailable = (why: string): FigureValue => ({ unavailable: why });

function ofSummary(s: Summary, stat: Stat, what: string): FigureValue {
  return s.n === 0 ? unavailable(`no ${what}`) : value(s[stat]);
}

function delayBlock(r: Report, source: DelaySource, stat: Stat): FigureValue {
  const b = r.aggregate.oneWayDelay.find((x) => x.source === source);
  if (b === undefined) return unavailable(`the report has no ${source} one-way delay block`);
  if (!b.available) return unavailable(b.reason ?? `the ${source} one-way delay is unavailable`);
  if (b.ms === undefined || b.ms.n === 0) return unavailable(`no ${source} one-way delay sample`);
  return value(b.ms[stat]);
}

function transit(r: Report, stat: Stat): FigureValue {
  const t = r.aggregate.packetTransit;
  if (!t.available) return unavailable(t.reason ?? "packet transit is unavailable");
  if (t.ms === undefined || t.ms.n === 0) return unavailable("no packet transit sample");
  return value(t.ms[stat]);
}

const NO_RECEIVE_LAG = "the report carries no receive lag (no viewer thread stamped a datagram)";

/** `client.receiveLagMs` ({p50, p99, max} in ms), absent when no viewer thread stamped a datagram. */
export function receiveLag(r: Report, stat: "p50" | "p99" | "max"): FigureValue {
  const lag = r.client.receiveLagMs;
  return lag === undefined ? unavailable(NO_RECEIVE_LAG) : value(lag[stat]);
}

type Reader = (r: Report, stat: Stat) => FigureValue;

/**
 * The readers of the registry's figures (core/figures/registry.ts) that are not read from their
 * report key alone, by name (`.<stat>` after a name that takes stats); the render and layer
 * figures are read by their own files.
 */
const READERS: Readonly<Record<string, Reader>> = {
  "oneWayDelay.<stat>": (r, stat) => delayBlock(r, "fingerprint", stat),
  "oneWayDelay.fingerprint.<stat>": (r, stat) => delayBlock(r, "fingerprint", stat),
  "oneWayDelay.stamp.<stat>": (r, stat) => delayBlock(r, "stamp", stat),
  "packetTransit.<stat>": transit,
  "keyframeInterval.<stat>": (r, stat) =>
    ofSummary(r.aggregate.keyframeIntervalMeanS, stat, "viewer with two keyframes"),
  "receiveLag.<stat>": (r, stat) => receiveLag(r, stat as "p50" | "p99" | "max"),
  // over the joined viewers that received two packets (a viewer's jitter is null before that)
  "jitter.<stat>": (r, stat) => {
    const s = r.aggregate.jitterMs;
    return s.n === 0 ? unavailable(NO_JITTER_REASON) : value(s[stat]);
  },
  // null in our reports where nothing was expected; 0 with no packet in an older or the Go tool's
  loss: (r) => {
    const a = r.aggregate;
    return a.lossPercentTotal === null || a.packetsReceived + a.packetsLost === 0
      ? unavailable(a.lossPercentTotalReason ?? NO_PACKET_EXPECTED_REASON)
      : value(a.lossPercentTotal);
  },
};

/**
 * The reader a declaration implies by itself: a summary over the joined viewers, or a number
 * at its report key; undefined when its figure needs one of READERS.
 */
function derivedReader(d: FigureDecl): Reader | undefined {
  if (d.report.includes("[]")) return undefined;
  if (d.stats === "summary" && d.pool === "perViewer")
    return (r, stat) => ofSummary(valueAt(r, d.report) as Summary, stat, "joined viewer");
  if (d.stats !== undefined) return undefined;
  return (r) => {
    const v = valueAt(r, d.report);
    return typeof v === "number" ? value(v) : unavailable(`the report has no ${d.report}`);
  };
}

const SOURCES = { oneWayDelay: "fingerprint", "oneWayDelay.fingerprint": "fingerprint" } as const;

/** What a running run can read of a figure once a second (abortOnFail thresholds), by name. */
function liveOf(name: string, stat: Stat): LiveSource | undefined {
  if (name === "failedViewers") return { kind: "failed" };
  if (name === "failedViewers.percent") return { kind: "failedPercent" };
  if (name === "oneWayDelay.stamp") return { kind: "samples", stream: "stamp", stat };
  if (name === "packetTransit") return { kind: "samples", stream: "transit", stat };
  const source = SOURCES[name as keyof typeof SOURCES];
  return source === undefined ? undefined : { kind: "samples", stream: source, stat };
}

/** The registry's figures read here, each name once: the summaries stat by stat, then the rest. */
function table(): Map<string, Figure> {
  const m = new Map<string, Figure>();
  const own = [...renderFigures(), ...layerFigures()];
  const ownNames = new Set(own.map(([name]) => name));
  const add = (d: FigureDecl, stat: Stat): void => {
    const pattern = d.stats === undefined ? d.name : `${d.name}.<stat>`;
    const read = READERS[pattern] ?? derivedReader(d);
    if (read === undefined || d.threshold === false || thresholdNames(d).some((n) => ownNames.has(n))) return;
    const name = d.stats === undefined ? d.name : `${d.name}.${stat}`;
    const live = liveOf(d.name, stat);
    const about = (d.about ?? name).replace("<stat>", stat);
    m.set(name, { unit: d.unit, about, read: (r) => read(r, stat), ...(live !== undefined ? { live } : {}) });
  };
  const summaries = FIGURE_REGISTRY.filter((d) => d.stats === "summary");
  for (const stat of STATS) for (const d of summaries) add(d, stat);
  for (const d of FIGURE_REGISTRY.filter((x) => x.stats === "p50p99max"))
    for (const s of statsOf(d)) add(d, s as Stat);
  for (const d of FIGURE_REGISTRY.filter((x) => x.stats === undefined)) add(d, "p50");
  for (const [name, f] of own) m.set(name, f);
  return m;
}

export const FIGURES: ReadonlyMap<string, Figure> = table();

/** The figure's value in a report; an unknown name is unavailable (callers validate names first). */
export function readFigure(r: Report, name: string): FigureValue {
  const f = FIGURES.get(name);
  return f === undefined ? unavailable(`unknown figure ${name}`) : f.read(r);
}
