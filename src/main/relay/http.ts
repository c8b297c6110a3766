// The built-in relay's HTTP side: plain-text replies, SDP replies with a Location, and request
// bodies read up to MAX_BODY_BYTES (a larger body is drained, not kept, and answered 413).
import type { IncomingMessage, ServerResponse } from "node:http";

export const MAX_BODY_BYTES = 64 * 1024;

export function reply(res: ServerResponse, status: number, text: string): void {
  if (res.headersSent) return;
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8" }).end(text);
}

export function sdpReply(res: ServerResponse, status: number, sdp: string, location: string): void {
  res.writeHead(status, { "content-type": "application/sdp", location }).end(sdp);
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
