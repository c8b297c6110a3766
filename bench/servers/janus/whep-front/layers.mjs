// Simulcast WHEP endpoints of the recipe's front: a VideoRoom subscriber per viewer, one
// substream of the room's simulcast publisher, and the WHEP layer extension (the WHEP draft's
// core extensions) to choose it. Janus 1.1.2's VideoRoom subscriber gets one substream and
// switches on a `configure` request naming the substream; this file maps the extension onto that
// request. Janus numbers the rids highest first (its JSEP `rid_order` defaults to "hml" and
// simple-whip-server sends none), so the first rid listed, our lowest, is its substream n-1, and its
// default for a new subscriber, substream 2, would be our l: each subscription here asks for
// substream 0 (our highest) at its join, so a viewer that asks nothing gets the highest layer, as
// the relay's does.
//
//   admin POST /whep/create {"id":"vp8-sim","plugin":"videoroom","room":1235,"layers":["l","m","h"]}
//         `layers`: the publisher's rids, lowest first, as its a=simulcast lists them; no `feed`:
//         each WHEP POST subscribes to the room's publisher of that moment (a WHIP publisher's
//         feed ID is random: simple-whip-server does not choose it)
//   WHEP  POST /whep/endpoint/vp8-sim       -> 406 + offer, Location and
//         Link: </whep/resource/<uuid>/layer>; rel="urn:ietf:params:whep:ext:core:layer"
//         POST /whep/resource/<uuid>/layer {"mediaId":"0","encodingId":"m"} -> 200 once Janus took
//         the configure (the switch itself happens at the new substream's next keyframe, which
//         VideoRoom asks the publisher for with a PLI); {} -> the highest; unknown rid/mediaId -> 400
import express from "express";
import VideoRoomPlugin from "janode/plugins/videoroom";

const LAYER_REL = "urn:ietf:params:whep:ext:core:layer";

/** The endpoints created with `layers`: id -> { room, layers }. */
const simulcast = new Map();

/**
 * Registers `{"id","plugin":"videoroom","room","layers"}` before the library sees it: a feed is
 * resolved at each subscription, so the library gets a placeholder. Returns the arguments for
 * `createEndpoint`, or a string saying what is wrong.
 */
export function simulcastEndpoint(b) {
  if (!Array.isArray(b.layers)) return null;
  if (b.plugin !== "videoroom" || !Number.isInteger(b.room))
    return "layers needs plugin videoroom and a room";
  if (b.layers.length < 2 || b.layers.length > 3 || !b.layers.every((r) => typeof r === "string" && r !== ""))
    return "layers: two or three rids, lowest first";
  simulcast.set(b.id, { room: b.room, layers: b.layers });
  // the library requires a feed; the real one replaces it before every subscription
  return { id: b.id, plugin: "videoroom", room: b.room, feed: -1, label: b.label };
}

export function forgetEndpoint(id) {
  simulcast.delete(id);
}

/**
 * The library joins a VideoRoom subscriber with `{room, feed}`: a join in a simulcast endpoint's
 * room goes out as `streams: [{feed, substream: 0}]` instead (every stream of the feed, the video
 * on Janus's substream 0, our highest), so the leg starts on the highest layer with no switch.
 */
function joinOnHighest() {
  const proto = VideoRoomPlugin.Handle.prototype;
  const join = proto.joinSubscriber;
  proto.joinSubscriber = function (details) {
    const simRoom = [...simulcast.values()].some((s) => s.room === details?.room);
    if (!simRoom || details.streams !== undefined || details.feed === undefined)
      return join.call(this, details);
    const { feed, ...rest } = details;
    return join.call(this, { ...rest, streams: [{ feed, substream: 0 }] });
  };
}
joinOnHighest();

/** The two routes; call before `whep.start()`, so that the WHEP POST route runs ahead of the library's. */
export function layerRoutes(app, whep) {
  let lister = null;
  const participants = async (room) => {
    if (lister === null || lister.session !== whep.janus) {
      const handle = await whep.janus.attach(VideoRoomPlugin);
      lister = { session: whep.janus, handle };
    }
    return (await lister.handle.listParticipants({ room })).participants ?? [];
  };

  // WHEP POST to a simulcast endpoint: subscribe to the room's publisher, offer the extension
  app.post("/whep/endpoint/:id", async (req, res, next) => {
    const sim = simulcast.get(req.params.id);
    const endpoint = whep.getEndpoint({ id: req.params.id });
    if (!sim || !endpoint || !whep.janus) return next();
    let feeds;
    try {
      feeds = (await participants(sim.room)).filter((p) => p.publisher);
    } catch (err) {
      res.status(503).send(`listparticipants failed: ${err?.message ?? err}`);
      return;
    }
    if (feeds.length !== 1) {
      res.status(409).send(`room ${sim.room} has ${feeds.length} publishers (one expected)`);
      return;
    }
    // janode names a participant's ID `feed`
    endpoint.feed = feeds[0].feed;
    for (const name of ["writeHead", "writeHeader"]) {
      const original = res[name];
      res[name] = function (...args) {
        const location = res.getHeader("Location");
        if (typeof location === "string") res.setHeader("Link", `<${location}/layer>; rel="${LAYER_REL}"`);
        return original.apply(this, args);
      };
    }
    next();
  });

  // the layer extension: {"mediaId":"0","encodingId":"<rid>"}, or {} for the default (highest)
  app.post("/whep/resource/:uuid/layer", express.json(), async (req, res) => {
    const subscriber = whep.subscribers.get(req.params.uuid);
    const sim = subscriber ? simulcast.get(subscriber.whepId) : undefined;
    if (!subscriber?.handle || !sim) {
      res.status(404).send("Invalid resource ID");
      return;
    }
    const b = req.body && typeof req.body === "object" ? req.body : {};
    const empty = b.mediaId === undefined && b.encodingId === undefined;
    const layer = empty ? sim.layers.length - 1 : sim.layers.indexOf(b.encodingId);
    if (!empty && (b.mediaId !== "0" || layer < 0)) {
      res.status(400).send("unknown mediaId or encodingId");
      return;
    }
    // Janus's numbering (highest first, see above): the first rid listed is substream n-1
    const substream = sim.layers.length - 1 - layer;
    const video = (subscriber.handle.streams ?? []).find((s) => s.type === "video");
    const mid = video?.mid ?? "0";
    try {
      await subscriber.handle.message({ request: "configure", streams: [{ mid, substream }] });
      res.status(200).json({});
    } catch (err) {
      res.status(502).send(`configure failed: ${err?.message ?? err}`);
    }
  });
}
