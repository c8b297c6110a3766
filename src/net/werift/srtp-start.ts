// The moment werift's DTLS is up and SRTP starts, and what a viewer's receive chain takes from it
// (werift 0.25.2 internals: RTCDtlsTransport's startSrtp, called once per transport as this.startSrtp()
// after the handshake and the fingerprint check, before any media is decrypted; .srtpStarted; .srtp
// .config (the SRTP profile, the remote master key and salt); .srtpProfiles; the ICE connection's
// data event (.iceTransport.connection.onData: its own subscribe and execute); and
// RTCRtpReceiver.nack.addPacket). Each is checked where it is used; a miss is a
// WeriftInternalsError naming it.

import type { RTCRtpTransceiver, RtcpPacket } from "werift";
import { isSrtpProfile, masterLengths, type SrtpProfile } from "../../core/srtp/kdf.ts";
import { isMediaDatagram } from "./transports.ts";
import { checkWeriftVersion, weriftInternals } from "./version.ts";

/** A DTLS transport as the seam hands it out: an identity to key claims on, opaque otherwise. */
export type DtlsTransport = object;

/** The remote side's SRTP keying, as werift exported it from the DTLS handshake. */
export interface RemoteSrtpKeys {
  profile: SrtpProfile;
  remoteMasterKey: Buffer;
  remoteMasterSalt: Buffer;
}

interface DataEvent {
  subscribe: (fn: (data: Buffer) => void) => unknown;
  execute?: (...args: unknown[]) => void;
}

interface DtlsInternals {
  iceTransport?: { connection?: { onData?: DataEvent } };
  srtp?: {
    config?: {
      profile?: unknown;
      keys?: Partial<Record<`${"local" | "remote"}Master${"Key" | "Salt"}`, unknown>>;
    };
  };
  srtpProfiles?: unknown;
  srtpStarted?: unknown;
  sendRtcp(packets: RtcpPacket[]): Promise<unknown>;
}

/**
 * Wraps one DTLS transport's startSrtp (an own property over werift's prototype method, so no
 * other transport and no module state is touched): `around(start)` runs in its place once,
 * `start` being werift's own on that transport. Returns the release, which puts werift's back
 * (it also goes back when SRTP starts). Throws WeriftInternalsError on a version other than
 * WERIFT_VERSION or a missing startSrtp.
 */
export function aroundStartSrtp(dtls: DtlsTransport, around: (start: () => void) => void): () => void {
  checkWeriftVersion();
  const d = dtls as { startSrtp?: unknown };
  const original = d.startSrtp;
  if (typeof original !== "function") throw weriftInternals("RTCDtlsTransport.startSrtp is missing");
  const own = Object.hasOwn(d, "startSrtp");
  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    if (own) d.startSrtp = original;
    else delete d.startSrtp;
  };
  d.startSrtp = function aroundStartSrtp(this: DtlsTransport): void {
    release();
    around(() => original.call(this));
  };
  return release;
}

/** The transceiver's DTLS transport while it has not started SRTP; throws WeriftInternalsError otherwise. */
export function dtlsBeforeSrtp(tr: RTCRtpTransceiver): DtlsTransport {
  const dtls = tr.dtlsTransport as unknown as DtlsInternals | undefined;
  if (dtls === undefined) throw weriftInternals("the transceiver has no DTLS transport yet");
  if (dtls.srtpStarted !== false) throw weriftInternals("SRTP already started on this transport");
  return dtls;
}

/** The transceiver's DTLS transport, if it has one. */
export function dtlsOf(tr: RTCRtpTransceiver): DtlsTransport | undefined {
  return tr.dtlsTransport as unknown as DtlsTransport | undefined;
}

function dataEvent(dtls: DtlsTransport): DataEvent | undefined {
  return (dtls as DtlsInternals).iceTransport?.connection?.onData;
}

/**
 * Runs werift's `start` (startSrtp) while capturing, instead of subscribing, the handlers it
 * subscribes to the ICE connection's data event: returns how many it subscribed (1 in werift
 * 0.25.2: its media handler), or, without running `start`, what is missing.
 */
export function startWithoutMediaHandler(dtls: DtlsTransport, start: () => void): number | string {
  const ev = dataEvent(dtls);
  if (ev === undefined || typeof ev.subscribe !== "function")
    return "iceTransport.connection.onData.subscribe is missing";
  const own = Object.hasOwn(ev, "subscribe");
  const subscribe = ev.subscribe;
  let captured = 0;
  ev.subscribe = () => {
    captured++;
    return { unSubscribe: () => {}, disposer: () => {} };
  };
  try {
    start();
  } finally {
    if (own) ev.subscribe = subscribe;
    else delete (ev as Partial<DataEvent>).subscribe;
  }
  return captured;
}

/**
 * The profile and remote master key and salt werift exported from the handshake, or what is wrong
 * with them.
 */
export function remoteSrtpKeys(dtls: DtlsTransport): RemoteSrtpKeys | string {
  const k = srtpKeys(dtls, "remote");
  return typeof k === "string" ? k : { profile: k.profile, remoteMasterKey: k.key, remoteMasterSalt: k.salt };
}

/** The profile and one side's master key and salt werift exported from the handshake, or what is wrong. */
export function srtpKeys(
  dtls: DtlsTransport,
  side: "local" | "remote",
): { profile: SrtpProfile; key: Buffer; salt: Buffer } | string {
  const cfg = (dtls as DtlsInternals).srtp?.config;
  const profile = cfg?.profile;
  const key = cfg?.keys?.[`${side}MasterKey`];
  const salt = cfg?.keys?.[`${side}MasterSalt`];
  if (
    typeof profile !== "number" ||
    !isSrtpProfile(profile) ||
    !Buffer.isBuffer(key) ||
    !Buffer.isBuffer(salt)
  ) {
    return `dtlsTransport.srtp.config has no usable profile/${side} keys`;
  }
  const lens = masterLengths(profile);
  if (key.length !== lens.key || salt.length !== lens.salt) {
    return `${side} master key/salt are ${key.length}/${salt.length} bytes`;
  }
  return { profile, key, salt };
}

/**
 * werift's own dispatch of a datagram to the subscribers of the ICE connection's data event, or
 * null where the event has none of its own.
 */
export function dataDispatch(dtls: DtlsTransport): ((data: Buffer) => void) | null {
  const ev = dataEvent(dtls);
  const exec = ev?.execute;
  if (ev === undefined || typeof exec !== "function" || !Object.hasOwn(ev, "execute")) return null;
  return exec;
}

/**
 * Media datagrams (first byte 128..191) dispatched on the ICE connection's data event go to
 * `media` instead of its subscribers (whose other one, DTLS, ignores media anyway); the rest go
 * where werift sends them. False (nothing changed) where the event has no dispatch of its own.
 */
export function divertMediaEvents(dtls: DtlsTransport, media: (data: Buffer) => void): boolean {
  const ev = dataEvent(dtls);
  const exec = ev?.execute;
  if (ev === undefined || typeof exec !== "function" || !Object.hasOwn(ev, "execute")) return false;
  ev.execute = (...args: unknown[]) => {
    const d = args[0];
    if (isMediaDatagram(d)) media(d);
    else exec(...args);
  };
  return true;
}

/** `fn` is subscribed to the ICE connection's data event (every datagram); false where there is none. */
export function subscribeData(dtls: DtlsTransport, fn: (data: Buffer) => void): boolean {
  const ev = dataEvent(dtls);
  if (ev === undefined || typeof ev.subscribe !== "function") return false;
  ev.subscribe(fn);
  return true;
}

/**
 * RTCP bytes already serialised, out through werift's sendRtcp (which protects with SRTCP and sends
 * over ICE).
 */
export function rtcpSender(dtls: DtlsTransport): (rtcp: Buffer) => void {
  const d = dtls as DtlsInternals;
  return (rtcp) => {
    // werift concatenates packet.serialize() of each
    const packet = { serialize: () => rtcp } as unknown as RtcpPacket;
    d.sendRtcp([packet]).catch(() => {});
  };
}

/**
 * werift path: silence werift's own NACK generator (5 ms loop, ~11 requests per packet), so
 * every path NACKs with ours (workers/receive/nack.ts) and `nacksSent` means the same on each.
 */
export function silenceWeriftNack(tr: RTCRtpTransceiver): void {
  checkWeriftVersion();
  const nack = (tr.receiver as unknown as { nack?: { addPacket?: unknown } }).nack;
  if (nack === undefined || typeof nack.addPacket !== "function") {
    throw weriftInternals("RTCRtpReceiver.nack.addPacket is missing");
  }
  nack.addPacket = () => {};
}

/**
 * werift path: silence werift's own transport feedback (RTCRtpReceiver.setupTWCC never makes its
 * ReceiverTWCC), so every path sends ours (workers/receive/twcc-sender.ts) from the kernel's
 * arrival stamps and `transportFeedbackSent` means the same on each.
 */
export function silenceWeriftTwcc(tr: RTCRtpTransceiver): void {
  checkWeriftVersion();
  const rx = tr.receiver as unknown as { setupTWCC?: unknown };
  if (typeof rx.setupTWCC !== "function") {
    throw weriftInternals("RTCRtpReceiver.setupTWCC is missing");
  }
  rx.setupTWCC = () => {};
}

/**
 * Test-only (relay): offer/accept only these SRTP profiles on this transceiver's transport,
 * e.g. [1] to force AES_CM_128_HMAC_SHA1_80 (werift prefers AEAD_AES_128_GCM). Before DTLS.
 */
export function restrictSrtpProfiles(tr: RTCRtpTransceiver, profiles: SrtpProfile[]): void {
  checkWeriftVersion();
  const dtls = tr.dtlsTransport as unknown as DtlsInternals | undefined;
  if (dtls === undefined || !Array.isArray(dtls.srtpProfiles)) {
    throw weriftInternals("RTCDtlsTransport.srtpProfiles is missing");
  }
  dtls.srtpProfiles = [...profiles];
}
