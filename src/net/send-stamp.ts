// The instant a packet is handed to the socket, after werift's packet building and SRTP
// protection: the publisher's send instant (docs/definitions.md#send-instant) and the built-in
// relay's ground truth (bench:truth), with the relay's receive instants beside it. Through the
// werift seam's UDP transports (src/net/werift/transports.ts): werift's transport send calls the
// dgram socket's send synchronously; the socket resolves the literal address on the next tick
// (process.nextTick) and writes then. Where they are not as expected, nothing is hooked and the
// caller is told so.
import { monoNs } from "../core/clock/clock.ts";
import { TxCounter } from "../core/delay/tx-ids.ts";
import { isRtcp } from "../core/wire/first-byte.ts";
import { enableRxStamps, realToMonoNs, rxStampMonoNs, socketFd } from "./kernel.ts";
import { drainTxStamps, enableTxStamps, txStamps } from "./tx-stamp.ts";
import type { RTCRtpTransceiver } from "./werift/api.ts";
import {
  isMediaDatagram,
  localPort,
  receiveOf,
  sendOf,
  transceiverUdpTransports,
  type UdpTransport,
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
  return d.length >= 12 && !isRtcp(d);
}

/** The publisher's side of the kernel's transmit stamps (tapKernelSend). */
export interface KernelSendTap {
  /** a media datagram about to reach the socket, with its number (−1: not numbered, no stamp will come) */
  before(data: Buffer, id: number): void;
  /** a transmit stamp read back: the datagram's number, its instant (monotonic ns) and the reading's */
  stamped(id: number, stampNs: number, nowNs: number): void;
  /** why the kernel's stamps cannot be had on a transport's socket (called at most once per transport) */
  unavailable(why: string): void;
}

/** How often the error queue is read besides after each write (a stamp a device gives late). */
const SWEEP_MS = 100;
/** How long a datagram's stamp is looked for on the following loop turns before the sweep's turn. */
const CHASE_NS = 5e6;

/**
 * tapMediaSend's `before`, each datagram numbered as the kernel numbers it, and the kernel's
 * transmit stamps (src/net/tx-stamp.ts) read back from each UDP transport's socket right after
 * each write (the next tick after the socket's own, one per datagram), so the error queue is
 * empty before the loop polls again: libuv, which reads the socket, is woken by EPOLLERR while it
 * is not, and calls its read handler on every loop turn (a busy loop). A stamp not there yet (a
 * device that stamps later) is looked for on each following loop turn for CHASE_NS, then every
 * SWEEP_MS. Stamps start on a later loop turn, once the writes handed over before are done, so
 * both counts start together (`ready` resolves then). Returns whether anything was hooked, a
 * read of the error queues now, and the sweep's stop.
 */
export function tapKernelSend(
  tr: RTCRtpTransceiver,
  tap: KernelSendTap,
): { hooked: boolean; stop: () => void; readBack: () => void; ready: Promise<void> } {
  let hooked = 0;
  const drains: (() => void)[] = [];
  for (const t of transceiverUdpTransports(tr)) if (kernelSendTransport(t, tap, drains)) hooked++;
  // after each transport's own turn-on (immediates run in order)
  const ready = new Promise<void>((resolve) => setImmediate(resolve));
  const readBack = (): void => {
    for (const d of drains) d();
  };
  const sweep = setInterval(readBack, SWEEP_MS);
  sweep.unref();
  return { hooked: hooked > 0, stop: () => clearInterval(sweep), readBack, ready };
}

/**
 * One UDP transport of tapKernelSend: its sends numbered and tapped, its error queue read after
 * each write; its drain joins `drains` once the stamps are on (a loop turn later). False where it
 * has no send (nothing wrapped). Exported for the unit tests, which give it a dgram socket's.
 */
export function kernelSendTransport(t: UdpTransport, tap: KernelSendTap, drains: (() => void)[]): boolean {
  if (sendOf(t) === null) return false;
  const fd = socketFd(t.socket);
  const ids = new TxCounter();
  // the newest datagram handed over, when, and whether its stamp was read
  let last = -1;
  let lastNs = 0;
  let read = true;
  let chasing = false;
  const sink = (id: number, sec: number, nsec: number): void => {
    const now = monoNs();
    if (id === last) read = true;
    tap.stamped(id, realToMonoNs(sec, nsec, now), now);
  };
  const drain = (): void => {
    drainTxStamps(fd, sink);
    if (read || chasing || monoNs() - lastNs > CHASE_NS) return;
    chasing = true;
    setImmediate(chase);
  };
  const chase = (): void => {
    chasing = false;
    drain();
  };
  const a = txStamps();
  if (!a.ok) tap.unavailable(a.reason);
  else if (fd < 0) tap.unavailable("the socket's descriptor could not be read");
  else
    setImmediate(() => {
      const why = enableTxStamps(fd);
      if (why !== null) return tap.unavailable(why);
      ids.start();
      drains.push(drain);
    });
  wrapSend(t, (send) => (data, addr) => {
    const id = ids.hand();
    if (isMediaDatagram(data)) tap.before(data, id);
    const out = send(data, addr);
    if (id >= 0) {
      last = id;
      lastNs = monoNs();
      read = false;
      process.nextTick(drain);
    }
    return out;
  });
  return true;
}
