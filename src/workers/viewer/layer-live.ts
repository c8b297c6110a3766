// A viewer's live layer figures (docs/definitions.md#layer-metrics): its stays' hooks
// (core/delay/layer-stays.ts) report each change of layer, and each switch's time from the ask it
// answers to the new layer's first complete keyframe, to the shard's live hooks as they happen.
import type { LayerStayHooks } from "../../core/delay/layer-stays.ts";
import { answeringAsk, type LayerAsk } from "../../core/delay/layer-switches.ts";
import type { ViewerLive } from "./viewer-context.ts";

/**
 * The stays' hooks, or null when the shard takes no live figures. `asks` is read when a keyframe
 * comes (the layer driver starts after the pipeline may); `rids` names the layers' indices.
 */
export function layerStayHooks(
  live: ViewerLive,
  asks: () => readonly LayerAsk[],
  rids: readonly string[],
): LayerStayHooks | null {
  const change = live.layerSwitch;
  const time = live.layerSwitchTime;
  if (change === undefined || time === undefined) return null;
  const used = new Set<number>();
  return {
    change,
    key: (layer, fromNs, keyNs) => {
      const a = asks();
      const at = answeringAsk(a, used, rids[layer] ?? "", fromNs);
      if (at >= 0) time(layer, keyNs - (a[at] as LayerAsk).atNs);
    },
  };
}
