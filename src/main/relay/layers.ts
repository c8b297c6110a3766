// A simulcast publisher's layers at the built-in relay (docs/definitions.md#relay-simulcast): the
// rids its WHIP offer names and the one the relay forwards, the highest (the last named: browsers
// list their layers lowest first, as the simulcast publisher does).

/** A simulcast publisher's layers as its offer names them, and the one the relay forwards. */
export interface StreamLayers {
  /** the offer's rids in `a=simulcast:send` order */
  rids: string[];
  /** the rid forwarded to every leg */
  forwarded: string;
  /** the forwarded layer's SSRC, once a packet of it arrived (keyframe requests name it) */
  ssrc?: number;
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
    return forwarded === undefined ? null : { rids, forwarded };
  }
  return null;
}
