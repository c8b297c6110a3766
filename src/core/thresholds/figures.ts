// The report figures a threshold (or `compare --fail-on`, or a matrix cell) may name, each with
// its unit, how it is read from a report, and whether a running run can see it live.

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

function table(): Map<string, Figure> {
  const m = new Map<string, Figure>();
  for (const stat of STATS) {
    m.set(`oneWayDelay.${stat}`, {
      unit: "ms",
      about: `one-way delay ${stat}, headline (fingerprint) source`,
      read: (r) => delayBlock(r, "fingerprint", stat),
      live: { kind: "samples", stream: "fingerprint", stat },
    });
    for (const source of ["fingerprint", "stamp"] as const) {
      m.set(`oneWayDelay.${source}.${stat}`, {
        unit: "ms",
        about: `one-way delay ${stat}, ${source} source`,
        read: (r) => delayBlock(r, source, stat),
        live: { kind: "samples", stream: source, stat },
      });
    }
    m.set(`packetTransit.${stat}`, {
      unit: "ms",
      about: `packet transit ${stat}`,
      read: (r) => transit(r, stat),
      live: { kind: "samples", stream: "transit", stat },
    });
    m.set(`join.${stat}`, {
      unit: "ms",
      about: `join (POST to first keyframe) ${stat} over joined viewers`,
      read: (r) => ofSummary(r.aggregate.joinFirstKeyframeMs, stat, "joined viewer"),
    });
    m.set(`join.firstRtp.${stat}`, {
      unit: "ms",
      about: `POST to first RTP packet ${stat}`,
      read: (r) => ofSummary(r.aggregate.joinFirstRtpMs, stat, "joined viewer"),
    });
    m.set(`signalling.${stat}`, {
      unit: "ms",
      about: `WHEP signalling ${stat}`,
      read: (r) => ofSummary(r.aggregate.signallingMs, stat, "joined viewer"),
    });
    m.set(`jitter.${stat}`, {
      unit: "ms",
      about: `RTP interarrival jitter ${stat} over viewers`,
      read: (r) => ofSummary(r.aggregate.jitterMs, stat, "joined viewer"),
    });
    m.set(`loss.${stat}`, {
      unit: "%",
      about: `per-viewer packet loss ${stat}`,
      read: (r) => ofSummary(r.aggregate.lossPercent, stat, "joined viewer"),
    });
    m.set(`keyframeInterval.${stat}`, {
      unit: "s",
      about: `mean keyframe interval ${stat} over viewers`,
      read: (r) => ofSummary(r.aggregate.keyframeIntervalMeanS, stat, "viewer with two keyframes"),
    });
  }
  for (const stat of ["p50", "p99", "max"] as const) {
    m.set(`receiveLag.${stat}`, {
      unit: "ms",
      about: `the client's own receive lag ${stat} (client.receiveLagMs)`,
      read: (r) => receiveLag(r, stat),
    });
  }
  m.set("loss", {
    unit: "%",
    about: "packets lost of packets expected, all joined viewers",
    read: (r) =>
      r.aggregate.packetsReceived + r.aggregate.packetsLost === 0
        ? unavailable("no packet was expected")
        : value(r.aggregate.lossPercentTotal),
  });
  m.set("nacks", { unit: "", about: "NACKs sent", read: (r) => value(r.aggregate.nacksSent) });
  m.set("stalls", { unit: "", about: "stalls", read: (r) => value(r.aggregate.stalls) });
  m.set("failedViewers", {
    unit: "",
    about: "viewers that failed to join",
    read: (r) => value(r.aggregate.failed),
    live: { kind: "failed" },
  });
  m.set("failedViewers.percent", {
    unit: "%",
    about: "viewers that failed to join, % of those asked for",
    read: (r) => value(r.aggregate.failedPercent),
    live: { kind: "failedPercent" },
  });
  for (const [name, f] of renderFigures()) m.set(name, f);
  for (const [name, f] of layerFigures()) m.set(name, f);
  m.set("droppedAfterJoin", {
    unit: "",
    about: "viewers dropped after joining",
    read: (r) => value(r.aggregate.droppedAfterJoin),
  });
  return m;
}

export const FIGURES: ReadonlyMap<string, Figure> = table();

/** The figure's value in a report; an unknown name is unavailable (callers validate names first). */
export function readFigure(r: Report, name: string): FigureValue {
  const f = FIGURES.get(name);
  return f === undefined ? unavailable(`unknown figure ${name}`) : f.read(r);
}
