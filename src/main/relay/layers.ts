// A simulcast publisher's layers at the built-in relay (docs/definitions.md#relay-simulcast): the
// rids its WHIP offer names, each layer's SSRC once a packet of it arrived, and the layer a leg
// takes until its viewer chooses one, the highest (the last named: browsers list their layers
// lowest first, as the simulcast publisher does; docs/definitions.md#relay-layer-choice).

import { LayerRates } from "../../core/relay/leg-estimate.ts";

/** A simulcast publisher's layers as its offer names them, and the one a leg starts on. */
export interface StreamLayers {
  /** the offer's rids in `a=simulcast:send` order */
  rids: string[];
  /** the rid a leg takes until its viewer chooses (and every leg a relay thread sends) */
  forwarded: string;
  /** each layer's SSRC by rid, once a packet of it arrived (keyframe requests name it) */
  ssrcs: Map<string, number>;
  /** each layer's incoming rate (docs/definitions.md#relay-layer-estimate) */
  rates: LayerRates;
}

/**
 * The layers a WHIP offer's video section sends (`a=simulcast:send` per RFC 8853: rids separated by
 * `;`, alternatives by `,` — the first taken —, a paused one marked `~`); null without simulcast.
 */
export function offeredLayers(sdp: string): StreamLayers | null {
  let video = false;
  for (const line of sdp.split(/\r?\n/)) {
    if (line.startsWith("m=")) video = line.startsWith("m=video");
    if (!video || !line.startsWith("a=simulcast:send ")) continue;
    const spec = line.slice("a=simulcast:send ".length).trim().split(" ")[0] ?? "";
    const rids = spec
      .split(";")
      .map((alt) => (alt.split(",")[0] ?? "").replace(/^~/, ""))
      .filter((rid) => rid !== "");
    const forwarded = rids[rids.length - 1];
    return forwarded === undefined ? null : { rids, forwarded, ssrcs: new Map(), rates: new LayerRates() };
  }
  return null;
}
