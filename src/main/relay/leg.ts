// One viewer leg of the built-in relay, and the LoseEvery fault: a packet lost beneath the
// leg's NACK responder, so the responder's resend of that sequence number repairs it.
import type { RTCRtpTransceiver } from "../../net/werift/api.ts";
import { type SendRtp, wrapSendRtp } from "../../net/werift/patches.ts";
import type { FrameCuts } from "./frame-cuts.ts";
import type { LegFaultState } from "./leg-faults.ts";

export interface Leg {
  tr: RTCRtpTransceiver;
  /** the leg's audio transceiver, when the viewer offered audio (audio.ts) */
  audioTr?: RTCRtpTransceiver | undefined;
  /** audio packets sent to this leg (the tests' burst limits them) */
  audioForwarded?: number;
  /** negotiated abs-capture-time id on this leg, 0 when not negotiated */
  absId: number;
  sending: boolean;
  /** packets offered to this leg, for DropEvery */
  forwarded: number;
  /** test-only fault of this leg (RelayTestHooks.legFaults) */
  fault?: LegFaultState;
  /** what DropEvery cut from this leg (set when the relay drops) */
  cuts?: FrameCuts;
  /** packets offered to this leg while the relay was over its --capacity (capacity.ts) */
  overCapacity?: number;
}

/**
 * Wraps the leg's RTP send so every n-th first transmission never reaches the wire while the RTP
 * sender still caches it; the sender's retransmission of that sequence number (on NACK) goes
 * through: werift writes first sends and NACK resends through the same call (wrapSendRtp).
 */
export function installLoss(leg: Leg, every: number): void {
  wrapSendRtp(leg.tr, (send) => lossySend(send, every, leg.tr.sender.ssrc));
}

function lossySend(send: SendRtp, every: number, videoSsrc: number): SendRtp {
  const lost = new Set<number>();
  let n = 0;
  return (payload, header) => {
    // the video track's packets only: a bundled audio track shares the transport
    if (header.ssrc !== videoSsrc) return send(payload, header);
    const seq = header.sequenceNumber;
    if (lost.delete(seq)) return send(payload, header);
    n++;
    if (n % every === 0) {
      lost.add(seq);
      if (lost.size > 1024) lost.clear();
      return Promise.resolve(0);
    }
    return send(payload, header);
  };
}
