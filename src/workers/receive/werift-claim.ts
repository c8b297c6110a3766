// The source stage of a viewer's receive chain (chain.ts): its claim on the viewer's inbound
// media, through the werift seam (src/net/werift owns every werift internal this reaches and
// checks werift's version). werift keeps signalling, ICE (consent included), DTLS and the key
// export; when DTLS is up and SRTP starts on a transport a viewer claimed, the claim is asked for
// the head of the viewer's chain and media datagrams (core/wire/first-byte.ts) go to it: read in
// batches by the thread's arena reader (arena path: processed at once), or stamped and queued by
// the thread's intake beneath werift's STUN parsing on each UDP transport of the connection and on
// the connection's data event (lean and werift paths). On the lean paths werift's own media
// handler is captured instead of subscribed and the claim gets the SRTP profile and the remote
// master key and salt; on werift's, the head hands each datagram to werift's own dispatch. STUN
// and DTLS stay werift's. A miss in werift's internals is a WeriftInternalsError naming it; a
// werift other than WERIFT_VERSION fails test/unit/werift-seam.test.ts, and the first claim of a run.
import { socketFd } from "../../net/kernel.ts";
import type { RTCRtpTransceiver } from "../../net/werift/api.ts";
import { nativeRtcpSender } from "../../net/werift/rtcp-wire.ts";
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
import type { ViewerThread } from "../thread.ts";
import { readInArena } from "./arena-reader.ts";
import type { ReceiveStage } from "./stages.ts";

/** The remote side's SRTP keying, as werift exported it from the DTLS handshake. */
export type LeanKeys = RemoteSrtpKeys;

/**
 * A viewer's claim on its transport's inbound media. `lean`: DTLS is up, `start` returns the head
 * of the chain every media datagram of the ICE connection then goes to. `stamp` (werift's path):
 * `head` gets werift's own dispatch of a datagram and returns the head in front of it.
 */
export type Claim = LeanClaim | StampClaim;

interface ClaimBase {
  /** the thread whose intake, arena reader and socket sharing read the viewer's sockets */
  thread: ViewerThread;
}

export interface StampClaim extends ClaimBase {
  kind: "stamp";
  head(werift: (data: Buffer) => void): ReceiveStage;
}

export interface LeanClaim extends ClaimBase {
  kind: "lean";
  /** read the transport's sockets in batches into the thread's arena (arena-reader.ts) where that can run */
  arena: boolean;
  start(keys: LeanKeys, sendRtcp: (rtcp: Buffer) => void): ReceiveStage;
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
      const exec = dataDispatch(dtls);
      if (exec !== null) routeMedia(dtls, claim.head(exec), claim, exec);
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
  // RTCP out: SRTCP through OpenSSL on the pair's socket (rtcp-wire.ts), else werift's sendRtcp
  const native = nativeRtcpSender(dtls);
  const send = typeof native === "string" ? rtcpSender(dtls) : native;
  routeMedia(dtls, claim.start(keys, send), claim, dataDispatch(dtls));
}

/**
 * Media datagrams go to `head`, everything else where werift sends it, at once: first on the ICE
 * connection's data event (`exec`: werift's dispatch of it), then — to stamp before werift's STUN
 * parsing and two event dispatches per packet — on each UDP transport of the connection, stamped
 * and queued by the intake, or read by the arena reader (`arena`); a transport added later (ICE
 * restart) still reaches the event.
 */
function routeMedia(
  dtls: DtlsTransport,
  head: ReceiveStage,
  claim: Claim,
  exec: ((data: Buffer) => void) | null,
): void {
  const { intake, sharing, ownDrops } = claim.thread;
  if (exec === null) {
    subscribeData(dtls, (data) => intake.push(head, data, 0));
    return;
  }
  divertMediaEvents(dtls, (d) => intake.push(head, d, 0));
  const arena = claim.kind === "lean" && claim.arena;
  for (const t of dtlsUdpTransports(dtls)) {
    const onData = receiveOf(t);
    if (onData === null) continue;
    if (arena && readInArena(claim.thread, t, head, onData)) {
      sharing.observe(t);
      continue;
    }
    ownDrops.watch(t);
    // werift calls onData inside the socket's 'message' callback, before libuv reads the next
    // datagram: the socket's last receive stamp is this datagram's (intake.ts, kernel.ts)
    const fd = intake.stampFd(socketFd(t.socket));
    wrapReceive(t, () => (data, addr) => {
      if (isMediaDatagram(data)) intake.push(head, data, portOf(addr), fd);
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
