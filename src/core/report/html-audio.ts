// The HTML report's audio card (docs/definitions.md#audio-track), in a run that asked for audio:
// the pooled audio figures as the Markdown shows them, and why a figure is unavailable.
import { fmtFixed } from "../go-compat/fmt.ts";
import type { Summary } from "../types.ts";
import { escapeHtml } from "./html-sections.ts";
import { lossSentence } from "./reasons.ts";
import type { Report } from "./types.ts";

function row(name: string, s: Summary | undefined): string {
  const cells =
    s === undefined || s.n === 0
      ? ["0", "—", "—", "—", "—", "—"]
      : [String(s.n), ...[s.p50, s.p95, s.p99, s.min, s.max].map((v) => `${fmtFixed(v, 1)} ms`)];
  return `<tr><td>${escapeHtml(name)}</td>${cells.map((c) => `<td class="num">${c}</td>`).join("")}</tr>`;
}

export function audioSection(r: Report): string {
  const a = r.aggregate.audio;
  if (r.scenario.audio !== true || a === undefined) return "";
  if (!a.available) {
    return `<section class="card"><h2>Audio</h2><p>Unavailable: ${escapeHtml(a.reason ?? "")}.</p></section>`;
  }
  const reasons = [a.oneWayDelay, a.avOffset]
    .flatMap((b) => (b !== undefined && !b.available && b.reason !== undefined ? [b.reason] : []))
    .map((t) => `<li>${escapeHtml(t)}</li>`)
    .join("");
  return `<section class="card"><h2>Audio</h2><p>Opus, 20 ms packets; ${a.viewers} viewers received audio: ${a.packetsReceived} packets, ${a.packetsLost} lost (${lossSentence(a.lossPercentTotal, 2, a.reason)}). A/V offset: audio's delay − video's (send → arrival), per second with samples of both.</p>
<table class="viewers"><thead><tr><th>audio</th><th>n</th><th>p50</th><th>p95</th><th>p99</th><th>min</th><th>max</th></tr></thead><tbody>${[
    row("first audio packet (POST →)", a.firstAudioMs),
    row("jitter (48 kHz)", a.jitterMs),
    row("delay per packet (send → arrival)", a.oneWayDelay?.ms),
    row("A/V offset, per viewer-second", a.avOffset?.ms),
  ].join("")}</tbody></table>${reasons !== "" ? `<ul>${reasons}</ul>` : ""}</section>`;
}
