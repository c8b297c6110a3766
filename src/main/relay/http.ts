// The built-in relay's HTTP side: plain-text replies, SDP replies with a Location, request
// bodies read up to MAX_BODY_BYTES (a larger body is drained, not kept, and answered 413), and the
// viewer's PATCHed answer of the counter-offer flow.
import type { IncomingMessage, ServerResponse } from "node:http";
import { absCaptureId } from "../../net/rtc.ts";
import type { RTCPeerConnection } from "../../net/werift/api.ts";
import type { Leg } from "./leg.ts";

export const MAX_BODY_BYTES = 64 * 1024;

export function reply(res: ServerResponse, status: number, text: string): void {
  if (res.headersSent) return;
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8" }).end(text);
}

/** An SDP reply; `links`: Link header values (the WHEP extensions offered, layer-ext.ts). */
export function sdpReply(
  res: ServerResponse,
  status: number,
  sdp: string,
  location: string,
  links: string[] = [],
) {
  const headers: Record<string, string | string[]> = { "content-type": "application/sdp", location };
  if (links.length > 0) headers["link"] = links;
  res.writeHead(status, headers).end(sdp);
}

export function readBody(req: IncomingMessage): Promise<string | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let over = false;
    req.on("data", (chunk: Buffer) => {
      total += chunk.length;
      if (total > MAX_BODY_BYTES) over = true;
      else chunks.push(chunk);
    });
    req.on("end", () => resolve(over ? null : Buffer.concat(chunks).toString("utf8")));
    req.on("error", () => resolve(null));
  });
}

/** A counter-offer's answer PATCHed by the viewer: set on the leg's peer, abs-capture-time re-read. */
export async function patchAnswer(
  req: IncomingMessage,
  res: ServerResponse,
  pc: RTCPeerConnection,
  leg: Leg,
): Promise<void> {
  const body = await readBody(req);
  if (body === null || !body.startsWith("v=0")) return reply(res, 400, "the body is not SDP");
  try {
    await pc.setRemoteDescription({ type: "answer", sdp: body });
    leg.absId = absCaptureId(leg.tr.headerExtensions);
  } catch {
    return reply(res, 400, "the answer was refused");
  }
  res.writeHead(204).end();
}
