// The lean receive path's claim on a viewer's inbound media, through the werift seam
// (src/net/werift owns every werift internal this reaches and checks werift's version). werift
// keeps signalling, ICE (consent included), DTLS and the key export; when DTLS is up and SRTP
// starts on a transport a viewer claimed, werift's own media handler is captured instead of
// subscribed to the ICE connection's data event, the claim gets the SRTP profile and the remote
// master key and salt, and media datagrams (first byte 128..191) are routed to the claim's
// handler: on the connection's data event, and beneath werift's STUN parsing on each UDP
// transport of the connection (routeMedia), or read in batches by the thread's arena reader (the
// arena path). STUN and DTLS stay werift's. A miss in werift's internals is a
// WeriftInternalsError naming it; a werift other than WERIFT_VERSION fails
// test/unit/werift-seam.test.ts, and the first claim of a run.
import { socketFd } from "../../net/kernel.ts";
import type { RTCRtpTransceiver } from "../../net/werift/api.ts";
import {
  aroundStartSrtp,
  type DtlsTransport,
  dataDispatch,
  divertMediaEvents,
  dtlsBeforeSrtp,
  dtlsOf,
  type RemoteSrtpKeys,
  remoteSrtpKeys,
  rtcpSender,
  startWithoutMediaHandler,
  subscribeData,
} from "../../net/werift/srtp-start.ts";
import { dtlsUdpTransports, isMediaDatagram, receiveOf, wrapReceive } from "../../net/werift/transports.ts";
import { WeriftInternalsError } from "../../net/werift/version.ts";
import { ownDrops } from "../own-drops.ts";
import { readInArena } from "./arena-reader.ts";
import { type DatagramHandler, intake } from "./intake.ts";
import { sharing } from "./socket-sharing.ts";

/** The remote side's SRTP keying, as werift exported it from the DTLS handshake. */
export type LeanKeys = RemoteSrtpKeys;

/**
 * A viewer's claim on its transport's inbound media. `lean`: DTLS is up, `start` returns the
 * handler every media datagram of the ICE connection then goes to (stamped first, intake.ts).
 * `stamp`: werift keeps its own receive path, but its media datagrams are stamped first and
 * reach werift from the intake's queue (`intake.dispatchingArrivalNs` holds the stamp meanwhile).
 */
export type Claim = LeanClaim | StampClaim;

/** `wrap`: around the handler stamped media datagrams reach (the emulated downlink, workers/link.ts). */
type Wrap = (h: DatagramHandler) => DatagramHandler;
type ClaimBase = { wrap?: Wrap };

export interface StampClaim extends ClaimBase {
  kind: "stamp";
}

export interface LeanClaim extends ClaimBase {
  kind?: "lean";
  /** read the transport's sockets in batches into the thread's arena (arena-reader.ts) where that can run */
  arena?: boolean;
  start(keys: LeanKeys, sendRtcp: (rtcp: Buffer) => void): DatagramHandler;
  /** the hook could not take over (werift internals moved); the transport stays on werift's path */
  fail(err: WeriftInternalsError): void;
}

const claims = new WeakMap<DtlsTransport, Claim>();

/**
 * Installs the hook on werift's startSrtp (once per thread, after the seam checked werift's
 * version and the prototype). Throws WeriftInternalsError on any mismatch.
 */
function hookStartSrtp(): void {
  aroundStartSrtp((dtls, start) => {
    const claim = claims.get(dtls);
    if (claim === undefined) {
      start();
      return;
    }
    claims.delete(dtls);
    if (claim.kind === "stamp") {
      start();
      routeMedia(dtls, null, claim);
      return;
    }
    takeOver(dtls, claim, start);
  });
}

function takeOver(dtls: DtlsTransport, claim: LeanClaim, start: () => void): void {
  // capture the one handler werift's startSrtp subscribes, for this call only
  const captured = startWithoutMediaHandler(dtls, start);
  if (typeof captured === "string") {
    claim.fail(new WeriftInternalsError(captured));
    start();
    return;
  }
  if (captured !== 1) {
    claim.fail(
      new WeriftInternalsError(`startSrtp subscribed ${captured} data handlers, expected exactly 1`),
    );
    return;
  }
  const keys = remoteSrtpKeys(dtls);
  if (typeof keys === "string") {
    claim.fail(new WeriftInternalsError(keys));
    return;
  }
  routeMedia(dtls, claim.start(keys, rtcpSender(dtls)), claim);
}

/**
 * Media datagrams are stamped and queued (intake.ts), then go to `handler` — or, for werift's
 * own path (`handler` null), to werift's dispatch on the connection's data event; everything
 * else goes where werift sends it, at once. First on the ICE connection's data event, then — to
 * stamp before werift's STUN parsing and two event dispatches per packet — on each UDP transport
 * of the connection; a transport added later (ICE restart) still reaches the event. With `arena`,
 * the arena reader reads them.
 */
function routeMedia(dtls: DtlsTransport, handler: DatagramHandler | null, claim: Claim): void {
  const exec = dataDispatch(dtls);
  const own: DatagramHandler = handler ?? ((data) => exec?.(data));
  const to = claim.wrap?.(own) ?? own;
  if (exec === null) {
    if (handler !== null) subscribeData(dtls, (data) => intake.push(to, data, 0));
    return;
  }
  divertMediaEvents(dtls, (d) => intake.push(to, d, 0));
  const arena = claim.kind !== "stamp" && claim.arena === true;
  for (const t of dtlsUdpTransports(dtls)) {
    const onData = receiveOf(t);
    if (onData === null) continue;
    if (arena && readInArena(t, to, onData)) {
      sharing.observe(t);
      continue;
    }
    ownDrops.watch(t);
    // werift calls onData inside the socket's 'message' callback, before libuv reads the next
    // datagram: the socket's last receive stamp is this datagram's (intake.ts, kernel.ts)
    const fd = intake.stampFd(socketFd(t.socket));
    wrapReceive(t, () => (data, addr) => {
      if (isMediaDatagram(data)) intake.push(to, data, portOf(addr), fd);
      else onData(data, addr);
    });
  }
}

/** The sender's port from werift's [address, port] pair, 0 when not one. */
function portOf(addr: unknown): number {
  const port = Array.isArray(addr) ? addr[1] : undefined;
  return typeof port === "number" ? port : 0;
}

/** The claim takes this transceiver's inbound media once its DTLS transport starts SRTP. */
export function claimMedia(tr: RTCRtpTransceiver, claim: Claim): void {
  hookStartSrtp();
  claims.set(dtlsBeforeSrtp(tr), claim);
}

/** Withdraws a claim that never started (the viewer ended before DTLS). */
export function releaseMedia(tr: RTCRtpTransceiver): void {
  const dtls = dtlsOf(tr);
  if (dtls !== undefined) claims.delete(dtls);
}

/** RTCP out through werift's public sendRtcp, for the werift path's NACKs. */
export function transceiverRtcpSender(tr: RTCRtpTransceiver): (rtcp: Buffer) => void {
  const dtls = dtlsOf(tr);
  if (dtls === undefined) throw new WeriftInternalsError("the transceiver has no DTLS transport yet");
  return rtcpSender(dtls);
}
