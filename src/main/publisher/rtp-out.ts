// One RTP packet out through a transceiver's sender, counted once werift wrote it; a write that
// fails (a closing connection) is skipped, not counted (docs/definitions.md#publisher-pacing).
import { type RTCRtpTransceiver, type RtpHeader, RtpPacket } from "../../net/werift/api.ts";

export async function sendCounted(
  tr: RTCRtpTransceiver,
  header: RtpHeader,
  payload: Uint8Array,
  counts: { packetsSent: number; bytesSent: number },
): Promise<void> {
  try {
    await tr.sender.sendRtp(
      new RtpPacket(header, Buffer.from(payload.buffer, payload.byteOffset, payload.length)),
    );
    counts.packetsSent++;
    counts.bytesSent += payload.length;
  } catch {
    // a closing connection: skip the write
  }
}
