// A viewer's layer switches (docs/definitions.md#layer-switches) from its stays on layers
// (layer-stays.ts) and the layers it asked for through the WHEP layer extension: for each change
// of layer, the ask it answers, the time from that ask to the new layer's first complete keyframe
// (its first decodable frame), and the frames lost across it by RTP timestamp; the last ask, when
// no stay answered it, is a switch that never came.
import type { LayerStay } from "./layer-stays.ts";

/** One ask: layer `rid` asked for at `atNs` (monotonic); `status` the server's HTTP status. */
export interface LayerAsk {
  rid: string;
  atNs: number;
  /** 0: no answer, or not sent (`error` says which) */
  status: number;
  error?: string;
}

/** A viewer's layer choice (docs/definitions.md#layer-switches), in its record. */
export interface LayerChoiceRecord {
  /** present: the choice was unavailable, and why */
  reason?: string;
  asks: LayerAsk[];
  switches: LayerSwitchRecord[];
}

/** One switch; null figures are not measured (the record says why in docs/definitions.md). */
export interface LayerSwitchRecord {
  /** the layer left; null: the ask came before the viewer had a frame */
  from: string | null;
  to: string;
  /** the ask it answers (monotonic ns); null: the server switched unasked */
  askedNs: number | null;
  /** the ask to the new layer's first complete keyframe; null: unasked, or no such keyframe */
  switchNs: number | null;
  /** frame durations missing between the two layers' frames by RTP timestamp; null: not a whole number */
  framesLost: number | null;
}

const ok = (a: LayerAsk): boolean => a.status >= 200 && a.status < 300;

/**
 * The ask a change to layer `to` whose new stay began at `fromNs` answers: the latest one answered
 * 2xx, for `to`, made by then and not in `used` (then added to it); -1: none, the server switched unasked.
 */
export function answeringAsk(
  asks: readonly LayerAsk[],
  used: Set<number>,
  to: string,
  fromNs: number,
): number {
  let at = -1;
  for (let a = 0; a < asks.length; a++) {
    const ask = asks[a] as LayerAsk;
    if (!used.has(a) && ok(ask) && ask.rid === to && ask.atNs <= fromNs) at = a;
  }
  if (at >= 0) used.add(at);
  return at;
}

/** Frames missing between a stay's newest timestamp and the next stay's first, at `ticks` a frame. */
function lostBetween(prev: LayerStay, next: LayerStay, ticks: number): number | null {
  const d = (next.firstTs - prev.lastTs) | 0;
  if (ticks <= 0 || d % ticks !== 0) return null;
  return Math.max(0, d / ticks - 1);
}

/**
 * The switches of a viewer with these stays (in order) and asks (in order); `rids` names the stays'
 * layer indices, `ticks` is one frame's RTP ticks.
 */
export function layerSwitches(
  stays: readonly LayerStay[],
  asks: readonly LayerAsk[],
  rids: readonly string[],
  ticks: number,
): LayerSwitchRecord[] {
  const used = new Set<number>();
  const out: LayerSwitchRecord[] = [];
  const rid = (layer: number): string => rids[layer] ?? String(layer);
  for (let i = 1; i < stays.length; i++) {
    const prev = stays[i - 1] as LayerStay;
    const next = stays[i] as LayerStay;
    const to = rid(next.layer);
    const at = answeringAsk(asks, used, to, next.fromNs);
    const askedNs = at >= 0 ? (asks[at] as LayerAsk).atNs : null;
    const switchNs = askedNs !== null && next.firstKeyNs >= 0 ? next.firstKeyNs - askedNs : null;
    out.push({ from: rid(prev.layer), to, askedNs, switchNs, framesLost: lostBetween(prev, next, ticks) });
  }
  // asks no change of layer answered, for a layer other than the one the viewer was on, that no
  // later ask replaced; a viewer without frames has no switches
  const lastOk = asks.findLastIndex(ok);
  asks.forEach((ask, a) => {
    if (used.has(a) || !ok(ask) || a !== lastOk || stays.length === 0) return;
    const on = stays.findLast((s) => s.fromNs <= ask.atNs);
    const first = stays[0];
    if (on !== undefined ? rid(on.layer) === ask.rid : first !== undefined && rid(first.layer) === ask.rid)
      return;
    const from = on !== undefined ? rid(on.layer) : null;
    out.push({ from, to: ask.rid, askedNs: ask.atNs, switchNs: null, framesLost: null });
  });
  return out;
}
