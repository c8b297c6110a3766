// The one place that touches werift internals (werift 0.25.2, checked by `WERIFT_VERSION`). werift
// keeps signalling, ICE (consent included), DTLS and the key export; at the moment DTLS is up,
// `RTCDtlsTransport.prototype.startSrtp` (called once per transport, after the handshake and
// the fingerprint check, before any media is decrypted) is wrapped: for a transport a viewer
// claimed, werift's own media handler is captured instead of subscribed to the ICE
// connection's data event, the claim gets the SRTP profile and the remote master key and salt
// from `dtlsTransport.srtp.config`, and media datagrams (first byte 128..191) are routed to the
// claim's handler: on the connection's data event, and beneath werift's STUN parsing on each UDP
// transport of the connection (routeMedia), or read in batches by the thread's arena reader
// (the arena path). STUN and DTLS stay werift's. Internals used: RTCDtlsTransport.prototype
// .startSrtp, .srtpStarted, .iceTransport.connection.{onData, protocols[].transport.{onData,
// socket, close}}, .srtp.config, .srtpProfiles (the relay's prepareLeg hook), and
// RTCRtpReceiver.nack.addPacket (werift path), each checked (a WeriftAdapterError names a miss);
// a werift other than WERIFT_VERSION fails test/unit/lean-adapter.test.ts, not a run.
import type { Socket } from "node:dgram";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { RTCDtlsTransport, type RTCRtpTransceiver, type RtcpPacket } from "werift";
import { isSrtpProfile, masterLengths, type SrtpProfile } from "../../core/srtp/kdf.ts";
import { socketFd } from "../../net/kernel.ts";
import { WERIFT_VERSION } from "../../net/rtc.ts";
import { type ArenaTransport, type OtherHandler, readInArena } from "../arena-reader.ts";
import { type DatagramHandler, intake } from "../intake.ts";

/** The werift version whose internals this adapter was written against (pinned in package.json). */
export { WERIFT_VERSION };

export class WeriftAdapterError extends Error {
  constructor(message: string) {
    super(`werift ${WERIFT_VERSION} adapter: ${message}`);
    this.name = "WeriftAdapterError";
  }
}

/** The version of the installed werift package (its package.json). */
export function installedWeriftVersion(): string {
  const require = createRequire(import.meta.url);
  let dir = dirname(require.resolve("werift"));
  for (let i = 0; i < 6; i++) {
    try {
      type Pkg = { name?: string; version?: string };
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Pkg;
      if (pkg.name === "werift") return pkg.version ?? "";
    } catch {
      // not here: one level up
    }
    dir = dirname(dir);
  }
  return "";
}

/** The error for an installed werift other than WERIFT_VERSION, or null. */
export function versionMismatch(installed: string): WeriftAdapterError | null {
  if (installed === WERIFT_VERSION) return null;
  return new WeriftAdapterError(
    `installed werift is ${installed || "unknown"}; the lean receive path reads werift internals and must be re-checked (src/workers/lean/adapter.ts) before WERIFT_VERSION is raised`,
  );
}

/** The remote side's SRTP keying, as werift exported it from the DTLS handshake. */
export interface LeanKeys {
  profile: SrtpProfile;
  remoteMasterKey: Buffer;
  remoteMasterSalt: Buffer;
}

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
  fail(err: WeriftAdapterError): void;
}

interface DataEvent {
  subscribe: (fn: (data: Buffer) => void) => unknown;
  execute?: (...args: unknown[]) => void;
}

interface IceConnection {
  onData?: DataEvent;
  protocols?: unknown[];
}

interface DtlsInternals {
  iceTransport?: { connection?: IceConnection };
  srtp?: { config?: { profile?: unknown; keys?: { remoteMasterKey?: unknown; remoteMasterSalt?: unknown } } };
  srtpProfiles?: unknown;
  sendRtcp(packets: RtcpPacket[]): Promise<unknown>;
}

const claims = new WeakMap<object, Claim>();
let hookError: WeriftAdapterError | null = null;
let hooked = false;

/**
 * Checks the installed werift against WERIFT_VERSION and the prototype the hook wraps, and
 * installs the hook (once per thread). Throws WeriftAdapterError on any mismatch.
 */
export function checkWerift(): void {
  if (hooked) return;
  if (hookError) throw hookError;
  const mismatch = versionMismatch(installedWeriftVersion());
  if (mismatch !== null) {
    hookError = mismatch;
    throw hookError;
  }
  const proto = RTCDtlsTransport.prototype as unknown as { startSrtp?: unknown };
  const original = proto.startSrtp;
  if (typeof original !== "function") {
    hookError = new WeriftAdapterError("RTCDtlsTransport.prototype.startSrtp is missing");
    throw hookError;
  }
  proto.startSrtp = function leanStartSrtp(this: DtlsInternals): void {
    const claim = claims.get(this);
    if (claim === undefined) {
      original.call(this);
      return;
    }
    claims.delete(this);
    if (claim.kind === "stamp") {
      original.call(this);
      const conn = this.iceTransport?.connection;
      const ev = conn?.onData;
      if (conn !== undefined && ev !== undefined) routeMedia(conn, ev, null, claim);
      return;
    }
    takeOver(this, claim, original as (this: DtlsInternals) => void);
  };
  hooked = true;
}

function takeOver(dtls: DtlsInternals, claim: LeanClaim, original: (this: DtlsInternals) => void): void {
  const ev = dtls.iceTransport?.connection?.onData;
  if (ev === undefined || typeof ev.subscribe !== "function") {
    claim.fail(new WeriftAdapterError("iceTransport.connection.onData.subscribe is missing"));
    original.call(dtls);
    return;
  }
  // capture the one handler werift's startSrtp subscribes, for this call only
  const own = Object.hasOwn(ev, "subscribe");
  const subscribe = ev.subscribe;
  let captured = 0;
  ev.subscribe = () => {
    captured++;
    return { unSubscribe: () => {}, disposer: () => {} };
  };
  try {
    original.call(dtls);
  } finally {
    if (own) ev.subscribe = subscribe;
    else delete (ev as Partial<DataEvent>).subscribe;
  }
  if (captured !== 1) {
    claim.fail(new WeriftAdapterError(`startSrtp subscribed ${captured} data handlers, expected exactly 1`));
    return;
  }
  const cfg = dtls.srtp?.config;
  const profile = cfg?.profile;
  const key = cfg?.keys?.remoteMasterKey;
  const salt = cfg?.keys?.remoteMasterSalt;
  if (
    typeof profile !== "number" ||
    !isSrtpProfile(profile) ||
    !Buffer.isBuffer(key) ||
    !Buffer.isBuffer(salt)
  ) {
    claim.fail(new WeriftAdapterError("dtlsTransport.srtp.config has no usable profile/remote keys"));
    return;
  }
  const lens = masterLengths(profile);
  if (key.length !== lens.key || salt.length !== lens.salt) {
    claim.fail(new WeriftAdapterError(`remote master key/salt are ${key.length}/${salt.length} bytes`));
    return;
  }
  const handler = claim.start({ profile, remoteMasterKey: key, remoteMasterSalt: salt }, rtcpSender(dtls));
  routeMedia(dtls.iceTransport?.connection ?? {}, ev, handler, claim);
}

/** First byte 128..191: SRTP or SRTCP (RFC 7983); STUN, DTLS and TURN channel data are below. */
function isMediaDatagram(d: unknown): d is Buffer {
  if (!Buffer.isBuffer(d)) return false;
  const b = d[0]!;
  return b >= 128 && b <= 191;
}

/**
 * Media datagrams are stamped and queued (intake.ts), then go to `handler` — or, for werift's
 * own path (`handler` null), to the connection's data event as before; everything else goes
 * where werift sends it, at once. First on the ICE connection's data event (whose other
 * subscriber, DTLS, ignores media anyway), then — to stamp before werift's STUN parsing and two
 * event dispatches per packet — on each UDP transport of the connection's protocols; a protocol
 * added later (ICE restart) still reaches the event. With `arena`, the arena reader reads them.
 */
function routeMedia(conn: IceConnection, ev: DataEvent, handler: DatagramHandler | null, claim: Claim): void {
  const exec = ev.execute;
  const own: DatagramHandler = handler ?? ((data) => exec?.(data));
  const to = claim.wrap?.(own) ?? own;
  if (typeof exec !== "function" || !Object.hasOwn(ev, "execute")) {
    if (handler !== null) ev.subscribe((data) => intake.push(to, data, 0));
    return;
  }
  const arena = claim.kind !== "stamp" && claim.arena === true;
  ev.execute = (...args: unknown[]) => {
    const d = args[0];
    if (isMediaDatagram(d)) intake.push(to, d, 0);
    else exec(...args);
  };
  for (const p of conn.protocols ?? []) {
    const t = (p as { transport?: ArenaTransport & { onData?: unknown; socket?: Socket } } | null)?.transport;
    const onData = t?.onData;
    if (t === undefined || typeof onData !== "function") continue;
    if (arena && readInArena(t, to, onData as OtherHandler)) continue;
    // werift calls onData inside the socket's 'message' callback, before libuv reads the next
    // datagram: the socket's last receive stamp is this datagram's (intake.ts, kernel.ts)
    const fd = intake.stampFd(socketFd(t.socket));
    t.onData = (data: unknown, addr: unknown) => {
      if (isMediaDatagram(data)) intake.push(to, data, portOf(addr), fd);
      else onData(data, addr);
    };
  }
}

/** The sender's port from werift's [address, port] pair, 0 when not one. */
function portOf(addr: unknown): number {
  const port = Array.isArray(addr) ? addr[1] : undefined;
  return typeof port === "number" ? port : 0;
}

function rtcpSender(dtls: DtlsInternals): (rtcp: Buffer) => void {
  return (rtcp) => {
    // werift concatenates packet.serialize() of each, protects with SRTCP and sends over ICE
    const packet = { serialize: () => rtcp } as unknown as RtcpPacket;
    dtls.sendRtcp([packet]).catch(() => {});
  };
}

/** The claim takes this transceiver's inbound media once its DTLS transport starts SRTP. */
export function claimMedia(tr: RTCRtpTransceiver, claim: Claim): void {
  checkWerift();
  const dtls = tr.dtlsTransport as unknown as (DtlsInternals & { srtpStarted?: unknown }) | undefined;
  if (dtls === undefined) throw new WeriftAdapterError("the transceiver has no DTLS transport yet");
  if (dtls.srtpStarted !== false) throw new WeriftAdapterError("SRTP already started on this transport");
  claims.set(dtls, claim);
}

/** Withdraws a claim that never started (the viewer ended before DTLS). */
export function releaseMedia(tr: RTCRtpTransceiver): void {
  const dtls = tr.dtlsTransport as unknown as object | undefined;
  if (dtls !== undefined) claims.delete(dtls);
}

/** RTCP out through werift's public sendRtcp, for the werift path's NACKs. */
export function transceiverRtcpSender(tr: RTCRtpTransceiver): (rtcp: Buffer) => void {
  return rtcpSender(tr.dtlsTransport as unknown as DtlsInternals);
}

/**
 * werift path: silence werift's own NACK generator (5 ms loop, ~11 requests per packet), so
 * both paths NACK with ours (nack.ts) and `nacksSent` means the same on each.
 */
export function silenceWeriftNack(tr: RTCRtpTransceiver): void {
  checkWerift();
  const nack = (tr.receiver as unknown as { nack?: { addPacket?: unknown } }).nack;
  if (nack === undefined || typeof nack.addPacket !== "function") {
    throw new WeriftAdapterError("RTCRtpReceiver.nack.addPacket is missing");
  }
  nack.addPacket = () => {};
}

/**
 * Test-only (relay): offer/accept only these SRTP profiles on this transceiver's transport,
 * e.g. [1] to force AES_CM_128_HMAC_SHA1_80 (werift prefers AEAD_AES_128_GCM). Before DTLS.
 */
export function restrictSrtpProfiles(tr: RTCRtpTransceiver, profiles: SrtpProfile[]): void {
  checkWerift();
  const dtls = tr.dtlsTransport as unknown as DtlsInternals | undefined;
  if (dtls === undefined || !Array.isArray(dtls.srtpProfiles)) {
    throw new WeriftAdapterError("RTCDtlsTransport.srtpProfiles is missing");
  }
  dtls.srtpProfiles = [...profiles];
}
