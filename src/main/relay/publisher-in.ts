// The built-in relay's publisher side (docs/definitions.md#built-in-relay): the publisher's video
// track forwarded to the legs (forward.ts), its audio to the legs that offered audio (audio.ts).
// A simulcast publisher (RFC 8853: `a=simulcast:send` naming its rids) sends several layers on one
// video section; every layer's packets go to forward(), which gives each leg the one layer it takes
// (docs/definitions.md#relay-layer-choice): the highest — the last rid the offer names, as browsers
// list their layers lowest first — until its viewer chooses. The leg's sender writes the leg's own
// SSRC over the layer's, and a switch rewrites sequence numbers and timestamps, so the leg is one
// stream.
import { ABS_CAPTURE_TIME_URI } from "../../net/rtc.ts";
import type { MediaStreamTrack, RTCPeerConnection } from "../../net/werift/api.ts";
import { receiveAudio } from "./audio.ts";
import type { CapacityGate } from "./capacity.ts";
import { forward, type Stream } from "./forward.ts";
import type { RelayOptions } from "./options.ts";
import type { RelaySend } from "./send-path.ts";

/** The publisher's tracks: audio to audio.ts, video (every layer's, with simulcast) to forward. */
export function receivePublisher(
  stream: Stream,
  pc: RTCPeerConnection,
  opts: RelayOptions,
  gate: CapacityGate | null,
  send: RelaySend,
): void {
  pc.onTrack.subscribe((first) => {
    if (receiveAudio(stream, first, opts)) return;
    const tr = pc.getTransceivers().find((t) => t.kind === "video");
    const mime = (first.codec?.mimeType ?? tr?.codecs[0]?.mimeType ?? "").toLowerCase();
    stream.codec = mime === "video/h264" ? "h264" : "vp8";
    // werift announces a simulcast receiver's first rid's track only: the others are its siblings
    const layers = stream.layers;
    const tracks: MediaStreamTrack[] =
      layers === undefined
        ? [first]
        : (tr?.receiver.tracks ?? []).filter((t) => t.rid !== undefined && layers.rids.includes(t.rid));
    for (const track of tracks) {
      const rid = layers === undefined ? null : (track.rid ?? null);
      track.onReceiveRtp.subscribe((rtp, ext) => {
        if (layers !== undefined && rid !== null) layers.ssrcs.set(rid, rtp.header.ssrc);
        // with simulcast the stream is ready once the layer a leg starts on arrives
        if (!stream.ready && (layers === undefined || layers.ssrcs.has(layers.forwarded))) {
          stream.ready = true;
          for (const w of stream.readyWaiters.splice(0)) w();
        }
        forward(stream, rtp, ext?.[ABS_CAPTURE_TIME_URI], opts, gate, send, false, rid);
      });
    }
  });
}
