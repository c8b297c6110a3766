// One viewer leg of the built-in relay, and the LoseEvery fault: a packet lost beneath the
// leg's NACK responder, so the responder's resend of that sequence number repairs it.
import type { RTCRtpTransceiver } from "werift";
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

type SendRtp = (payload: Buffer, header: { sequenceNumber: number; ssrc: number }) => Promise<number>;

/**
 * Wraps the leg's DTLS transport so every n-th first transmission never reaches the wire while
 * the RTP sender still caches it; the sender's retransmission of that sequence number (on NACK)
 * goes through. werift's RTCRtpSender writes first sends and NACK resends through the same
 * `dtlsTransport.sendRtp`, which is what makes this possible.
 */
export function installLoss(leg: Leg, every: number): void {
  const dtls = leg.tr.dtlsTransport as unknown as { sendRtp: SendRtp };
  const send = dtls.sendRtp.bind(dtls);
  const lost = new Set<number>();
  let n = 0;
  dtls.sendRtp = (payload, header) => {
    // the video track's packets only: a bundled audio track shares the transport
    if (header.ssrc !== leg.tr.sender.ssrc) return send(payload, header);
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
