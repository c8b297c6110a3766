// The Markdown report's audio section (docs/definitions.md#audio-track), in a run that asked for
// audio: the pooled figures (packets, loss, jitter, first audio packet, packet one-way delay, the
// A/V offset) and one row per viewer; each figure without a basis says why.

import type { AudioDelayBlock, AvOffsetBlock } from "./audio.ts";
import { DASH, esc, ms1OrNa, summaryRow } from "./markdown-cells.ts";
import { jitterCell, lossSentence } from "./reasons.ts";
import type { Report } from "./types.ts";

function why(b: { available: boolean; reason?: string } | undefined): string[] {
  return b !== undefined && !b.available && b.reason !== undefined ? [`- ${esc(b.reason)}`] : [];
}

function p50(b: AudioDelayBlock | AvOffsetBlock): string {
  return b.ms !== undefined ? ms1OrNa(b.ms.p50) : DASH;
}

export function audioMarkdown(r: Report): string[] {
  const a = r.aggregate.audio;
  if (r.scenario.audio !== true || a === undefined) return [];
  const out = ["## Audio", ""];
  if (!a.available) return [...out, `Unavailable: ${esc(a.reason ?? "")}.`, ""];
  const sent = r.publisher?.audio;
  out.push(
    `Opus, 20 ms packets${sent !== undefined ? `; ${sent.packetsSent} sent` : ""}; ${a.viewers} viewers received audio: ${a.packetsReceived} packets, ${a.packetsLost} lost (${lossSentence(a.lossPercentTotal, 2, a.reason)}). A/V offset: audio's delay − video's (send → arrival), per second with samples of both.`,
    "",
    "| audio | n | p50 | p95 | p99 | min | max |",
    "|---|---:|---:|---:|---:|---:|---:|",
    summaryRow("first audio packet (POST →)", a.firstAudioMs, "ms"),
    summaryRow("jitter (48 kHz)", a.jitterMs, "ms"),
    summaryRow("delay per packet (send → arrival)", a.oneWayDelay?.ms, "ms"),
    summaryRow("A/V offset, per viewer-second", a.avOffset?.ms, "ms"),
    "",
    ...why(a.oneWayDelay),
    ...why(a.avOffset),
    "| viewer | packets | lost | jitter | delay p50 | A/V offset p50 |",
    "|---:|---:|---:|---:|---:|---:|",
  );
  for (const v of r.viewers ?? []) {
    const b = v.audio;
    if (b === undefined) continue;
    out.push(
      `| ${v.id} | ${b.packetsReceived} | ${b.packetsLost} | ${jitterCell(b.jitterMs, 1)} | ${p50(b.oneWayDelay)} | ${p50(b.avOffset)} |`,
    );
  }
  out.push("");
  return out;
}
