// The per-layer families of /metrics (docs/definitions.md#layer-metrics): registered only in a run
// with simulcast, after every other family, each with a `layer` label whose values are the
// scenario's rids (the switches' counter a `from` and a `to`), fed from the shards' ticks as the
// viewers' frames arrive.
import { Counter, Histogram, type Registry } from "prom-client";

/** What a shard's tick carries of the layers: pairs by layer index (workers/protocol.ts LayerTick). */
export interface LiveLayerTick {
  delays: readonly number[];
  switches: readonly number[];
  switchNs: readonly number[];
}

/** Buckets of a switch's time, seconds: a keyframe interval is 1 s on the embedded layers. */
const SWITCH_BUCKETS_S = [0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10];

export class LayerMetrics {
  private readonly delay: Histogram<"layer">;
  private readonly switches: Counter<"from" | "to">;
  private readonly switchTime: Histogram<"layer">;
  private readonly rids: readonly string[];

  constructor(registry: Registry, rids: readonly string[], delayBucketsS: readonly number[]) {
    const registers = [registry];
    this.rids = rids;
    this.delay = new Histogram({
      name: "whipbench_layer_one_way_delay_seconds",
      help: "One-way delay per frame of a simulcast layer (fingerprint source), seconds.",
      labelNames: ["layer"],
      buckets: [...delayBucketsS],
      registers,
    });
    this.switches = new Counter({
      name: "whipbench_layer_switches_total",
      help: "Changes of layer the viewers' frames showed, counted at the new layer's first frame.",
      labelNames: ["from", "to"],
      registers,
    });
    this.switchTime = new Histogram({
      name: "whipbench_layer_switch_seconds",
      help: "A switch's ask to the new layer's first complete keyframe, seconds (asked switches only).",
      labelNames: ["layer"],
      buckets: SWITCH_BUCKETS_S,
      registers,
    });
    for (const layer of rids) {
      this.delay.zero({ layer });
      this.switchTime.zero({ layer });
      for (const to of rids) if (to !== layer) this.switches.inc({ from: layer, to }, 0);
    }
  }

  /** Adds one tick's pairs; a layer index the scenario does not name is dropped. */
  apply(t: LiveLayerTick): void {
    const rid = (i: number | undefined): string | undefined => this.rids[i ?? -1];
    for (let i = 0; i + 1 < t.delays.length; i += 2) {
      const layer = rid(t.delays[i]);
      if (layer !== undefined) this.delay.observe({ layer }, (t.delays[i + 1] ?? 0) / 1e9);
    }
    for (let i = 0; i + 1 < t.switches.length; i += 2) {
      const from = rid(t.switches[i]);
      const to = rid(t.switches[i + 1]);
      if (from !== undefined && to !== undefined) this.switches.inc({ from, to });
    }
    for (let i = 0; i + 1 < t.switchNs.length; i += 2) {
      const layer = rid(t.switchNs[i]);
      if (layer !== undefined) this.switchTime.observe({ layer }, (t.switchNs[i + 1] ?? 0) / 1e9);
    }
  }
}
