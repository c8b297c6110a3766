// The source of a viewer's receive chain (chain.ts): its claim on the viewer's inbound media,
// through the werift seam (src/net/werift owns every werift internal this reaches and checks
// werift's version). werift keeps signalling, ICE (consent included), DTLS and the key export.
// The claim waits on the viewer's own DTLS transport (its startSrtp wrapped on that transport,
// no state of this module's); when DTLS is up and SRTP starts, the claim is asked for the head of
// the viewer's chain and media datagrams (core/wire/first-byte.ts) go to it: read in batches by
// the thread's arena reader (arena path: processed at once), or stamped and queued by the
// thread's intake beneath werift's STUN parsing on each UDP transport of the connection and on the
// connection's data event (lean and werift paths). Where we unprotect (lean and arena paths)
// werift's own media handler is captured instead of subscribed and the claim gets the SRTP
// profile and the remote master key and salt; where werift does, the head hands each datagram to
// werift's own dispatch. STUN and DTLS stay werift's. A miss in werift's internals is a
// WeriftInternalsError naming it; a werift other than WERIFT_VERSION fails
// test/unit/werift-seam.test.ts, and the first claim of a run.
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
  remoteSrtpKeys,
  rtcpSender,
  startWithoutMediaHandler,
  subscribeData,
} from "../../net/werift/srtp-start.ts";
import { dtlsUdpTransports, isMediaDatagram, receiveOf, wrapReceive } from "../../net/werift/transports.ts";
import { type WeriftInternalsError, weriftInternals } from "../../net/werift/version.ts";
import type { ViewerThread } from "../thread.ts";
import { readInArena } from "./arena-reader.ts";
import type { ReceiveStage, SrtpStart } from "./stages.ts";

/**
 * A viewer's claim on its transport's inbound media: when SRTP starts, `head` is given what the
 * start brought (stages.ts SrtpStart: the remote keys where `srtp` is ours, werift's dispatch
 * where it is werift's) and returns the head of the chain every media datagram of the ICE
 * connection then goes to.
 */
export interface MediaClaim {
  /** the thread whose intake, arena reader and socket sharing read the viewer's sockets */
  thread: ViewerThread;
  /** who unprotects: we (werift's media handler captured) or werift */
  srtp: "ours" | "werift";
  /** read the transport's sockets in batches into the thread's arena where that can run (ours only) */
  arena: boolean;
  head(start: SrtpStart): ReceiveStage;
  /** our SRTP could not take over (werift internals moved); the transport stays on werift's path */
  fail(err: WeriftInternalsError): void;
}

function started(dtls: DtlsTransport, claim: MediaClaim, start: () => void): void {
  if (claim.srtp === "werift") {
    start();
    const dispatch = dataDispatch(dtls);
    const head = claim.head({ srtp: "werift", dispatch, sendRtcp: rtcpSender(dtls) });
    if (dispatch !== null) routeMedia(dtls, head, claim, dispatch);
    return;
  }
  // capture the one handler werift's startSrtp subscribes, for this call only
  const captured = startWithoutMediaHandler(dtls, start);
  if (typeof captured === "string") {
    claim.fail(weriftInternals(captured));
    start();
    return;
  }
  if (captured !== 1) {
    claim.fail(weriftInternals(`startSrtp subscribed ${captured} data handlers, expected exactly 1`));
    return;
  }
  const keys = remoteSrtpKeys(dtls);
  if (typeof keys === "string") {
    claim.fail(weriftInternals(keys));
    return;
  }
  // RTCP out: SRTCP through OpenSSL on the pair's socket (rtcp-wire.ts), else werift's sendRtcp
  const native = nativeRtcpSender(dtls);
  const sendRtcp = typeof native === "string" ? rtcpSender(dtls) : native;
  claim.thread.rtcpSendChosen(typeof native === "string" ? native : null);
  routeMedia(dtls, claim.head({ srtp: "ours", keys, sendRtcp }), claim, dataDispatch(dtls));
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
  claim: MediaClaim,
  exec: ((data: Buffer) => void) | null,
): void {
  const { intake, sharing, ownDrops } = claim.thread;
  if (exec === null) {
    subscribeData(dtls, (data) => intake.push(head, data, 0));
    return;
  }
  divertMediaEvents(dtls, (d) => intake.push(head, d, 0));
  const arena = claim.srtp === "ours" && claim.arena;
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

/**
 * The claim takes this transceiver's inbound media once its DTLS transport starts SRTP (the
 * claim waits on that transport itself, nowhere else); returns its withdrawal, for a viewer that
 * ends before DTLS. Throws WeriftInternalsError.
 */
export function claimMedia(tr: RTCRtpTransceiver, claim: MediaClaim): () => void {
  const dtls = dtlsBeforeSrtp(tr);
  return aroundStartSrtp(dtls, (start) => started(dtls, claim, start));
}

/** RTCP out through werift's public sendRtcp, for the werift path's NACKs. */
export function transceiverRtcpSender(tr: RTCRtpTransceiver): (rtcp: Buffer) => void {
  const dtls = dtlsOf(tr);
  if (dtls === undefined) throw weriftInternals("the transceiver has no DTLS transport yet");
  return rtcpSender(dtls);
}
