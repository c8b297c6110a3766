// The instant a packet is handed to the socket, after werift's packet building and SRTP
// protection: the publisher's send instant (docs/definitions.md#send-instant) and the built-in
// relay's ground truth (bench:truth), with the relay's receive instants beside it. Through the
// werift seam's UDP transports (src/net/werift/transports.ts): werift's transport send calls the
// dgram socket's send synchronously; the socket resolves the literal address on the next tick
// (process.nextTick) and writes then. Where they are not as expected, nothing is hooked and the
// caller is told so.
import { monoNs } from "../core/clock/clock.ts";
import { enableRxStamps, rxStampMonoNs, socketFd } from "./kernel.ts";
import type { RTCRtpTransceiver } from "./werift/api.ts";
import {
  isMediaDatagram,
  localPort,
  receiveOf,
  sendOf,
  transceiverUdpTransports,
  wrapReceive,
  wrapSend,
} from "./werift/transports.ts";

/** One media datagram (SRTP or SRTCP) about to reach the socket: the datagram and the local port. */
export type SendTap = (data: Buffer, localPort: number) => void;

/**
 * Calls `tap` with every media datagram (first byte 128..191) the transceiver's ICE connection
 * sends: `before`, as the socket's send is called (the publisher: its send log entry must exist
 * before the packet can reach anyone); `written`, on the next tick after the socket's own, i.e.
 * just after the kernel took it (the relay's ground truth: a fan-out loop calls send for every leg
 * before any of them is written). Returns false when werift's internals did not match (no hook
 * installed). Call once the connection is up (its UDP transports exist).
 */
export function tapMediaSend(
  tr: RTCRtpTransceiver,
  tap: SendTap,
  when: "before" | "written" = "before",
): boolean {
  let hooked = 0;
  for (const t of transceiverUdpTransports(tr)) {
    if (sendOf(t) === null) continue;
    const port = localPort(t);
    wrapSend(t, (send) => (data, addr) => {
      if (!isMediaDatagram(data)) return send(data, addr);
      if (when === "before") {
        tap(data, port);
        return send(data, addr);
      }
      const out = send(data, addr);
      process.nextTick(tap, data, port);
      return out;
    });
    hooked++;
  }
  return hooked > 0;
}

/**
 * Calls `tap` with every media datagram the transceiver's ICE connection receives, at the
 * earliest point it reaches JavaScript (beneath werift's STUN parsing), before werift sees it,
 * with its arrival instant: the kernel's receive stamp where it can be had, else the reading then.
 * Returns false when werift's internals did not match. Call once the connection is up.
 */
export function tapMediaReceive(tr: RTCRtpTransceiver, tap: (data: Buffer, nowNs: number) => void): boolean {
  let hooked = 0;
  for (const t of transceiverUdpTransports(tr)) {
    if (receiveOf(t) === null) continue;
    // the kernel's receive stamp where it can be had (the relay's ground truth of the wire)
    const sock = socketFd(t.socket);
    const fd = enableRxStamps(sock) === null ? sock : -1;
    wrapReceive(t, (onData) => (data, addr) => {
      if (isMediaDatagram(data)) {
        const now = monoNs();
        const k = fd >= 0 ? rxStampMonoNs(fd, now) : -1;
        tap(data, k >= 0 ? k : now);
      }
      return onData(data, addr);
    });
    hooked++;
  }
  return hooked > 0;
}

/** An RTP (not RTCP) datagram: the second byte is not an RTCP packet type (192..223, RFC 5761). */
export function isRtpDatagram(d: Buffer): boolean {
  return d.length >= 12 && (d[1]! < 192 || d[1]! > 223);
}
