// The WHIP/WHEP exchange's transport texts (src/net/sdp-http.ts,
// docs/definitions.md#whip-and-whep-http-exchange) against a tiny HTTP server on 127.0.0.1 that
// ends the connection in each way a server can: closed without a status line (SRS on a
// negotiation error), reset, closed in the middle of its answer.

import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { HttpExchangeError } from "../../src/core/errors.ts";
import { postOffer } from "../../src/net/sdp-http.ts";

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** POSTs an offer to a server that answers with `handler` (once the body is read); the error thrown. */
async function failureOf(handler: Handler): Promise<{ err: HttpExchangeError; h: string }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => handler(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  try {
    await postOffer(`http://127.0.0.1:${port}/rtc/v1/whip/?app=live&stream=s`, "v=0\r\n", {
      timeoutMs: 5000,
    });
  } catch (err) {
    assert.ok(err instanceof HttpExchangeError, String(err));
    return { err, h: `127.0.0.1:${port}` };
  } finally {
    server.closeAllConnections();
    server.close();
  }
  assert.fail("the POST succeeded");
}

test("a server that closes the connection without a status line: said so, kind transport", async () => {
  const { err, h } = await failureOf((req) => req.socket.destroy());
  assert.equal(err.kind, "transport");
  assert.equal(err.message, `POST to ${h}: the server closed the connection without a response`);
});

test("a reset connection is still a reset", async () => {
  const { err, h } = await failureOf((req) => req.socket.resetAndDestroy());
  assert.equal(err.kind, "transport");
  assert.equal(err.message, `POST to ${h}: connection reset`);
});

test("a server that closes in the middle of its answer: said so, kind transport", async () => {
  const { err, h } = await failureOf((req, res) => {
    res.writeHead(201, { "content-type": "application/sdp", "content-length": "1000" });
    res.write("v=0\r\n", () => setTimeout(() => req.socket.destroy(), 20));
  });
  assert.equal(err.kind, "transport");
  assert.equal(err.message, `POST to ${h}: the server closed the connection before the end of its answer`);
});
