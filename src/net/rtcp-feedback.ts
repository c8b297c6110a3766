// Keyframe requests in a peer connection's inbound RTCP (RFC 4585 section 6.3.1 PLI, RFC 5104
// section 4.3.1 FIR): both are payload-specific feedback (packet type 206), told apart by their
// format (1 PLI, 4 FIR). Read from the DTLS transport's RTCP, every packet of a compound one,
// because werift's router hands a FIR (media SSRC 0) to no sender.

import type { KeyframeRequestKind } from "../core/clip/keyframe-requests.ts";
import {
  type RTCRtpTransceiver,
  type RtcpPacket,
  RtcpPayloadSpecificFeedback,
  RtcpTransportLayerFeedback,
} from "./werift/api.ts";

const PLI_FORMAT = 1;
const FIR_FORMAT = 4;

/** The keyframe request an RTCP packet carries, or null. */
export function keyframeRequestOf(p: RtcpPacket): KeyframeRequestKind | null {
  if (p.type !== RtcpPayloadSpecificFeedback.type) return null;
  const count = (p as RtcpPayloadSpecificFeedback).feedback.count;
  return count === PLI_FORMAT ? "pli" : count === FIR_FORMAT ? "fir" : null;
}

/** RTPFB (205) with FMT 15: transport-wide feedback (draft-holmer-rmcat-transport-wide-cc-extensions-01). */
const TRANSPORT_FEEDBACK_FORMAT = 15;

/**
 * Calls `on` for every transport feedback message that reaches the transceiver's transport, with
 * the packets it reports received (those with a receive delta) and not received (the rest of its
 * status count); returns the unsubscribe.
 */
export function onTransportFeedback(
  tr: RTCRtpTransceiver,
  on: (received: number, lost: number) => void,
): () => void {
  const { unSubscribe } = tr.dtlsTransport.onRtcp.subscribe((p) => {
    if (p.type !== RtcpTransportLayerFeedback.type) return;
    const fb = (p as RtcpTransportLayerFeedback).feedback as {
      count: number;
      packetStatusCount?: number;
      recvDeltas?: unknown[];
    };
    if (fb.count !== TRANSPORT_FEEDBACK_FORMAT) return;
    const received = fb.recvDeltas?.length ?? 0;
    on(received, Math.max(0, (fb.packetStatusCount ?? received) - received));
  });
  return unSubscribe;
}

/**
 * The SSRC a keyframe request names: a PLI's media source, a FIR's first entry (RFC 5104 leaves a
 * FIR's media source 0); 0 when it names none.
 */
export function keyframeRequestSsrc(p: RtcpPacket): number {
  if (p.type !== RtcpPayloadSpecificFeedback.type) return 0;
  // werift's PictureLossIndication and FullIntraRequest (the latter not exported by name)
  const f = (p as RtcpPayloadSpecificFeedback).feedback as {
    count: number;
    mediaSsrc?: number;
    fir?: { ssrc: number }[];
  };
  if (f.count === FIR_FORMAT) return f.fir?.[0]?.ssrc ?? 0;
  return f.mediaSsrc ?? 0;
}

/**
 * Calls `on` with every keyframe request that reaches the transceiver's transport and the SSRC it
 * names (keyframeRequestSsrc); returns the unsubscribe.
 */
export function onKeyframeRequest(
  tr: RTCRtpTransceiver,
  on: (kind: KeyframeRequestKind, mediaSsrc: number) => void,
): () => void {
  const { unSubscribe } = tr.dtlsTransport.onRtcp.subscribe((p) => {
    const kind = keyframeRequestOf(p);
    if (kind !== null) on(kind, keyframeRequestSsrc(p));
  });
  return unSubscribe;
}
