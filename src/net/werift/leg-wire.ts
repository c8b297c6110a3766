// What the relay's native fan-out (src/main/relay/native.ts) takes from werift to send a viewer
// leg's video itself: the leg's UDP socket and the nominated pair's remote address, the local SRTP
// master key and salt, the sender's SSRC and payload type; and what it gives back so werift's own
// RTCP stays true: the sender's counters its sender reports read, and the leg's NACKs answered
// from the fan-out's history instead of werift's cache. werift 0.25.2 internals used:
// RTCDtlsTransport.{srtp.config.{profile, keys.localMasterKey, keys.localMasterSalt},
// iceTransport.connection.{nominated.{remoteAddr, protocol.transport.socket}, canSendApplicationData}};
// RTCRtpSender.{ssrc, codec.payloadType, headerExtensions, rtxPayloadType, rtxSsrc, redRedundantPayloadType,
// stopped, ntpTimestamp, rtpTimestamp, octetCount, packetCount, headerBytesSent, nackCount,
// retransmittedPacketsSent, onGenericNack, runRtcp, handleRtcpPacket}. A leg where any of it is not
// so is sent by werift as before, with the reason.
import { isIPv4 } from "node:net";
import { GenericNack, ntpTime, type RTCRtpTransceiver, RtcpTransportLayerFeedback, uint32Add } from "werift";
import { isSrtpProfile, masterLengths, type SrtpProfile } from "../../core/srtp/kdf.ts";
import { socketFd } from "../kernel.ts";
import { TRANSPORT_CC_URI } from "../rtc.ts";

/** A leg's sending side, taken over from werift. */
export interface LegWire {
  fd: number;
  /** the viewer's IPv4 address as a uint32, and its port */
  ip: number;
  port: number;
  profile: SrtpProfile;
  localMasterKey: Buffer;
  localMasterSalt: Buffer;
  ssrc: number;
  payloadType: number;
  /** the negotiated rtx payload type (RFC 4588) and the sender's RTX SSRC; −1: no rtx */
  rtxPayloadType: number;
  rtxSsrc: number;
  /** the transport-wide sequence number's extension id, 0 when not negotiated */
  twccId: number;
  /** werift would still send media on this leg now (consent held, the same pair nominated) */
  live(): boolean;
  /** Counts packets sent as werift's sender counts its own (its sender reports read them). */
  sent(packets: number, payloadBytes: number, headerBytes: number, rtpTimestamp: number, ntp: bigint): void;
  /**
   * The leg's NACKs go to `resend` instead of werift's cache; `resend` returns how many packets it
   * sent again at once, and a send path that writes later reports them through `retransmitted`.
   */
  onNack(resend: (seq: number) => number): void;
  /** Packets sent again for this leg's NACKs and written (werift's retransmittedPacketsSent). */
  retransmitted(packets: number): void;
}

interface Sender {
  ssrc?: unknown;
  codec?: { payloadType?: unknown };
  headerExtensions?: { uri?: unknown; id?: unknown }[];
  rtxPayloadType?: unknown;
  rtxSsrc?: unknown;
  redRedundantPayloadType?: unknown;
  stopped?: boolean;
  ntpTimestamp: bigint;
  rtpTimestamp: number;
  octetCount: number;
  packetCount: number;
  headerBytesSent: number;
  nackCount: number;
  retransmittedPacketsSent: number;
  onGenericNack?: { execute(f: unknown): void };
  runRtcp?: () => Promise<void>;
  handleRtcpPacket?: (p: unknown) => void;
}

interface Pair {
  remoteAddr?: [string, number];
  protocol?: { transport?: { socket?: import("node:dgram").Socket } };
}

interface Dtls {
  srtp?: { config?: { profile?: unknown; keys?: { localMasterKey?: unknown; localMasterSalt?: unknown } } };
  iceTransport?: { connection?: { nominated?: Pair; canSendApplicationData?: () => boolean } };
}

/** The id of a negotiated header extension on the sender, 0 when none. */
function extensionIdOf(s: Sender, uri: string): number {
  const id = s.headerExtensions?.find((e) => e.uri === uri)?.id;
  return typeof id === "number" ? id : 0;
}

/** The NTP instant werift's sender reports carry, read once for a batch of legs. */
export const ntpNow = (): bigint => ntpTime();

function ip4(s: string): number {
  const p = s.split(".");
  return ((+p[0]! << 24) >>> 0) + (+p[1]! << 16) + (+p[2]! << 8) + +p[3]!;
}

/** Why a sender cannot be taken over, or null. */
function senderProblem(s: Sender, extensions: readonly string[]): string | null {
  if (typeof s.ssrc !== "number" || typeof s.codec?.payloadType !== "number")
    return "the sender has no SSRC or codec";
  if (s.redRedundantPayloadType !== undefined) return "RED negotiated";
  if (
    s.rtxPayloadType !== undefined &&
    (typeof s.rtxPayloadType !== "number" || typeof s.rtxSsrc !== "number")
  )
    return "the sender's RTX is not known";
  if (typeof s.runRtcp !== "function" || typeof s.handleRtcpPacket !== "function")
    return "sender internals missing";
  for (const e of s.headerExtensions ?? [])
    if (typeof e.uri !== "string" || !extensions.includes(e.uri)) return `header extension ${String(e.uri)}`;
  return null;
}

/**
 * The leg's sending side once its DTLS is up and a pair nominated, or why werift keeps sending it.
 * `extensions`: the header extensions the caller writes itself (any other negotiated one would be
 * werift's to add).
 */
export function legWire(tr: RTCRtpTransceiver, extensions: readonly string[]): LegWire | string {
  const s = tr.sender as unknown as Sender;
  const problem = senderProblem(s, extensions);
  if (problem !== null) return problem;
  const dtls = tr.dtlsTransport as unknown as Dtls | undefined;
  const cfg = dtls?.srtp?.config;
  const key = cfg?.keys?.localMasterKey;
  const salt = cfg?.keys?.localMasterSalt;
  const profile = cfg?.profile;
  if (
    typeof profile !== "number" ||
    !isSrtpProfile(profile) ||
    !Buffer.isBuffer(key) ||
    !Buffer.isBuffer(salt)
  )
    return "no SRTP keys yet";
  const lens = masterLengths(profile);
  if (key.length !== lens.key || salt.length !== lens.salt) return "SRTP keys of unexpected length";
  const conn = dtls?.iceTransport?.connection;
  const pair = conn?.nominated;
  const remote = pair?.remoteAddr;
  const fd = socketFd(pair?.protocol?.transport?.socket);
  if (
    conn === undefined ||
    pair === undefined ||
    !Array.isArray(remote) ||
    typeof conn.canSendApplicationData !== "function"
  )
    return "no nominated pair";
  if (!isIPv4(remote[0])) return "the viewer's address is not IPv4";
  if (fd < 0) return "the leg's socket descriptor could not be read";
  const canSend = conn.canSendApplicationData.bind(conn);
  let rtcpStarted = false;
  return {
    fd,
    ip: ip4(remote[0]),
    port: remote[1],
    profile,
    localMasterKey: key,
    localMasterSalt: salt,
    ssrc: s.ssrc as number,
    payloadType: s.codec!.payloadType as number,
    rtxPayloadType: typeof s.rtxPayloadType === "number" ? s.rtxPayloadType : -1,
    rtxSsrc: typeof s.rtxSsrc === "number" ? s.rtxSsrc : 0,
    twccId: extensionIdOf(s, TRANSPORT_CC_URI),
    live: () => conn.nominated === pair && s.stopped !== true && canSend(),
    sent(packets, payloadBytes, headerBytes, rtpTimestamp, ntp) {
      s.ntpTimestamp = ntp;
      s.rtpTimestamp = rtpTimestamp;
      s.octetCount += payloadBytes;
      s.headerBytesSent += headerBytes;
      s.packetCount = uint32Add(s.packetCount, packets);
      if (!rtcpStarted) {
        rtcpStarted = true;
        s.runRtcp!().catch(() => {});
      }
    },
    retransmitted(packets) {
      s.retransmittedPacketsSent += packets;
    },
    onNack(resend) {
      const own = s.handleRtcpPacket!.bind(s);
      s.handleRtcpPacket = (p: unknown) => {
        const fb = p as { type?: number; feedback?: { count?: number; lost?: number[] } };
        if (fb.type !== RtcpTransportLayerFeedback.type || fb.feedback?.count !== GenericNack.count)
          return own(p);
        s.nackCount++;
        for (const seq of fb.feedback.lost ?? []) s.retransmittedPacketsSent += resend(seq);
        s.onGenericNack?.execute(fb.feedback);
      };
    },
  };
}
