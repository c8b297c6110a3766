// The WHEP layer extension at the built-in relay (docs/definitions.md#relay-layer-choice), as the
// WHEP draft's core extensions describe it: the answer's Link headers name a server-sent-events
// URL (events="layers") and a layer URL (rel urn:ietf:params:whep:ext:core:layer). A POST to the
// first (optionally a JSON list of event names) answers 201 with the event stream's Location; a
// GET of that stream sends one `layers` event, the stream's layers for the video m-line ("0"). A
// POST to the layer URL of `{"mediaId": "0", "encodingId": "<rid>"}` chooses the leg's layer
// (`{}`: back to the default, the highest); a switch asks the publisher for a keyframe of the new
// layer (a PLI naming its SSRC) and happens at that keyframe. Offered only with a simulcast
// publisher, whose legs the main thread sends (never a relay thread).
import type { IncomingMessage, ServerResponse } from "node:http";
import { LayerSwitch } from "../../core/relay/layer-switch.ts";
import { LegEstimate } from "../../core/relay/leg-estimate.ts";
import { WHEP_LAYER_REL, WHEP_SSE_REL } from "../../core/wire/link-header.ts";
import type { RTCPeerConnection } from "../../net/werift/api.ts";
import { requestKeyframe, type Stream } from "./forward.ts";
import { readBody, reply } from "./http.ts";
import type { Leg } from "./leg.ts";

/**
 * A new leg's layer choice, with simulcast, and the Link header values that offer the extension
 * for session `id` (none without simulcast). The main thread sends such a leg (send-path.ts).
 */
export function legLayers(leg: Leg, stream: Stream, id: string, estimate = false): string[] {
  if (stream.layers === undefined) return [];
  leg.layer = new LayerSwitch(stream.layers.forwarded);
  if (estimate) leg.estimate = new LegEstimate();
  return [
    `</session/${id}/sse>; rel="${WHEP_SSE_REL}"; events="layers"`,
    `</session/${id}/layer>; rel="${WHEP_LAYER_REL}"`,
  ];
}

/** The `layers` event's data: the video m-line's layers, lowest first, every one active. */
export function layersEvent(rids: readonly string[]): string {
  const active = rids.map((id, simulcastIdx) => ({ id, simulcastIdx }));
  const layers = rids.map((encodingId, simulcastIdx) => ({ encodingId, simulcastIdx }));
  return JSON.stringify({ "0": { active, inactive: [], layers } });
}

/** A session's extension request (`sub`: the path after /session/<id>); 404 where there is none. */
export async function layerRoute(
  req: IncomingMessage,
  res: ServerResponse,
  session: { stream: Stream; leg: Leg | null; pc: RTCPeerConnection },
  sub: string[],
): Promise<void> {
  const { stream, leg } = session;
  const path = sub.join("/");
  if (leg?.layer === undefined || stream.layers === undefined) {
    req.resume();
    return reply(res, 404, "not found");
  }
  if (req.method === "POST" && path === "sse") {
    req.resume();
    res.writeHead(201, { location: `${req.url?.split("?")[0] ?? ""}/events` }).end();
    return;
  }
  if (req.method === "GET" && path === "sse/events") return eventStream(res, stream.layers.rids, session.pc);
  if (req.method === "POST" && path === "layer") return choose(req, res, stream, leg);
  req.resume();
  return reply(res, path === "sse" || path === "layer" ? 405 : 404, "not found");
}

function eventStream(res: ServerResponse, rids: readonly string[], pc: RTCPeerConnection): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  res.write(`event: layers\ndata: ${layersEvent(rids)}\n\n`);
  // the stream ends with the leg (and every connection when the relay closes)
  const sub = pc.connectionStateChange.subscribe((state) => {
    if (state === "closed" || state === "failed") res.end();
  });
  res.on("close", () => sub.unSubscribe());
}

async function choose(req: IncomingMessage, res: ServerResponse, stream: Stream, leg: Leg) {
  const choice = leg.layer;
  const body = await readBody(req);
  let asked: { mediaId?: unknown; encodingId?: unknown };
  try {
    asked = JSON.parse(body ?? "");
  } catch {
    return reply(res, 400, "the body is not JSON");
  }
  const layers = stream.layers;
  if (layers === undefined || choice === undefined || typeof asked !== "object" || asked === null)
    return reply(res, 400, "bad choice");
  // the video m-line is the first ("0"; the draft's example writes it as a string)
  if (asked.mediaId !== undefined && String(asked.mediaId) !== "0") return reply(res, 400, "no such media");
  const rid = asked.encodingId ?? layers.forwarded;
  if (typeof rid !== "string" || !layers.rids.includes(rid)) return reply(res, 400, "no such layer");
  // `{}` hands the choice back to the relay (its estimate, where it keeps one)
  leg.chosen = asked.encodingId !== undefined;
  if (choice.ask(rid) && choice.pending !== null) requestKeyframe(stream, rid);
  res.writeHead(200).end();
}
