// whipbench's WHEP front for Janus 1.1.2: Meetecho's janus-whep-server library on 127.0.0.1,
// plus the small endpoint-admin API the library leaves to its embedder. Run by start.sh on the
// project's pinned Node:  node whep-front.mjs
//
//   WHEP  POST   /whep/endpoint/<id>   any SDP offer -> 406 + Janus' SDP offer + Location
//         PATCH  /whep/resource/<uuid> the client's SDP answer (application/sdp) -> 204
//         DELETE /whep/resource/<uuid> -> 200
//   admin POST   /whep/create          {"id":"vp8","mountpoint":1}
//                                      or {"id":"x","plugin":"videoroom","room":1234,"feed":N}
//                                      or {"id":"vp8-sim","plugin":"videoroom","room":1235,
//                                          "layers":["l","m","h"]} (simulcast: layers.mjs)
//         GET    /whep/endpoints       [{"id","subscribers"}]
//         DELETE /whep/endpoint/<id>
//
// Janus 1.1.2's Streaming (and VideoRoom) plugins cannot take a subscriber's offer, so the
// front always answers in the library's "server-sent offer" mode (406 counter-offer + PATCH).
// The library picks that mode only for Janus < 1.0 (its `multistream` flag); the flag is pinned
// to false here. WHEP_CLIENT_OFFERS=1 restores the library default, which is broken against
// 1.1.2 (the 201 body is really an offer and DTLS fails) — kept only to reproduce that.
//
// Environment: JANUS_WS (default ws://127.0.0.1:18188), WHEP_PORT (default 7090), WHEP_HOST (the
// listen address, default 127.0.0.1; start.sh gives 0.0.0.0 in a test's own network namespace).
import http from "node:http";
import express from "express";
import { JanusWhepServer } from "janus-whep-server";
import { forgetEndpoint, layerRoutes, simulcastEndpoint } from "./layers.mjs";

const janusAddress = process.env.JANUS_WS ?? "ws://127.0.0.1:18188";
const port = Number(process.env.WHEP_PORT ?? "7090");
const host = process.env.WHEP_HOST ?? "127.0.0.1";

const app = express();
const whep = new JanusWhepServer({
  janus: { address: janusAddress },
  rest: { app, basePath: "/whep" },
  iceServers: [],
  debug: process.env.WHEP_DEBUG ?? "info",
});
if (process.env.WHEP_CLIENT_OFFERS !== "1") {
  // read by the library for every new subscriber: false = server-sent offer (406 + PATCH)
  Object.defineProperty(whep, "multistream", { get: () => false, set: () => {}, configurable: true });
}
// simulcast endpoints (layers.mjs): their WHEP POST route must come before the library's router
layerRoutes(app, whep);
await whep.start();

app.post("/whep/create", express.json(), (req, res) => {
  const b = req.body ?? {};
  if (typeof b.id !== "string" || b.id === "") {
    res.status(400).send("missing id");
    return;
  }
  if (whep.getEndpoint({ id: b.id })) {
    res.status(409).send("Endpoint already exists");
    return;
  }
  const sim = simulcastEndpoint(b);
  if (typeof sim === "string") {
    res.status(400).send(sim);
    return;
  }
  try {
    whep.createEndpoint(
      sim ?? {
        id: b.id,
        plugin: b.plugin,
        mountpoint: b.mountpoint,
        room: b.room,
        feed: b.feed,
        label: b.label,
      },
    );
    res.sendStatus(200);
  } catch (err) {
    res.status(400).send(String(err?.message ?? err));
  }
});

app.get("/whep/endpoints", (_req, res) => {
  res.json(whep.listEndpoints());
});

app.delete("/whep/endpoint/:id", async (req, res) => {
  try {
    await whep.destroyEndpoint({ id: req.params.id });
    forgetEndpoint(req.params.id);
    res.sendStatus(200);
  } catch {
    res.status(404).send("Invalid endpoint ID");
  }
});

const server = http.createServer(app);
await new Promise((resolve, reject) => {
  server.once("error", reject);
  server.listen(port, host, resolve);
});
console.log(`[WHEP front] listening on http://${host}:${port}/whep (Janus ${janusAddress})`);

let stopping = false;
for (const signal of ["SIGTERM", "SIGINT"]) {
  process.on(signal, () => {
    if (stopping) process.exit(1);
    stopping = true;
    server.close();
    whep
      .destroy()
      .catch(() => {})
      .finally(() => process.exit(0));
    setTimeout(() => process.exit(0), 2000).unref();
  });
}
