// The words of the live progress display: the line that says how the viewers start, then one
// status line for a terminal, one log line for a pipe. Pure: the state in, the text out.
import { fmtFixed, fmtG } from "../../core/go-compat/fmt.ts";
import type { Scenario } from "../../core/scenario/types.ts";

export interface ProgressState {
  /** seconds since the viewers' t0 */
  elapsedS: number;
  /** ramp (+ offset bound) + hold, seconds */
  plannedS: number;
  viewersTarget: number;
  /**
   * with churn (docs/definitions.md#churn-schedule): viewersTarget counts places, each held by one
   * viewer after another, so the joined viewers may outnumber them
   */
  churn?: boolean;
  joined: number;
  active: number;
  failed: number;
  packetsPerS: number;
  /** live one-way delay over the last seconds, ms; null when no sample */
  delayP50Ms: number | null;
  delayP99Ms: number | null;
  /** process CPU over the last second, % of all cores */
  cpuPercent: number | null;
  /** worst p99 event-loop delay of the threads over the last second, ms */
  eventLoopDelayMs: number | null;
  /** worst p99 receive lag of the viewer threads over the last second, ms; null when none stamped */
  receiveLagMs: number | null;
  /** which clock stamped those datagrams (docs/definitions.md#arrival-stamps); null when none stamped */
  stampSource?: string | null;
  /** the client's own ceiling: the evidence, empty when not near */
  ceiling: readonly string[];
}

function ms(v: number | null): string {
  if (v === null) return "–";
  return v < 10 ? fmtFixed(v, 1) : fmtFixed(v, 0);
}

/** A receive lag: two decimals below 1 ms (it is weighed in tenths of a millisecond). */
function lagMs(v: number): string {
  return v < 1 ? fmtFixed(v, 2) : ms(v);
}

/** One terminal status line, cut to `columns` (no newline). */
export function statusLine(s: ProgressState, columns: number): string {
  const parts = [
    `${fmtFixed(s.elapsedS, 0)}/${fmtFixed(s.plannedS, 0)} s`,
    s.churn
      ? `${s.viewersTarget} places: viewers ${s.joined} joined, ${s.active} active, ${s.failed} failed`
      : `viewers ${s.joined}/${s.viewersTarget} joined, ${s.active} active, ${s.failed} failed`,
    `${fmtFixed(s.packetsPerS, 0)} pkt/s`,
    `delay p50 ${ms(s.delayP50Ms)} p99 ${ms(s.delayP99Ms)} ms`,
    `cpu ${s.cpuPercent === null ? "–" : fmtFixed(s.cpuPercent, 0)}%`,
    `loop p99 ${ms(s.eventLoopDelayMs)} ms`,
  ];
  if (s.receiveLagMs !== null) parts.push(`rx lag p99 ${lagMs(s.receiveLagMs)} ms${stampNote(s)}`);
  if (s.ceiling.length > 0) parts.push("WARNING near client ceiling");
  const line = parts.join(" · ");
  const width = Math.max(20, columns - 1);
  return line.length > width ? `${line.slice(0, width - 1)}…` : line;
}

/** " (kernel stamps)" and the like after the receive lag: whether it is inside the delay. */
function stampNote(s: ProgressState): string {
  return s.stampSource ? ` (${s.stampSource} stamps)` : "";
}

/** "3 of 4 viewers joined", or with churn "34 viewers joined in 20 places". */
function joinedText(s: ProgressState): string {
  return s.churn
    ? `${s.joined} viewers joined in ${s.viewersTarget} places`
    : `${s.joined} of ${s.viewersTarget} viewers joined`;
}

/** One log line for a non-terminal stderr. */
export function logLine(s: ProgressState): string {
  const delay =
    s.delayP50Ms === null
      ? "one-way delay: no sample yet"
      : `one-way delay p50 ${ms(s.delayP50Ms)} ms, p99 ${ms(s.delayP99Ms)} ms`;
  let line =
    `progress ${fmtFixed(s.elapsedS, 0)}/${fmtFixed(s.plannedS, 0)} s: ` +
    `${joinedText(s)}, ${s.active} active, ${s.failed} failed; ` +
    `${fmtFixed(s.packetsPerS, 0)} packets/s; ${delay}; ` +
    `client CPU ${s.cpuPercent === null ? "–" : fmtFixed(s.cpuPercent, 0)}%, ` +
    `worst event-loop delay p99 ${ms(s.eventLoopDelayMs)} ms`;
  if (s.receiveLagMs !== null) line += `, worst receive lag p99 ${lagMs(s.receiveLagMs)} ms${stampNote(s)}`;
  if (s.ceiling.length > 0) line += `; WARNING: near the client's own ceiling (${s.ceiling.join("; ")})`;
  return line;
}

/** The line that says how the viewers start: how many, over how long, offset how, held how long. */
export function startLine(s: Scenario): string {
  const g = fmtG;
  if (s.rampOffsetSeed !== undefined) {
    return `starting ${s.viewers} viewers over ${g(s.rampSeconds)}s, each offset by up to ${g(s.rampOffsetMaxSeconds ?? 0)}s (seed ${s.rampOffsetSeed}), holding ${g(s.holdSeconds)}s`;
  }
  return `starting ${s.viewers} viewers over ${g(s.rampSeconds)}s, holding ${g(s.holdSeconds)}s`;
}
