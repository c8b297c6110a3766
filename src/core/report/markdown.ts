// The Markdown report (docs/definitions.md#markdown-report), rendered from the report object alone.

import { fmtFixed, fmtG, mdStarted } from "../go-compat/fmt.ts";
import { audioMarkdown } from "./markdown-audio.ts";
import {
  ceilingText,
  clientLagText,
  clockText,
  DASH,
  esc,
  frameEndsText,
  hostsText,
  managedServiceRows,
  ms1OrNa,
  msOrDash,
  packetsSentence,
  parseRfc3339Ns,
  resourcesText,
  scenarioText,
  summaryRow,
  summaryRows,
  udpDropsText,
  workersText,
} from "./markdown-cells.ts";
import { churnMarkdown } from "./markdown-churn.ts";
import { cohortsMarkdown } from "./markdown-cohorts.ts";
import { layerDelayMarkdown, layersMarkdown } from "./markdown-layers.ts";
import { referenceMarkdown } from "./markdown-reference.ts";
import { renderMarkdown } from "./markdown-render.ts";
import { jitterCell, lossCell } from "./reasons.ts";
import { thresholdsMarkdown } from "./threshold-render.ts";
import type {
  Aggregate,
  CeilingReport,
  PooledDelayBlock,
  PublisherReport,
  Report,
  ViewerReport,
} from "./types.ts";
import { fmtPercent } from "./verdict.ts";

function header(r: Report): string[] {
  const name = r.scenario.name ?? "";
  const started = parseRfc3339Ns(r.startedAt);
  const durationS = Number(parseRfc3339Ns(r.finishedAt) - started) / 1e9;
  const c = r.client;
  const lines = [
    `# ${esc(name === "" ? `whipbench ${r.command}` : name)}`,
    "",
    "| | |",
    "|---|---|",
    `| whipbench | ${esc(r.whipbenchVersion)} |`,
    `| started | ${mdStarted(started)} |`,
    `| duration | ${fmtFixed(durationS, 1)} s |`,
  ];
  if (r.server.whipHost !== undefined) lines.push(`| WHIP host | \`${esc(r.server.whipHost)}\` |`);
  lines.push(`| WHEP host | \`${esc(r.server.whepHost)}\` |`);
  for (const [label, v] of managedServiceRows(r.server)) lines.push(`| ${label} | ${esc(v)} |`);
  lines.push(
    `| scenario | ${scenarioText(r.scenario)} |`,
    `| client | ${esc(`${c.os}/${c.arch}, ${c.cpus} CPUs, ${c.go}`)} |`,
  );
  if (c.resources !== undefined) lines.push(`| client resources | ${resourcesText(c.resources)} |`);
  if (c.workers !== undefined && c.workers.length > 0)
    lines.push(`| client threads | ${workersText(c.workers)} |`);
  const lag = clientLagText(c);
  if (lag !== null) lines.push(`| client adds | ${lag} |`);
  if (c.udpDrops !== undefined) lines.push(`| UDP receive drops | ${udpDropsText(c.udpDrops)} |`);
  if (c.ceiling !== undefined) lines.push(`| client ceiling | ${ceilingText(c.ceiling)} |`);
  if (c.hosts !== undefined) lines.push(`| client hosts | ${hostsText(c.hosts)} |`);
  lines.push(`| topology | ${esc(r.topology)} |`, `| clock | ${clockText(r.clock)} |`, "");
  return lines;
}

function verdict(a: Aggregate, ceiling: CeilingReport | undefined): string[] {
  const lines = [
    "## Verdict",
    "",
    `**${esc(a.verdict)}.**`,
    "",
    `${a.viewers} viewers asked for, ${a.joined} joined, ${a.failed} failed (${fmtPercent(a.failedPercent)}%), ${a.droppedAfterJoin} dropped after joining.`,
    "",
  ];
  if (ceiling?.nearCeiling) {
    lines.push(
      `> **Warning: this client was near its own ceiling** ${DASH} ${esc((ceiling.evidence ?? []).join("; "))}. Its own queueing is inside every figure below, so no one-way delay figure of this run is comparable.`,
      "",
    );
  }
  return lines;
}

function fingerprintLines(fp: PooledDelayBlock, a: Aggregate, excludeS: number): string[] {
  if (!fp.available) return [`**One-way delay: unavailable** ${DASH} ${esc(fp.reason ?? "")}.`, ""];
  const loopMin =
    fp.loopMinMs === undefined ? "" : `, sent in ${fmtFixed(fp.loopMinMs, 0)} ms at the fastest`;
  const lines = [
    `One-way delay (fingerprint): ${fp.samples} samples from ${fp.completeFrames} complete frames on ${fp.viewers} viewers (frame end: ${esc(frameEndsText(fp.viewersByFrameEnd))}); ${fp.incompleteFrames} incomplete, ${fp.unmatchedFrames} unmatched, ${fp.invalid} invalid, ${fp.excludedFrames} excluded as inside each viewer's first ${fmtG(excludeS)}s; ${fp.duplicateFrames} duplicate clip frames never sampled; ${fp.lateCompletedFrames} frames completed late, with ${a.nacksSent} NACKs sent; loop ${fp.loopFrames} frames${loopMin}.`,
    "",
  ];
  if ((fp.reason ?? "") !== "") lines.push(`One-way delay ${esc(fp.reason ?? "")}.`, "");
  if (!fp.comparable) {
    lines.push(
      `**One-way delay (fingerprint): not comparable** with another report's ${DASH} ${esc(fp.notComparableReason ?? "")}.`,
      "",
    );
  }
  return lines;
}

function stampLines(st: PooledDelayBlock): string[] {
  if (!st.available) return [`**One-way delay (stamp): unavailable** ${DASH} ${esc(st.reason ?? "")}.`, ""];
  const lines = [
    `One-way delay (stamp): ${st.samples} samples from ${st.completeFrames} complete frames on ${st.viewers} viewers; ${st.unmatchedFrames} without a stamp, ${st.invalid} invalid, ${st.excludedFrames} excluded.`,
    "",
  ];
  if ((st.reason ?? "") !== "") lines.push(`One-way delay (stamp) ${esc(st.reason ?? "")}.`, "");
  if (!st.comparable) {
    lines.push(
      `**One-way delay (stamp): not comparable** with another report's ${DASH} ${esc(st.notComparableReason ?? "")}.`,
      "",
    );
  }
  return lines;
}

function aggregate(r: Report): string[] {
  const a = r.aggregate;
  if (!a.valid) return [];
  const lines = [
    "## Aggregate",
    "",
    "| metric | n | p50 | p95 | p99 | min | max |",
    "|---|---:|---:|---:|---:|---:|---:|",
  ];
  const fp = a.oneWayDelay.find((b) => b.source === "fingerprint");
  if (fp?.available === true) {
    lines.push(
      summaryRow("one-way delay (fingerprint, per frame)", fp.ms, "ms"),
      summaryRow("one-way delay, keyframes", fp.keyframes.ms, "ms"),
      summaryRow("one-way delay, delta frames", fp.deltaFrames.ms, "ms"),
    );
  }
  const st = a.oneWayDelay.find((b) => b.source === "stamp");
  if (st?.available === true) lines.push(summaryRow("one-way delay (stamp, per frame)", st.ms, "ms"));
  lines.push(...summaryRows(r, "aggregate.join"));
  const t = a.packetTransit;
  if (t.available) lines.push(summaryRow("packet transit (stamped packets)", t.ms, "ms"));
  lines.push(...summaryRows(r, "aggregate.rtp"), "");
  if (fp !== undefined) lines.push(...fingerprintLines(fp, a, r.scenario.excludeFirstSeconds ?? 0));
  if (st !== undefined) lines.push(...stampLines(st));
  if (!t.available) {
    lines.push(`**Packet transit: unavailable** ${DASH} ${esc(t.reason ?? "")}.`, "");
  } else if ((t.reason ?? "") !== "") {
    lines.push(`Packet transit ${esc(t.reason ?? "")}.`, "");
  }
  lines.push(packetsSentence(r), "");
  return lines;
}

function publisher(p: PublisherReport | undefined): string[] {
  if (p === undefined) return [];
  const stamp = p.stamped ? "yes" : `no ${DASH} the WHIP answer did not accept abs-capture-time`;
  const kind = p.errorKind ?? "";
  const err = p.error ?? "";
  const error = kind === "" && err === "" ? "" : ` Error: ${esc(err)} (\`${esc(kind)}\`).`;
  return [
    "## Publisher",
    "",
    `codec ${esc(p.codec)}, connected in ${fmtFixed(p.connectMs, 0)} ms, ${p.framesSent} frames and ${p.packetsSent} packets sent over ${fmtFixed(p.sendingSeconds, 1)} s (${p.loops} loops), schedule slips ${p.scheduleSlips}, send-time stamp: ${stamp}.${error}`,
    "",
    `Keyframe requests received: ${p.pliReceived} PLI, ${p.firReceived} FIR; keyframes sent on request ${p.keyframesOnRequest}; requests per joining viewer ${p.keyframeRequestsPerJoin === undefined ? DASH : fmtFixed(p.keyframeRequestsPerJoin, 2)}.`,
    "",
  ];
}

function errors(e: Record<string, number>): string[] {
  const kinds = Object.keys(e).sort();
  if (kinds.length === 0) return [];
  return [
    "## Errors",
    "",
    "| kind | count |",
    "|---|---:|",
    ...kinds.map((k) => `| \`${esc(k)}\` | ${e[k]} |`),
    "",
  ];
}

function viewerRow(v: ViewerReport): string {
  const rtp = v.rtp;
  const fp = v.oneWayDelay.find((b) => b.source === "fingerprint");
  const delay = fp?.available === true ? fp.ms : undefined;
  const transit = v.packetTransit.available ? v.packetTransit.ms : undefined;
  const cells = [
    String(v.id),
    `${fmtFixed(v.startOffsetMs, 0)} ms`,
    v.joined ? "yes" : "no",
    msOrDash(v.firstRtpMs),
    msOrDash(v.firstKeyframeMs),
    String(rtp.received),
    String(rtp.lost),
    lossCell(rtp.lossPercent, 2),
    String(v.nacksSent),
    jitterCell(rtp.jitterMs, 2),
    rtp.keyframes > 1 ? `${fmtFixed(rtp.keyframeIntervalMeanS, 2)} s` : DASH,
    String(rtp.stalls),
    v.render?.available === true ? String(v.render.freezes) : "n/a",
    v.render?.frozenPercent !== undefined ? `${fmtFixed(v.render.frozenPercent, 2)}%` : "n/a",
    ms1OrNa(delay?.p50),
    ms1OrNa(delay?.p99),
    ms1OrNa(transit?.p50),
    ms1OrNa(transit?.p99),
    esc(v.errorKind ?? ""),
  ];
  return `| ${cells.join(" | ")} |`;
}

function viewers(list: ViewerReport[] | null): string[] {
  return [
    "## Viewers",
    "",
    "| id | start | joined | first RTP | first keyframe | received | lost | loss | NACKs | jitter | keyframe | stalls | freezes | frozen | delay p50 | delay p99 | transit p50 | transit p99 | error |",
    "|---:|---:|:---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ...(list ?? []).map(viewerRow),
    "",
  ];
}

export function reportToMarkdown(r: Report): string {
  const lines = [
    ...header(r),
    ...verdict(r.aggregate, r.client.ceiling),
    ...thresholdsMarkdown(r),
    ...aggregate(r),
    ...renderMarkdown(r),
    ...cohortsMarkdown(r),
    ...referenceMarkdown(r),
    ...churnMarkdown(r),
    ...audioMarkdown(r),
    ...layerDelayMarkdown(r),
    ...layersMarkdown(r),
    ...publisher(r.publisher),
    ...errors(r.errors),
    ...viewers(r.viewers),
    "## Method",
    "",
    ...r.method.map((m) => `- ${esc(m)}`),
  ];
  return `${lines.join("\n")}\n`;
}
