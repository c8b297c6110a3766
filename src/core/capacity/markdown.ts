// The capacity report in Markdown (docs/definitions.md#capacity-report): the result, the search's
// cost, every step with its figures, its client ceiling and the server's resources, the method.

import { fmtFixed } from "../go-compat/fmt.ts";
import { DASH, esc } from "../report/markdown-cells.ts";
import type { CapacityReport, CapacityStep, Measured } from "./types.ts";

function num(v: number | undefined, digits: number): string {
  return v === undefined ? DASH : fmtFixed(v, digits);
}

function measured<T>(m: Measured<T> | undefined, show: (v: T) => string): string {
  if (m === undefined) return DASH;
  if (typeof m === "object" && m !== null && "unavailable" in m) return `unavailable: ${m.unavailable}`;
  return show(m as T);
}

export function serverCells(step: CapacityStep): [string, string] {
  const s = step.server;
  return [
    measured(s?.cpuCores, (v) => `${fmtFixed(v.mean, 2)} (max ${fmtFixed(v.max, 2)})`),
    measured(s?.rssMiB, (v) => fmtFixed(v.max, 0)),
  ];
}

function stepRow(step: CapacityStep): string {
  const f = step.figures;
  const failed = step.thresholds.filter((t) => !t.pass).map((t) => t.figure);
  const ceiling =
    step.ceiling?.nearCeiling === true ? `near: ${(step.ceiling.evidence ?? []).join("; ")}` : "not near";
  const [cpu, rss] = serverCells(step);
  return `| ${[
    String(step.index),
    String(step.viewers),
    step.outcome,
    `${f.joined}/${step.viewers}`,
    `${num(f.oneWayDelayP50Ms, 1)} / ${num(f.oneWayDelayP99Ms, 1)}`,
    num(f.lossPercent, 3),
    num(f.frozenP95Percent, 2),
    num(f.joinP95Ms, 0),
    f.receiveLagP99Ms === undefined
      ? DASH
      : `${num(f.receiveLagP99Ms, 2)}${f.stampSource ? ` (${f.stampSource})` : ""}`,
    ceiling,
    cpu,
    rss,
    failed.length === 0 ? DASH : failed.join(", "),
  ]
    .map(esc)
    .join(" | ")} |`;
}

function seriesLines(r: CapacityReport): string[] {
  const names = r.serverWatch?.series ?? [];
  if (names.length === 0) return [];
  const out = [
    "",
    "### Server series",
    "",
    `| step | viewers | ${names.map(esc).join(" | ")} |`,
    `|---|---|${names.map(() => "---|").join("")}`,
  ];
  for (const step of r.steps) {
    const vals = names.map((n) =>
      measured(step.server?.series?.[n], (v) =>
        v.kind === "counter"
          ? `${fmtFixed(v.ratePerS, 2)}/s`
          : `${fmtFixed(v.mean, 2)} (last ${fmtFixed(v.last, 2)})`,
      ),
    );
    out.push(`| ${step.index} | ${step.viewers} | ${vals.map(esc).join(" | ")} |`);
  }
  return out;
}

/**
 * " (a linear sweep …: 8 steps, about 80 s)": the same bracket found by a sweep, at this search's
 * mean step time.
 */
function sweepText(r: CapacityReport): string {
  const res = r.result;
  if (res.linearSweepSteps === undefined || res.steps === 0) return "";
  const perStep = res.wallSeconds / res.steps;
  return ` (a linear sweep in steps of ${r.capacity.resolution} from ${r.capacity.start}: ${res.linearSweepSteps} steps, about ${fmtFixed(perStep * res.linearSweepSteps, 0)} s)`;
}

export function capacityToMarkdown(r: CapacityReport): string {
  const res = r.result;
  const c = r.capacity;
  const lines = [
    `# whipbench capacity${r.scenario.name ? ` — ${r.scenario.name}` : ""}`,
    "",
    `**${res.summary}**${r.interrupted ? " (interrupted)" : ""}`,
    "",
    "| | |",
    "|---|---|",
    `| limited by | \`${res.limitedBy}\` |`,
    `| max viewers | ${res.maxViewers ?? DASH} |`,
    `| first failing viewers | ${res.firstFailingViewers ?? DASH} |`,
    `| steps | ${res.steps}${sweepText(r)} |`,
    `| wall time | ${fmtFixed(res.wallSeconds, 0)} s |`,
    `| search | start ${c.start}, max ${c.max}, growth ${c.growth}, resolution ${c.resolution}, step ${c.stepSeconds} s, settle ${c.settleSeconds} s |`,
    `| started | ${r.startedAt} |`,
    "",
    "## Thresholds",
    "",
    ...r.thresholds.map((t) => `- \`${t.figure} ${t.condition}\``),
    "",
    "## Steps",
    "",
    "| # | viewers | outcome | joined | delay p50 / p99 ms | loss % | frozen p95 % | join p95 ms | receive lag p99 ms | client ceiling | server CPU cores | server RSS MiB | failed thresholds |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ...r.steps.map(stepRow),
    ...seriesLines(r),
    "",
    "## Method",
    "",
    ...r.method.map((m) => `- ${m}`),
    "",
  ];
  return lines.join("\n");
}
