// What of the server's handshake reaches a viewer (docs/definitions.md#error-kinds,
// `client_handshake`): ICE's state, the STUN binding success responses and DTLS datagrams that
// arrive on the peer's UDP transports before the viewer connected, and whether its own DTLS
// handshake finished (a failure after that, such as a wrong fingerprint, is the server's).
// Installed after ICE gathering and before the emulated link (so a datagram the link drops never
// counts as arrived); each datagram costs a look at its first two bytes until the peer connects.
import type { RTCPeerConnection } from "../../net/werift/api.ts";
import { onDtlsHandshakeDone } from "../../net/werift/patches.ts";
import { peerUdpTransports, wrapReceive } from "../../net/werift/transports.ts";
import type { HandshakeSeen } from "./viewer-errors.ts";

/** A fresh record of what the server's handshake sent, nothing yet. */
export function handshakeSeen(): HandshakeSeen {
  return { iceConnected: false, stunResponses: 0, dtlsDatagrams: 0, dtlsDone: false };
}

/** Counts into `seen` until the peer connects (`done` says when). */
export function watchHandshake(pc: RTCPeerConnection, seen: HandshakeSeen, done: () => boolean): void {
  onDtlsHandshakeDone(pc, () => {
    seen.dtlsDone = true;
  });
  pc.iceConnectionStateChange.subscribe((state) => {
    if (state === "connected" || state === "completed") seen.iceConnected = true;
  });
  for (const t of peerUdpTransports(pc)) {
    wrapReceive(t, (own) => (data, addr) => {
      if (!done() && data.length > 1) {
        const b = data[0]!;
        // STUN binding success response: message type 0x0101 (RFC 8489)
        if (b === 0x01 && data[1] === 0x01) seen.stunResponses++;
        else if (b >= 20 && b <= 63) seen.dtlsDatagrams++;
      }
      own(data, addr);
    });
  }
}
