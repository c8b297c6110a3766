// The figures of what the viewers would have seen (docs/definitions.md#viewer-experience-thresholds)
// that a threshold, `compare --fail-on`, a matrix cell or a capacity step may name, read from the
// report's `aggregate.render`; unavailable, with its reason, where no frame was judged.

import type { PooledRenderBlock } from "../report/render-types.ts";
import type { Report } from "../report/types.ts";
import { type FigureUnit, type FigureValue, STATS } from "../scenario/threshold-types.ts";
import type { Summary } from "../types.ts";

interface RenderFigure {
  unit: FigureUnit;
  about: string;
  read: (r: Report) => FigureValue;
}

export const NO_RENDER_BLOCK =
  "the report has no render block (made before whipbench reported what viewers saw)";

/** The pooled render block when it has figures, else why not. */
function block(r: Report): PooledRenderBlock | { unavailable: string } {
  const b = r.aggregate.render;
  if (b === undefined) return { unavailable: NO_RENDER_BLOCK };
  if (!b.available) return { unavailable: b.reason ?? "no viewer's frames were judged" };
  return b;
}

function figure(
  pick: (b: PooledRenderBlock) => number | undefined,
  none: string,
): (r: Report) => FigureValue {
  return (r) => {
    const b = block(r);
    if ("unavailable" in b) return b;
    const v = pick(b);
    return v === undefined ? { unavailable: none } : { value: v };
  };
}

function stat(pick: (b: PooledRenderBlock) => Summary | undefined, s: (typeof STATS)[number], none: string) {
  return figure((b) => {
    const summary = pick(b);
    return summary === undefined || summary.n === 0 ? undefined : summary[s];
  }, none);
}

let names: ReadonlySet<string> | null = null;

/** Whether a figure name is one of the render figures (a cohort entry carries them too). */
export function isRenderFigure(name: string): boolean {
  names ??= new Set(renderFigures().map(([n]) => n));
  return names.has(name);
}

/** Every render figure by name. */
export function renderFigures(): [string, RenderFigure][] {
  const out: [string, RenderFigure][] = [
    ["freezes", { unit: "", about: "freezes counted over the viewers", read: figure((b) => b.freezes, "") }],
    [
      "freezes.perViewerMinute",
      {
        unit: "",
        about: "freezes per viewer-minute of judged time",
        read: figure((b) => b.freezesPerViewerMinute, "no judged time"),
      },
    ],
    [
      "frozenSeconds",
      {
        unit: "s",
        about: "frozen seconds summed over the viewers",
        read: figure((b) => b.frozenSeconds, ""),
      },
    ],
    [
      "longestFreeze",
      { unit: "ms", about: "the longest freeze of any viewer", read: figure((b) => b.longestFreezeMs, "") },
    ],
    ["pauses", { unit: "", about: "pauses counted over the viewers", read: figure((b) => b.pauses, "") }],
    [
      "framesNotDecodable",
      {
        unit: "",
        about: "complete frames no decoder could show, all viewers",
        read: figure((b) => b.framesNotDecodable, ""),
      },
    ],
  ];
  for (const s of STATS) {
    out.push(
      [
        `freezeShare.${s}`,
        {
          unit: "%",
          about: `frozen share of a viewer's judged time, ${s} over viewers`,
          read: stat((b) => b.frozenPercent, s, "no viewer judged"),
        },
      ],
      [
        `endGap.${s}`,
        {
          unit: "ms",
          about: `last shown frame to the viewer's end, ${s} over viewers`,
          read: stat((b) => b.endGapMs, s, "no viewer judged"),
        },
      ],
      [
        `recovery.${s}`,
        {
          unit: "ms",
          about: `broken chain to the next shown frame, ${s} over every recovery`,
          read: stat((b) => b.recoveryMs, s, "no broken chain ended with a shown frame"),
        },
      ],
      [
        `pliKeyframe.${s}`,
        {
          unit: "ms",
          about: `PLI sent to the next keyframe shown, ${s} over every answered PLI`,
          read: stat((b) => b.pliKeyframeMs, s, "no PLI was answered by a shown keyframe"),
        },
      ],
    );
  }
  return out;
}
