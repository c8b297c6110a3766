// Cell and line formatters of the Markdown report (docs/definitions.md#markdown-report), Go fmt
// verbs through go-compat/fmt.ts.

import { rowsOf, type SummaryTable, valueAt } from "../figures/registry.ts";
import { fmtFixed, fmtG } from "../go-compat/fmt.ts";
import type { Summary } from "../types.ts";
import type {
  CeilingReport,
  ClientResources,
  ClockBlock,
  EventLoopDelayMs,
  HostReport,
  Report,
  ReportClient,
  ReportScenario,
  ReportServer,
  UdpDropsReport,
  WorkerReport,
} from "./types.ts";

export const DASH = "—";

/** Free text in a table cell or line: `|` → `\|`, newlines → space. */
export function esc(text: string): string {
  return text.replace(/\r\n|\r|\n/g, " ").replace(/\|/g, "\\|");
}

/** Unix ns of an RFC 3339 UTC timestamp as written by rfc3339Nano (`…T…[.frac]Z`). */
export function parseRfc3339Ns(text: string): bigint {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?Z$/.exec(text);
  // internal: invariant, reports rendered here carry rfc3339Nano timestamps of their own run
  if (m === null) throw new Error(`report: timestamp ${JSON.stringify(text)} is not RFC 3339 UTC`);
  const [, y, mo, d, h, mi, s, frac] = m;
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  return BigInt(ms) * 1_000_000n + BigInt((frac ?? "").padEnd(9, "0") || "0");
}

export type SummaryUnit = "ms" | "%" | "s";

function summaryCell(v: number, unit: SummaryUnit): string {
  switch (unit) {
    case "ms":
      return `${fmtFixed(v, 1)} ms`;
    case "%":
      return `${fmtFixed(v, 2)}%`;
    case "s":
      return `${fmtFixed(v, 2)} s`;
  }
}

/** One aggregate row; n = 0 (or no summary) prints em dashes in the five value cells. */
export function summaryRow(name: string, s: Summary | undefined, unit: SummaryUnit): string {
  if (s === undefined || s.n === 0)
    return `| ${name} | 0 | ${DASH} | ${DASH} | ${DASH} | ${DASH} | ${DASH} |`;
  const cells = [s.p50, s.p95, s.p99, s.min, s.max].map((v) => summaryCell(v, unit));
  return `| ${name} | ${s.n} | ${cells.join(" | ")} |`;
}

/**
 * A summary table's rows generated from the figure registry's declarations (their `row`): each
 * labelled with its Markdown label, read at its report key, in its declared unit.
 */
export function summaryRows(r: Report, table: SummaryTable): string[] {
  return rowsOf(table).map((d) => {
    const label = typeof d.markdown === "string" ? d.markdown : d.name;
    return summaryRow(label, valueAt(r, d.report) as Summary | undefined, d.unit as SummaryUnit);
  });
}

/**
 * The Aggregate's sentence of packet counts, generated from the declarations with an
 * aggregate.packets row: each count its number and label, a ratio its % (3 decimals) and label in
 * brackets after the count before it, or, where it is null, the label unavailable and why.
 */
export function packetsSentence(r: Report): string {
  const items: string[] = [];
  for (const d of rowsOf("aggregate.packets")) {
    const label = typeof d.markdown === "string" ? d.markdown : d.name;
    const v = valueAt(r, d.report) as number | null;
    const why = valueAt(r, `${d.report}Reason`);
    const ratio = (n: number | null) =>
      n === null ? `${d.name} unavailable, because ${String(why)}` : `${fmtFixed(n, 3)}${label}`;
    if (d.pool === "ofSums") items.push(`${items.pop() ?? ""} (${ratio(v)})`);
    else items.push(`${v} ${label}`);
  }
  return `Packets: ${items.join(", ")}.`;
}

/** `marker 4, timestamp 1`: entries sorted by key. */
export function frameEndsText(byFrameEnd: Record<string, number>): string {
  return Object.keys(byFrameEnd)
    .sort()
    .map((k) => `${k} ${byFrameEnd[k] ?? 0}`)
    .join(", ");
}

/** The header's scenario row. */
export function scenarioText(s: ReportScenario): string {
  const parts = [`${s.viewers} viewers`, `ramp ${fmtG(s.rampSeconds)}s`];
  if (s.rampOffsetSeed !== undefined) {
    parts.push(
      `ramp offset seed ${s.rampOffsetSeed.toString()}`,
      `up to ${fmtG(s.rampOffsetMaxSeconds ?? 0)}s`,
    );
  }
  parts.push(
    `hold ${fmtG(s.holdSeconds)}s`,
    `warmup ${fmtG(s.warmupSeconds ?? 0)}s`,
    `join timeout ${fmtG(s.joinTimeoutSeconds ?? 0)}s`,
  );
  if (s.excludeFirstSeconds !== undefined) parts.push(`exclude first ${fmtG(s.excludeFirstSeconds)}s`);
  const churn = s.churn;
  if (churn !== undefined) {
    parts.push(
      `churn: mean lifetime ${fmtG(churn.meanLifetimeSeconds ?? 0)}s, shortest ${fmtG(churn.minLifetimeSeconds ?? 0)}s, seed ${churn.seed ?? 0}`,
    );
  }
  // a view whose viewers negotiated no track has no codec (docs/definitions.md#view)
  parts.push(s.codec === undefined || s.codec === "" ? "codec none negotiated" : `codec ${s.codec}`);
  return esc(parts.join(", "));
}

/** The header's clock row. */
export function clockText(c: ClockBlock): string {
  const reason = c.reason ?? "";
  if (c.method === "none" || c.method === "") {
    return esc(`none ${DASH} publisher clock not measured${reason === "" ? "" : `: ${reason}`}`);
  }
  let out: string = c.method;
  if (c.offsetMs !== undefined && c.uncertaintyMs !== undefined) {
    out += `, offset ${fmtG(c.offsetMs)} ms ± ${fmtG(c.uncertaintyMs)} ms`;
  }
  if (c.method === "exchange") {
    const n = c.points?.length ?? 0;
    out += n === 1 ? ", 1 point" : `, ${n} points`;
  }
  out += c.stepDetected ? ", wall-clock step detected" : ", no step";
  return esc(out);
}

function mib(bytes: number): string {
  return `${fmtFixed(bytes / (1024 * 1024), 1)} MiB`;
}

/** The header's client resources row (Node figures). */
export function resourcesText(r: ClientResources): string {
  const parts: string[] = [];
  if (r.cpuSeconds !== undefined) {
    parts.push(`${fmtFixed(r.cpuSeconds, 1)} CPU s`);
    if (r.cpuUtilisationPercent !== undefined)
      parts.push(`${fmtFixed(r.cpuUtilisationPercent, 0)}% of all cores`);
  } else {
    parts.push(`CPU ${r.cpuReason ?? "not measured"}`);
  }
  parts.push(`peak heap ${mib(r.peakHeapBytes)}`, `peak RSS ${mib(r.peakRssBytes)}`);
  const m = r.mainThread;
  if (m !== undefined) {
    parts.push(
      `main thread ${fmtFixed(m.cpuSeconds, 1)} CPU s, event-loop delay p99 ${fmtFixed(m.eventLoopDelayMs.p99, 1)} ms`,
    );
  }
  parts.push(
    r.workers === 0
      ? "viewers in the main thread"
      : `${r.workers} worker thread${r.workers === 1 ? "" : "s"}`,
  );
  if (r.udpReceiveErrors !== undefined) {
    parts.push(
      `kernel UDP receive errors ${r.udpReceiveErrors.rcvbufErrors + r.udpReceiveErrors.inErrors === 0 ? "none" : `RcvbufErrors +${r.udpReceiveErrors.rcvbufErrors}, InErrors +${r.udpReceiveErrors.inErrors}`}`,
    );
  }
  return esc(`${parts.join(", ")} (the whole process, not the server)`);
}

/** The header's client threads row: one part per shard. */
/** A many-host run's agents, one clause each (docs/definitions.md#many-hosts). */
export function hostsText(hs: readonly HostReport[]): string {
  return esc(
    hs
      .map((h) => {
        const head = `${h.name}: ${h.viewers} viewers, ${h.workers} worker thread${h.workers === 1 ? "" : "s"}`;
        if (h.lost !== undefined) return `${head}, lost (${h.lost})`;
        const cpu = h.cpuSeconds === undefined ? "" : `, ${fmtFixed(h.cpuSeconds, 1)} s CPU`;
        const c = h.clock;
        const clock =
          c.offsetMs !== undefined && c.uncertaintyMs !== undefined
            ? `, clock ${fmtFixed(c.offsetMs, 3)} ms ± ${fmtFixed(c.uncertaintyMs, 3)} ms`
            : `, clock not measured${c.reason ? ` (${c.reason})` : ""}`;
        const near = h.ceiling?.nearCeiling
          ? `, near its ceiling (${(h.ceiling.evidence ?? []).join("; ")})`
          : "";
        return `${head}${cpu}${clock}${near}`;
      })
      .join("; "),
  );
}

export function workersText(ws: readonly WorkerReport[]): string {
  return esc(
    ws
      .map((w) => {
        const name = w.thread === "main" ? `shard ${w.shard} (main thread)` : `worker ${w.shard}`;
        const per = w.usPerPacket === undefined ? "" : `, ${fmtFixed(w.usPerPacket, 1)} µs CPU/packet`;
        const lag =
          w.receiveLagMs === undefined ? "" : `, receive lag p99 ${fmtFixed(w.receiveLagMs.p99, 2)} ms`;
        const dropped =
          w.intakeDropped === undefined ? "" : `, ${w.intakeDropped} datagrams dropped by its full queue`;
        const stamp =
          (w.receivePath === undefined ? "" : `, path: ${w.receivePath}`) +
          (w.viewerSockets === undefined ? "" : `, sockets: ${w.viewerSockets}`) +
          (w.stampSource === undefined ? "" : `, stamps: ${w.stampSource}`);
        return `${name}: ${w.viewers} viewers, ${w.packets} packets${per}, event-loop utilisation ${fmtFixed(w.eventLoopUtilisation, 2)}, delay p99 ${fmtFixed(w.eventLoopDelayMs.p99, 1)} ms${lag}${dropped}${stamp}`;
      })
      .join("; "),
  );
}

/**
 * The header's "client adds" row: what the client itself may have added to the delay figures
 * (receive lag of the viewer threads, pooled; the publisher's send lag), or null when neither was measured.
 */
export function clientLagText(c: ReportClient): string | null {
  const three = (d: EventLoopDelayMs) =>
    `${fmtFixed(d.p50, 2)} / ${fmtFixed(d.p99, 2)} / ${fmtFixed(d.max, 2)} ms`;
  const parts: string[] = [];
  if (c.stampSource !== undefined) {
    const why = c.stampReasons === undefined ? "" : ` (${c.stampReasons.join("; ")})`;
    parts.push(`arrival stamps: ${c.stampSource}${why}`);
  }
  if (c.receiveLagMs !== undefined) {
    const inside = c.stampSource === "kernel" ? "outside the delay figures" : "viewer threads";
    parts.push(`receive lag p50 / p99 / max ${three(c.receiveLagMs)} (${inside})`);
  }
  if (c.sendStampSource !== undefined) {
    const why = c.sendStamps?.reasons === undefined ? "" : ` (${c.sendStamps.reasons.join("; ")})`;
    parts.push(`send stamps: ${c.sendStampSource}${why}`);
  }
  if (c.publisherSendLagMs !== undefined) {
    parts.push(
      `publisher send lag p50 / p99 / max ${three(c.publisherSendLagMs)} (outside the delay figures)`,
    );
  }
  return parts.length === 0 ? null : esc(parts.join("; "));
}

/** The header's UDP receive drops row: whose sockets (docs/definitions.md#udp-drops). */
export function udpDropsText(u: UdpDropsReport): string {
  const parts = [
    u.own !== undefined
      ? `the client's own sockets ${u.own}`
      : `the client's own sockets not read (${u.ownReason ?? "no reason given"})`,
  ];
  if (u.relay !== undefined) parts.push(`the built-in relay's sockets ${u.relay} (the server's)`);
  else if (u.relayReason !== undefined)
    parts.push(`the built-in relay's sockets not read (${u.relayReason})`);
  if (u.host !== undefined) {
    parts.push(
      `the host's RcvbufErrors +${u.host.rcvbufErrors}, InErrors +${u.host.inErrors} (every socket on the host)`,
    );
  }
  return esc(parts.join("; "));
}

/** The header's client ceiling row. */
export function ceilingText(c: CeilingReport): string {
  const lag =
    c.thresholds.receiveLagP99Ms === undefined
      ? ""
      : `, receive lag p99 ${fmtFixed(c.thresholds.receiveLagP99Ms, 2)} ms`;
  const keep =
    c.thresholds.keepUpWaitP50Ms === undefined
      ? ""
      : `, keep-up wait p50 ${fmtFixed(c.thresholds.keepUpWaitP50Ms, 0)} ms`;
  const t = `thresholds: event-loop utilisation ${fmtFixed(c.thresholds.eventLoopUtilisation, 2)}, delay p99 ${fmtFixed(c.thresholds.eventLoopDelayP99Ms, 1)} ms${lag}${keep}, any kernel or intake drop`;
  return esc(c.nearCeiling ? `**near** — ${(c.evidence ?? []).join("; ")} (${t})` : `not near (${t})`);
}

/** `%.0f ms`, or an em dash when the value is absent. */
export function msOrDash(v: number | undefined): string {
  return v === undefined ? DASH : `${fmtFixed(v, 0)} ms`;
}

/** `%.1f ms`, or `n/a`. */
export function ms1OrNa(v: number | undefined): string {
  return v === undefined ? "n/a" : `${fmtFixed(v, 1)} ms`;
}

/** The header rows of a managed-service run (docs/load-testing-etiquette.md): label and text, those set. */
export function managedServiceRows(s: ReportServer): [string, string][] {
  const rows: [string, string][] = [];
  if (s.serverVersion !== undefined) rows.push(["server version", s.serverVersion]);
  if (s.plan !== undefined) rows.push(["plan", s.plan]);
  if (s.region !== undefined) rows.push(["region", s.region]);
  if (s.permission !== undefined) rows.push(["permission", s.permission]);
  return rows;
}
