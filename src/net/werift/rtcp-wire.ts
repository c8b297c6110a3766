// A lean viewer's RTCP out without werift's sendRtcp (docs/definitions.md#receive-paths): protected
// with SRTCP through the OpenSSL the node binary carries (../srtp/protect-rtcp.ts) and written on
// the nominated pair's own UDP socket, where werift's RTCDtlsTransport.sendRtcp makes a node:crypto
// cipher and several buffers per message and goes through three async functions to the same
// socket.send. The bytes on the wire are werift's: the same keys, the SRTCP index taken from and
// kept in werift's own per-SSRC state (so werift's sends, if any, and ours never reuse one), the
// same rule for when not to send (consent lost: RFC 7675), and the same counters advanced.
// werift 0.25.2 internals used: RTCDtlsTransport.{srtp.config.{profile, keys.localMasterKey,
// keys.localMasterSalt}, srtcp.localContext.getSrtcpSsrcState, bytesSent, packetsSent,
// iceTransport.connection.{nominated.{remoteAddr, protocol.transport.{socket, closed}, packetsSent,
// bytesSent}, canSendApplicationData}}. Where any is missing, the caller keeps werift's sendRtcp.
import type { Socket } from "node:dgram";
import { openssl } from "../srtp/openssl.ts";
import { OpensslSrtcpSender } from "../srtp/protect-rtcp.ts";
import { gather } from "../write-gather.ts";
import { type DtlsTransport, srtpKeys } from "./srtp-start.ts";

interface Pair {
  remoteAddr?: [string, number];
  protocol?: { transport?: Transport };
  packetsSent?: number;
  bytesSent?: number;
}

interface Transport {
  socket?: Socket;
  closed?: boolean;
  send?: (data: Buffer, addr: [string, number]) => Promise<unknown>;
}

interface Dtls {
  srtcp?: { localContext?: { getSrtcpSsrcState?: (ssrc: number) => { srtcpIndex: number } } };
  bytesSent?: number;
  packetsSent?: number;
  iceTransport?: { connection?: { nominated?: Pair; canSendApplicationData?: () => boolean } };
}

/** werift's SRTCP index bound (SrtcpContext: past 2^31 − 1 it starts again at 0). */
const MAX_INDEX = 0x7fffffff;

/**
 * RTCP bytes already serialised (a compound packet; the caller may reuse the buffer once this
 * returns), protected and sent as werift's sendRtcp would; or why werift's own must send them.
 */
export function nativeRtcpSender(dtlsTransport: unknown): ((rtcp: Uint8Array) => void) | string {
  const native = openssl();
  if (!native.ok) return native.reason;
  const keys = srtpKeys(dtlsTransport as DtlsTransport, "local");
  if (typeof keys === "string") return keys;
  const d = dtlsTransport as Dtls;
  const ctx = d.srtcp?.localContext;
  const state = ctx?.getSrtcpSsrcState?.bind(ctx);
  const conn = d.iceTransport?.connection;
  if (state === undefined) return "dtlsTransport.srtcp.localContext.getSrtcpSsrcState is missing";
  if (conn === undefined || typeof conn.canSendApplicationData !== "function")
    return "the ICE connection's canSendApplicationData is missing";
  const canSend = conn.canSendApplicationData.bind(conn);
  const sender = new OpensslSrtcpSender(keys.profile, keys.key, keys.salt);
  return (rtcp) => {
    // werift's SrtcpContext.encryptRTCP: the index of the first SSRC, one up per message
    const s = state(((rtcp[4]! << 24) | (rtcp[5]! << 16) | (rtcp[6]! << 8) | rtcp[7]!) >>> 0);
    s.srtcpIndex++;
    if (s.srtcpIndex > MAX_INDEX) s.srtcpIndex = 0;
    const enc = sender.protect(rtcp, s.srtcpIndex);
    d.bytesSent = (d.bytesSent ?? 0) + enc.length;
    d.packetsSent = (d.packetsSent ?? 0) + 1;
    // werift's Connection.send and StunProtocol.sendData: nothing after consent expiry, on a closed transport
    if (!canSend()) return;
    const pair = conn.nominated;
    const t = pair?.protocol?.transport;
    const addr = pair?.remoteAddr;
    if (t === undefined || t.closed === true || addr === undefined) return;
    if (!write(t, enc, addr)) return;
    pair!.packetsSent = (pair!.packetsSent ?? 0) + 1;
    pair!.bytesSent = (pair!.bytesSent ?? 0) + enc.length;
  };
}

const ignore = (): void => {};

/**
 * Writes `enc` to `addr` on werift's UDP socket (UdpTransport.send's own call, without its
 * promise) or through the transport's send where it has no socket of its own (the thread's shared
 * socket, shared-udp.ts). On werift's socket, inside a pass of the thread's feedback tick, it is
 * gathered (../write-gather.ts: no dgram send and its dns.lookup of the address), else sent at
 * once. False where neither can send.
 */
function write(t: Transport, enc: Buffer, addr: [string, number]): boolean {
  if (t.socket !== undefined) {
    if (gather(t.socket, enc, addr[0], addr[1])) return true;
    try {
      t.socket.send(enc, addr[1], addr[0]);
    } catch {
      return false; // closed under us: werift's send would have failed the same way
    }
    return true;
  }
  if (typeof t.send !== "function") return false;
  t.send(enc, addr).catch(ignore);
  return true;
}
