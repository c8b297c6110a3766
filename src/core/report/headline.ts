// Console summary (docs/definitions.md#console-output step 4) and the report file stem
// (docs/definitions.md#report-files).

import { fileStamp, fmtFixed } from "../go-compat/fmt.ts";
import { lossSentence } from "./reasons.ts";
import type { Report } from "./types.ts";

/**
 * What the viewers would have seen, one line (docs/definitions.md#console-output): the frozen
 * share p50/p95, freezes and their rate, frozen seconds, the longest freeze and the worst end gap.
 */
export function renderLine(a: Report["aggregate"]): string {
  const b = a.render;
  if (b === undefined) return "frozen share unavailable: the report has no render block";
  if (!b.available) return `frozen share unavailable: ${b.reason ?? ""}`;
  const s = b.frozenPercent;
  const rate =
    b.freezesPerViewerMinute === undefined
      ? ""
      : `, ${fmtFixed(b.freezesPerViewerMinute, 2)} per viewer-minute`;
  return `frozen share p50 ${fmtFixed(s.p50, 2)}%, p95 ${fmtFixed(s.p95, 2)}%; ${b.freezes} freezes${rate}, ${fmtFixed(b.frozenSeconds, 1)} s frozen, longest ${fmtFixed(b.longestFreezeMs, 0)} ms; end gap max ${fmtFixed(b.endGapMs.max, 0)} ms`;
}

/** The verdict line, then, only for a valid aggregate, the three headline lines. */
export function stdoutLines(r: Report): string[] {
  const a = r.aggregate;
  const lines = [a.verdict];
  if (!a.valid) return lines;
  const fp = a.oneWayDelay.find((b) => b.source === "fingerprint");
  if (fp?.available === true && fp.ms !== undefined) {
    lines.push(
      `one-way delay (fingerprint) p50 ${fmtFixed(fp.ms.p50, 1)} ms, p99 ${fmtFixed(fp.ms.p99, 1)} ms`,
    );
  } else {
    lines.push(`one-way delay unavailable: ${fp?.reason ?? ""}`);
  }
  const join = a.joinFirstKeyframeMs;
  const t = a.packetTransit;
  const transit =
    t.available && t.ms !== undefined
      ? `packet transit p50 ${fmtFixed(t.ms.p50, 1)} ms, p99 ${fmtFixed(t.ms.p99, 1)} ms`
      : `packet transit unavailable: ${t.reason ?? ""}`;
  lines.push(
    `join (first keyframe) p50 ${fmtFixed(join.p50, 0)} ms, p95 ${fmtFixed(join.p95, 0)} ms; loss ${lossSentence(a.lossPercentTotal, 3, a.lossPercentTotalReason)}; ${transit}`,
    renderLine(a),
  );
  return lines;
}

/** Characters kept in a file name; every run of others becomes one "-". */
export function sanitiseName(name: string): string {
  return name.replace(/[^a-zA-Z0-9._-]+/g, "-").replace(/^-+|-+$/g, "");
}

/** `whipbench-YYYYMMDDTHHMMSSZ[-name]` (docs/definitions.md#report-files). */
export function reportStem(startedAtUnixNs: bigint, scenarioName: string): string {
  const name = sanitiseName(scenarioName);
  return `whipbench-${fileStamp(startedAtUnixNs)}${name === "" ? "" : `-${name}`}`;
}
