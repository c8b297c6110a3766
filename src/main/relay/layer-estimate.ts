// The relay's own layer choice for a leg whose viewer chose none (docs/definitions.md#relay-layer-estimate):
// each transport feedback message feeds the leg's estimate (src/core/relay/leg-estimate.ts); when a
// window closes, the estimate names the layer the leg should take, and a move asks for it as a
// viewer's choice does (a PLI naming the new layer's SSRC; the switch at its keyframe). A viewer's
// switches then show it unasked: no ask of the viewer answers it (docs/definitions.md#layer-switches).
import type { Stream } from "./forward.ts";
import { requestKeyframe } from "./forward.ts";
import type { Leg } from "./leg.ts";

export function estimateFeedback(leg: Leg, stream: Stream, received: number, lost: number): void {
  const layers = stream.layers;
  const est = leg.estimate;
  const choice = leg.layer;
  if (layers === undefined || est === undefined || choice === undefined) return;
  const now = performance.now();
  const top = layers.rids[layers.rids.length - 1] ?? layers.forwarded;
  const closed = est.feedback(received, lost, now, layers.rates.rate(top) ?? 0);
  if (closed === null || leg.chosen === true) return;
  // a move asked and not reached yet is measured from where the leg is
  const rid = est.choose(choice.pending ?? choice.current, layers.rids, (r) => layers.rates.rate(r), now);
  if (rid === (choice.pending ?? choice.current)) return;
  if (choice.ask(rid) && choice.pending !== null) requestKeyframe(stream, rid);
}
