// The report's layer-switch blocks (docs/definitions.md#layer-switches), in a run with
// `layerSwitch`: per viewer what it asked for through the WHEP layer extension and its switches
// (`viewers[].layerChoice`), and the switches pooled over the viewers (`aggregate.layerSwitches`).
import { exactSummary } from "../stats/summaries.ts";
import type { Summary, ViewerRecord } from "../types.ts";

/** One ask in the report: the layer, when (ms after the viewer's WHEP POST), the server's status. */
export interface LayerAskReport {
  rid: string;
  askedMs: number;
  /** 0: no answer, or not sent (`error` says which) */
  status: number;
  error?: string;
}

/** One switch; a null figure is not measured (docs/definitions.md#layer-switches says when). */
export interface LayerSwitchReport {
  from: string | null;
  to: string;
  askedMs: number | null;
  switchMs: number | null;
  framesLost: number | null;
}

export interface ViewerLayerChoice {
  available: boolean;
  reason?: string;
  asks: LayerAskReport[];
  switches: LayerSwitchReport[];
}

export interface PooledLayerSwitches {
  /** viewers with a layer choice (those that got an answer), and those the server offered it to */
  viewers: number;
  withExtension: number;
  /** present when no viewer had the extension: why the figures are unavailable */
  reason?: string;
  /** switches asked for, those that reached the new layer's keyframe, those the server made unasked */
  asked: number;
  reached: number;
  unasked: number;
  /** ask → new layer's first complete keyframe over the reached switches; absent when none was */
  switchMs?: Summary;
  /** frames lost across the switches whose loss is measured; absent when none's was */
  framesLost?: number;
}

const ms = (ns: number): number => ns / 1e6;

/** `viewers[].layerChoice` from a viewer's record; undefined without one. */
export function viewerLayerChoice(
  rec: Pick<ViewerRecord, "layerChoice" | "postMonoNs">,
): ViewerLayerChoice | undefined {
  const c = rec.layerChoice;
  if (c === undefined) return undefined;
  const post = rec.postMonoNs ?? 0;
  const rel = (ns: number | null): number | null => (ns === null ? null : ms(ns - post));
  return {
    available: c.reason === undefined,
    ...(c.reason !== undefined ? { reason: c.reason } : {}),
    asks: c.asks.map((a) => ({
      rid: a.rid,
      askedMs: ms(a.atNs - post),
      status: a.status,
      ...(a.error !== undefined ? { error: a.error } : {}),
    })),
    switches: c.switches.map((s) => ({
      from: s.from,
      to: s.to,
      askedMs: rel(s.askedNs),
      switchMs: s.switchNs === null ? null : ms(s.switchNs),
      framesLost: s.framesLost,
    })),
  };
}

/** `aggregate.layerSwitches` over the viewers' blocks; undefined when no viewer has one. */
export function pooledLayerSwitches(blocks: readonly ViewerLayerChoice[]): PooledLayerSwitches | undefined {
  if (blocks.length === 0) return undefined;
  const switches = blocks.flatMap((b) => b.switches);
  const reached = switches.flatMap((s) => (s.switchMs !== null ? [s.switchMs] : []));
  const lost = switches.flatMap((s) => (s.framesLost !== null ? [s.framesLost] : []));
  const withExtension = blocks.filter((b) => b.available).length;
  const firstReason = blocks.find((b) => !b.available)?.reason ?? "";
  return {
    viewers: blocks.length,
    withExtension,
    ...(withExtension === 0 ? { reason: firstReason } : {}),
    asked: switches.filter((s) => s.askedMs !== null).length,
    reached: reached.length,
    unasked: switches.filter((s) => s.askedMs === null).length,
    ...(reached.length > 0 ? { switchMs: exactSummary(reached) } : {}),
    ...(lost.length > 0 ? { framesLost: lost.reduce((a, n) => a + n, 0) } : {}),
  };
}
