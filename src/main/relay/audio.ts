// The built-in relay's audio track (docs/definitions.md#built-in-relay): a publisher's Opus track is
// forwarded to every viewer leg that offered audio, with the same sequence number and timestamp
// (as the video is), no header extension and none of the video's fault knobs. A leg's audio
// transceiver sends only when the stream has audio; otherwise it is inactive. With the tests'
// burst, audio starts with the video's burst and each leg gets the same number of audio packets.
import { RelayOfferError } from "../../core/errors.ts";
import { type MediaStreamTrack, type RTCPeerConnection, RtpHeader, RtpPacket } from "../../net/werift/api.ts";
import type { Stream } from "./forward.ts";
import type { RelayOptions } from "./options.ts";

/** The publisher's track is audio: forward it to the legs; returns false for a video track. */
export function receiveAudio(stream: Stream, track: MediaStreamTrack, opts: RelayOptions): boolean {
  if (track.kind !== "audio") return false;
  stream.audio = true;
  const limit = opts.test?.burst?.packets ?? Number.POSITIVE_INFINITY;
  track.onReceiveRtp.subscribe((rtp) => {
    if (opts.test?.burst !== undefined && stream.burst?.opened !== true) return;
    const h = rtp.header;
    for (const leg of stream.legs) {
      const tr = leg.audioTr;
      if (!leg.sending || tr === undefined || (leg.audioForwarded ?? 0) >= limit) continue;
      leg.audioForwarded = (leg.audioForwarded ?? 0) + 1;
      const header = new RtpHeader({
        sequenceNumber: h.sequenceNumber,
        timestamp: h.timestamp,
        marker: h.marker,
        payloadType: h.payloadType,
      });
      tr.sender.sendRtp(new RtpPacket(header, rtp.payload)).catch(() => {});
    }
  });
  return true;
}

/** Every transceiver of a publisher's offer receives; throws when the offer has no video. */
export function receiveAll(pc: RTCPeerConnection): void {
  if (!pc.getTransceivers().some((t) => t.kind === "video"))
    throw new RelayOfferError("no video in the offer");
  for (const t of pc.getTransceivers()) t.setDirection("recvonly");
}

/**
 * A viewer offer's audio transceiver: sending when the stream has audio, else inactive; undefined
 * when it offered none.
 */
export function legAudio(pc: RTCPeerConnection, stream: Stream) {
  const tr = pc.getTransceivers().find((t) => t.kind === "audio");
  tr?.setDirection(stream.audio === true ? "sendonly" : "inactive");
  return tr;
}
