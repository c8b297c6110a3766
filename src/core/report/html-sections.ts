// The text parts of the HTML report, rendered from the report object: the header facts, the
// verdict with comparability and method, and the per-viewer table. Every value is escaped.

import { fmtFixed } from "../go-compat/fmt.ts";
import { renderLine } from "./headline.ts";
import {
  ceilingText,
  clientLagText,
  clockText,
  frameEndsText,
  hostsText,
  managedServiceRows,
  parseRfc3339Ns,
  resourcesText,
  scenarioText,
  udpDropsText,
  workersText,
} from "./markdown-cells.ts";
import { jitterCell, lossCell, lossSentence } from "./reasons.ts";
import type { PooledDelayBlock, Report, ViewerReport } from "./types.ts";
import { fmtPercent } from "./verdict.ts";

const DASH = "—";

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

/** A Markdown cell text (markdown-cells.ts) as plain text: its `\|` and `**` undone. */
function plain(md: string): string {
  return md.replace(/\\\|/g, "|").replace(/\*\*/g, "");
}

function row(name: string, value: string): string {
  return `<tr><th scope="row">${escapeHtml(name)}</th><td>${escapeHtml(value)}</td></tr>`;
}

export function titleOf(r: Report): string {
  const name = r.scenario.name ?? "";
  return name === "" ? `whipbench ${r.command}` : name;
}

export function headerFacts(r: Report): string {
  const started = parseRfc3339Ns(r.startedAt);
  const durationS = Number(parseRfc3339Ns(r.finishedAt) - started) / 1e9;
  const c = r.client;
  const rows = [
    row("whipbench", r.whipbenchVersion),
    row("started", r.startedAt),
    row("duration", `${fmtFixed(durationS, 1)} s${r.interrupted ? " (interrupted)" : ""}`),
  ];
  if (r.server.whipHost !== undefined) rows.push(row("WHIP host", r.server.whipHost));
  rows.push(row("WHEP host", r.server.whepHost));
  for (const [label, v] of managedServiceRows(r.server)) rows.push(row(label, v));
  rows.push(
    row("scenario", plain(scenarioText(r.scenario))),
    row("client", `${c.os}/${c.arch}, ${c.cpus} CPUs, ${c.go}`),
  );
  if (c.resources !== undefined) rows.push(row("client resources", plain(resourcesText(c.resources))));
  if (c.workers !== undefined && c.workers.length > 0)
    rows.push(row("client threads", plain(workersText(c.workers))));
  const lag = clientLagText(c);
  if (lag !== null) rows.push(row("client adds", plain(lag)));
  if (c.udpDrops !== undefined) rows.push(row("UDP receive drops", plain(udpDropsText(c.udpDrops))));
  if (c.ceiling !== undefined) rows.push(row("client ceiling", plain(ceilingText(c.ceiling))));
  if (c.hosts !== undefined) rows.push(row("client hosts", plain(hostsText(c.hosts))));
  rows.push(row("topology", r.topology), row("clock", plain(clockText(r.clock))));
  return `<table class="facts">${rows.join("")}</table>`;
}

function ms1(v: number | undefined): string {
  return v === undefined ? DASH : `${fmtFixed(v, 1)} ms`;
}

function headline(r: Report): string[] {
  const a = r.aggregate;
  const out: string[] = [];
  for (const b of a.oneWayDelay) {
    if (b.available && b.ms) {
      const ends = frameEndsText(b.viewersByFrameEnd);
      out.push(
        `one-way delay (${b.source}) p50 ${ms1(b.ms.p50)}, p95 ${ms1(b.ms.p95)}, p99 ${ms1(b.ms.p99)} over ${b.samples} samples from ${b.viewers} viewers${ends === "" ? "" : ` (frame end: ${ends})`}`,
      );
    } else {
      out.push(`one-way delay (${b.source}) unavailable: ${b.reason ?? ""}`);
    }
  }
  const j = a.joinFirstKeyframeMs;
  out.push(`join (first keyframe) p50 ${fmtFixed(j.p50, 0)} ms, p95 ${fmtFixed(j.p95, 0)} ms`);
  out.push(
    `loss ${lossSentence(a.lossPercentTotal, 3, a.lossPercentTotalReason)} (${a.packetsLost} of ${a.packetsLost + a.packetsReceived} packets), ${a.nacksSent} NACKs sent, ${a.stalls} stalls`,
  );
  const t = a.packetTransit;
  out.push(
    t.available && t.ms
      ? `packet transit p50 ${ms1(t.ms.p50)}, p99 ${ms1(t.ms.p99)}`
      : `packet transit unavailable: ${t.reason ?? ""}`,
    renderLine(a),
  );
  return out;
}

function comparabilityItem(b: PooledDelayBlock): string {
  const u = b.uncertaintyMs === undefined ? "" : `, clock uncertainty ± ${fmtFixed(b.uncertaintyMs, 3)} ms`;
  const what = b.comparable
    ? `comparable: may be ranked against another report's${u}`
    : `not comparable: ${b.notComparableReason ?? ""}${u}`;
  return `<li class="${b.comparable ? "ok" : "warn"}"><b>one-way delay (${escapeHtml(b.source)})</b> — ${escapeHtml(what)}</li>`;
}

/** Verdict, headline, comparability and method: the top of the page. */
export function verdictSection(r: Report): string {
  const a = r.aggregate;
  const ceiling = r.client.ceiling;
  const warn = ceiling?.nearCeiling
    ? `<p class="banner warn"><b>Warning: this client was near its own ceiling</b> — ${escapeHtml((ceiling.evidence ?? []).join("; "))}. Its own queueing is inside every figure, so no one-way delay figure of this run is comparable.</p>`
    : "";
  return [
    `<section id="verdict" class="card ${a.valid ? "valid" : "novalid"}">`,
    `<h2>Verdict</h2><p class="verdict">${escapeHtml(a.verdict)}</p>`,
    `<p>${a.viewers} viewers asked for, ${a.joined} joined, ${a.failed} failed (${escapeHtml(fmtPercent(a.failedPercent))}%), ${a.droppedAfterJoin} dropped after joining.</p>`,
    warn,
    a.valid
      ? `<ul class="headline">${headline(r)
          .map((l) => `<li>${escapeHtml(l)}</li>`)
          .join("")}</ul>`
      : `<p>No verdict: the figures stay in the JSON report and are not shown here as results.</p>`,
    `<h3>Comparability</h3><ul class="comparability">${a.oneWayDelay.map(comparabilityItem).join("")}</ul>`,
    `<details id="method"><summary>Method: ${r.method.length} definitions (open to read)</summary><ul>${r.method
      .map((m) => `<li>${escapeHtml(m)}</li>`)
      .join("")}</ul></details>`,
    `</section>`,
  ].join("\n");
}

function cell(text: string, numeric = false): string {
  return numeric ? `<td class="num">${escapeHtml(text)}</td>` : `<td>${escapeHtml(text)}</td>`;
}

function viewerRow(v: ViewerReport): string {
  const d = v.oneWayDelay.find((b) => b.source === "fingerprint");
  const t = v.packetTransit;
  return `<tr class="${v.joined ? "" : "failed"}">${[
    cell(String(v.id), true),
    cell(`${fmtFixed(v.startOffsetMs / 1e3, 2)} s`, true),
    cell(v.joined ? "yes" : "no"),
    cell(ms1(v.firstRtpMs), true),
    cell(ms1(v.firstKeyframeMs), true),
    cell(String(v.rtp.received), true),
    cell(String(v.rtp.lost), true),
    cell(lossCell(v.rtp.lossPercent, 2), true),
    cell(String(v.nacksSent), true),
    cell(jitterCell(v.rtp.jitterMs, 1), true),
    cell(String(v.rtp.stalls), true),
    cell(v.render?.available === true ? String(v.render.freezes) : DASH, true),
    cell(v.render?.frozenPercent !== undefined ? `${fmtFixed(v.render.frozenPercent, 2)}%` : DASH, true),
    cell(d?.available && d.ms ? ms1(d.ms.p50) : DASH, true),
    cell(d?.available && d.ms ? ms1(d.ms.p99) : DASH, true),
    cell(t.available && t.ms ? ms1(t.ms.p50) : DASH, true),
    cell(v.errorKind === undefined ? "" : `${v.errorKind}${v.error === undefined ? "" : `: ${v.error}`}`),
  ].join("")}</tr>`;
}

export function viewerTable(r: Report): string {
  const head = [
    "id",
    "start",
    "joined",
    "first RTP",
    "first keyframe",
    "received",
    "lost",
    "loss",
    "NACKs",
    "jitter",
    "stalls",
    "freezes",
    "frozen",
    "delay p50",
    "delay p99",
    "transit p50",
    "error",
  ];
  if (r.viewers === null) return `<p>No viewer ran: the publisher failed to connect.</p>`;
  return `<table class="viewers"><thead><tr>${head.map((h) => `<th>${h}</th>`).join("")}</tr></thead><tbody>${r.viewers
    .map(viewerRow)
    .join("")}</tbody></table>`;
}
