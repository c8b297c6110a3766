// A simulcast layer's RTP on a send-only transceiver (docs/definitions.md#simulcast-publisher),
// beneath werift's RTCRtpSender: werift 0.25's sender writes its one SSRC, its own sequence and
// timestamp offsets and its own extensions into every packet (its simulcast send is marked
// unsupported), so a layer's packet goes to the transceiver's RTCDtlsTransport.sendRtp as it is:
// SRTP-protected with the transport's context (one state per SSRC) and written to the ICE
// connection, the call werift's sender ends with. No NACK resend and no sender report for it.
import type { RTCRtpTransceiver, RtpHeader } from "./api.ts";
import type { SendRtp } from "./patches.ts";

/** The transceiver's own RTP write beneath its sender: (payload, header) → bytes written (0: failed). */
export function layerSend(tr: RTCRtpTransceiver): SendRtp {
  const dtls = tr.dtlsTransport as unknown as { sendRtp: SendRtp };
  return (payload: Buffer, header: RtpHeader) => dtls.sendRtp(payload, header);
}
