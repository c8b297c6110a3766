// The simulcast figures (docs/definitions.md#layer-thresholds) a threshold, `compare --fail-on`, a
// matrix cell or a capacity step may name: one-way delay per layer, `layerDelay.<rid>.<stat>`, read
// from the report's `aggregate.layerDelay` (a cohort key reads the cohort's), and the switch time,
// `layerSwitch.<stat>`, from `aggregate.layerSwitches.switchMs`; unavailable, with the reason, where
// the run had no such figure.
import type { Report } from "../report/types.ts";
import { type FigureUnit, type FigureValue, STATS, type Stat } from "../scenario/threshold-types.ts";

interface LayerFigure {
  unit: FigureUnit;
  about: string;
  read: (r: Report) => FigureValue;
}

/** The rids the embedded simulcast layers have (docs/definitions.md#simulcast-layers). */
export const LAYER_RIDS = ["l", "m", "h"] as const;

function layerDelay(r: Report, rid: string, stat: Stat): FigureValue {
  const pooled = r.aggregate.layerDelay;
  if (pooled === undefined) return { unavailable: "the run sent no simulcast layers" };
  const l = pooled.find((x) => x.rid === rid);
  if (l === undefined) return { unavailable: `the run sent no layer ${rid}` };
  if (l.delayMs === undefined) return { unavailable: l.reason ?? `layer ${rid} had no one-way delay sample` };
  return { value: l.delayMs[stat] };
}

function switchTime(r: Report, stat: Stat): FigureValue {
  const p = r.aggregate.layerSwitches;
  if (p === undefined)
    return { unavailable: "no viewer of the run chose a layer (no layerSwitch, no cohort layer)" };
  if (p.reason !== undefined) return { unavailable: p.reason };
  if (p.switchMs === undefined) return { unavailable: "no switch reached its new layer's keyframe" };
  return { value: p.switchMs[stat] };
}

/** Whether a figure name is one of these (the per-layer delay is a cohort figure too). */
export function isLayerDelayFigure(figure: string): boolean {
  return figure.startsWith("layerDelay.");
}

export function layerFigures(): [string, LayerFigure][] {
  const out: [string, LayerFigure][] = [];
  for (const stat of STATS) {
    for (const rid of LAYER_RIDS)
      out.push([
        `layerDelay.${rid}.${stat}`,
        {
          unit: "ms",
          about: `one-way delay ${stat} of simulcast layer ${rid}'s frames`,
          read: (r) => layerDelay(r, rid, stat),
        },
      ]);
    out.push([
      `layerSwitch.${stat}`,
      {
        unit: "ms",
        about: `layer switch time ${stat}: ask to the new layer's first complete keyframe`,
        read: (r) => switchTime(r, stat),
      },
    ]);
  }
  return out;
}
