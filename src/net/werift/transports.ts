// The UDP transports beneath werift's ICE connections (werift 0.25.2 internals: IceConnection
// .protocols[].transport.{onData, send, socket, rinfo, close}, reached from a transceiver's
// dtlsTransport.iceTransport or a peer connection's iceTransports; RTCPeerConnection's private
// gatherCandidates, so an answerer's transports exist before it starts ICE) and the one way to wrap what
// they receive, send and close: the send instant's taps, the lean path's routing, the arena
// reader and the emulated links all go through these. Where a transport lacks what is wrapped,
// nothing is wrapped and the caller is told (false): each caller has its own fallback.
import type { Socket } from "node:dgram";
import type { RTCPeerConnection, RTCRtpTransceiver } from "werift";
import { isMedia } from "../../core/wire/first-byte.ts";

/** werift's handler of one datagram a UDP transport read: the bytes and werift's [address, port]. */
export type UdpReceive = (data: Buffer, addr: [string, number]) => void;
/** werift's send of one datagram over a UDP transport. */
export type UdpSend = (data: unknown, addr: unknown) => unknown;

/** One UDP transport of an ICE connection, as werift keeps it; every member may be missing. */
export interface UdpTransport {
  socket?: Socket;
  /** the source of the last datagram werift's transport read */
  rinfo?: { address?: string; port?: number };
  onData?: unknown;
  send?: unknown;
  close?: unknown;
}

/** An ICE connection as werift keeps it: its protocols, each with its UDP transport. */
type IceConnection = { protocols?: unknown } | undefined;

function fromConnection(conn: IceConnection, out: UdpTransport[]): UdpTransport[] {
  const protocols = conn?.protocols;
  if (!Array.isArray(protocols)) return out;
  for (const p of protocols) {
    const t = (p as { transport?: UdpTransport } | null)?.transport;
    if (t !== undefined) out.push(t);
  }
  return out;
}

/** The UDP transports of a DTLS transport's ICE connection; empty where werift's internals did not match. */
export function dtlsUdpTransports(dtls: unknown): UdpTransport[] {
  const ice = (dtls as { iceTransport?: { connection?: IceConnection } } | undefined)?.iceTransport;
  return fromConnection(ice?.connection, []);
}

/** The UDP transports of a transceiver's ICE connection; empty where werift's internals did not match. */
export function transceiverUdpTransports(tr: RTCRtpTransceiver): UdpTransport[] {
  return dtlsUdpTransports(tr.dtlsTransport);
}

/** The UDP transports of every ICE transport of a peer connection. */
export function peerUdpTransports(pc: RTCPeerConnection): UdpTransport[] {
  const out: UdpTransport[] = [];
  const ice = (pc as unknown as { iceTransports?: { connection?: IceConnection }[] }).iceTransports;
  for (const it of ice ?? []) fromConnection(it.connection, out);
  return out;
}

/** A Buffer whose first byte says SRTP or SRTCP (core/wire/first-byte.ts); werift hands `unknown`. */
export function isMediaDatagram(d: unknown): d is Buffer {
  return Buffer.isBuffer(d) && isMedia(d);
}

/**
 * Gathers the peer's candidates now, as werift's setLocalDescription would (it does not gather
 * again), so an answerer's UDP transports can be wrapped before its first connectivity check;
 * false where werift has no such method (nothing gathered, the caller wraps later).
 */
export async function gatherNow(pc: RTCPeerConnection): Promise<boolean> {
  const gather = (pc as unknown as { gatherCandidates?: unknown }).gatherCandidates;
  if (typeof gather !== "function") return false;
  await (gather as () => Promise<void>).call(pc);
  return true;
}

/** werift's own receive handler of the transport, or null where it has none. */
export function receiveOf(t: UdpTransport): UdpReceive | null {
  return typeof t.onData === "function" ? (t.onData as UdpReceive) : null;
}

/** werift's own send of the transport, or null where it has none. */
export function sendOf(t: UdpTransport): UdpSend | null {
  return typeof t.send === "function" ? (t.send as UdpSend) : null;
}

/** The transport receives through `wrap(werift's own handler)`; false (nothing wrapped) where it has none. */
export function wrapReceive(t: UdpTransport, wrap: (own: UdpReceive) => UdpReceive): boolean {
  const own = receiveOf(t);
  if (own === null) return false;
  t.onData = wrap(own);
  return true;
}

/** The transport sends through `wrap(werift's own send)`; false (nothing wrapped) where it has none. */
export function wrapSend(t: UdpTransport, wrap: (own: UdpSend) => UdpSend): boolean {
  const own = sendOf(t);
  if (own === null) return false;
  t.send = wrap(own);
  return true;
}

/** Whether the transport has werift's close, which beforeClose wraps. */
export function hasClose(t: UdpTransport): boolean {
  return typeof t.close === "function";
}

/** `before` runs as werift starts closing the transport; false (nothing wrapped) where it has no close. */
export function beforeClose(t: UdpTransport, before: () => void): boolean {
  const close = t.close;
  if (typeof close !== "function") return false;
  t.close = (...args: unknown[]) => {
    before();
    return (close as (...a: unknown[]) => unknown).apply(t, args);
  };
  return true;
}

/** The transport's bound local port, 0 when not bound. */
export function localPort(t: UdpTransport): number {
  try {
    return t.socket?.address?.().port ?? 0;
  } catch {
    return 0;
  }
}
