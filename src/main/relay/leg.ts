// One viewer leg of the built-in relay, its peer, and the LoseEvery fault: a packet lost beneath
// the leg's NACK responder, so the responder's resend of that sequence number repairs it (werift's
// responder on the werift send path, the native fan-out's on the native one: native.ts). A leg
// negotiates transport-cc and rtx as a browser's server does: each packet it sends carries the
// leg's next transport-wide sequence number, a resend goes out on RTX, and the transport feedback
// the viewer sends is counted (docs/definitions.md#built-in-relay).
import type { LayerSwitch } from "../../core/relay/layer-switch.ts";
import type { LegEstimate } from "../../core/relay/leg-estimate.ts";
import { LossEvery } from "../../core/relay/loss-every.ts";
import {
  ABS_CAPTURE_TIME_URI,
  type IceOptions,
  newPeer,
  TRANSPORT_CC_URI,
  videoCodecs,
} from "../../net/rtc.ts";
import type { RTCPeerConnection, RTCRtpTransceiver } from "../../net/werift/api.ts";
import { type SendRtp, wrapSendRtp } from "../../net/werift/patches.ts";
import type { FrameCuts } from "./frame-cuts.ts";
import type { LegFaultState } from "./leg-faults.ts";
import type { LegLinkSend } from "./link-send.ts";
import type { NativeLeg } from "./native.ts";

export interface Leg {
  tr: RTCRtpTransceiver;
  /** the leg's audio transceiver, when the viewer offered audio (audio.ts) */
  audioTr?: RTCRtpTransceiver | undefined;
  /** audio packets sent to this leg (the tests' burst limits them) */
  audioForwarded?: number;
  /** negotiated abs-capture-time id on this leg, 0 when not negotiated */
  absId: number;
  /** RTCP transport feedback messages (transport-cc) the viewer sent on this leg */
  feedback: number;
  sending: boolean;
  /** packets offered to this leg, for DropEvery */
  forwarded: number;
  /** test-only fault of this leg (RelayTestHooks.legFaults) */
  fault?: LegFaultState;
  /** what DropEvery cut from this leg (set when the relay drops) */
  cuts?: FrameCuts;
  /** packets offered to this leg while the relay was over its --capacity (capacity.ts) */
  overCapacity?: number;
  /** LoseEvery's state on this leg (either send path applies it) */
  loss?: LossEvery;
  /** the native fan-out's side of this leg, once it took the leg's video over (native.ts) */
  native?: NativeLeg;
  /** a relay thread sends this leg's video (threads.ts) */
  threaded?: boolean;
  /** the leg's impaired link, every datagram the relay sends it (RelayOptions.link; link-send.ts) */
  link?: LegLinkSend;
  /** the simulcast layer the leg takes and its rewrite (docs/definitions.md#relay-layer-choice) */
  layer?: LayerSwitch;
  /** the viewer chose the leg's layer through the extension (layer-ext.ts): the estimate leaves it */
  chosen?: boolean;
  /** the leg's bandwidth estimate, with RelayOptions.layerEstimate (layer-estimate.ts) */
  estimate?: LegEstimate;
}

/**
 * A viewer leg's peer: the stream's codec with transport-cc and its rtx, abs-capture-time and the
 * transport-wide sequence number.
 */
export function legPeer(ice: IceOptions, codec: "vp8" | "h264"): RTCPeerConnection {
  const codecs = videoCodecs(codec, { transportCc: true, rtx: true });
  return newPeer(ice, codecs, [ABS_CAPTURE_TIME_URI, TRANSPORT_CC_URI]);
}

/**
 * Wraps the leg's RTP send so every n-th first transmission never reaches the wire while the RTP
 * sender still caches it; the sender's retransmission of that sequence number (on NACK) goes
 * through: werift writes first sends and NACK resends through the same call (wrapSendRtp).
 */
export function installLoss(leg: Leg, every: number): void {
  const loss = new LossEvery(every);
  leg.loss = loss;
  const videoSsrc = leg.tr.sender.ssrc;
  wrapSendRtp(leg.tr, (send) => lossySend(send, loss, videoSsrc));
}

function lossySend(send: SendRtp, loss: LossEvery, videoSsrc: number): SendRtp {
  return (payload, header) => {
    // the video track's packets only: a bundled audio track shares the transport
    if (header.ssrc !== videoSsrc || loss.pass(header.sequenceNumber)) return send(payload, header);
    return Promise.resolve(0);
  };
}
