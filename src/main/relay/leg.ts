// One viewer leg of the built-in relay, and the LoseEvery fault: a packet lost beneath the
// leg's NACK responder, so the responder's resend of that sequence number repairs it (werift's
// responder on the werift send path, the native fan-out's on the native one: native.ts).
import type { RTCRtpTransceiver } from "../../net/werift/api.ts";
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
}

/** LoseEvery on one leg: every n-th first transmission is lost; a resend of a lost one goes through. */
export class LossEvery {
  private readonly every: number;
  private readonly lost = new Set<number>();
  private n = 0;

  constructor(every: number) {
    this.every = every;
  }

  /** Whether this send of `seq` reaches the wire. */
  pass(seq: number): boolean {
    if (this.lost.delete(seq)) return true;
    this.n++;
    if (this.n % this.every !== 0) return true;
    this.lost.add(seq);
    if (this.lost.size > 1024) this.lost.clear();
    return false;
  }
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
