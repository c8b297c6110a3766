// The HTML report's layer-switch card (docs/definitions.md#layer-switches), in a run with
// `layerSwitch`: the pooled figures and the switch time as the Markdown shows them.
import { fmtFixed } from "../go-compat/fmt.ts";
import { escapeHtml } from "./html-sections.ts";
import { layerChoiceText, layerDelayRows, pooledLayerText } from "./markdown-layers.ts";
import type { Report } from "./types.ts";

export function layersSection(r: Report): string {
  const p = r.aggregate.layerSwitches;
  if (p === undefined) return "";
  const head = `<section class="card"><h2>Layer switches</h2><p>Viewers' layer choice: ${escapeHtml(layerChoiceText(r))}.</p>`;
  if (p.reason !== undefined) return `${head}<p>Unavailable, because ${escapeHtml(p.reason)}.</p></section>`;
  const s = p.switchMs;
  const cells =
    s === undefined
      ? ["0", "—", "—", "—", "—", "—"]
      : [String(s.n), ...[s.p50, s.p95, s.p99, s.min, s.max].map((v) => `${fmtFixed(v, 1)} ms`)];
  return `${head}<p>${escapeHtml(pooledLayerText(p))}</p>
<table class="viewers"><thead><tr><th>switch</th><th>n</th><th>p50</th><th>p95</th><th>p99</th><th>min</th><th>max</th></tr></thead><tbody><tr><td>ask → new layer's first keyframe</td>${cells.map((c) => `<td class="num">${c}</td>`).join("")}</tr></tbody></table></section>`;
}

/** The "Delay per layer" card, in a run with simulcast: the pooled rows as the Markdown has them. */
export function layerDelaySection(r: Report): string {
  if (r.aggregate.layerDelay === undefined) return "";
  const rows = layerDelayRows(r)
    .map((d) => {
      const cells = [d.group, d.rid, String(d.viewers), String(d.samples), d.p50, d.p95, d.note];
      return `<tr>${cells.map((c, i) => `<td${i >= 2 && i <= 5 ? ' class="num"' : ""}>${escapeHtml(c)}</td>`).join("")}</tr>`;
    })
    .join("");
  return `<section class="card"><h2>Delay per layer</h2><p>One-way delay (fingerprint source) of the frames of each simulcast layer.</p>
<table class="viewers"><thead><tr><th>group</th><th>layer</th><th>viewers</th><th>samples</th><th>p50</th><th>p95</th><th></th></tr></thead><tbody>${rows}</tbody></table></section>`;
}
