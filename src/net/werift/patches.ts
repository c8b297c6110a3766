// The patches on werift that every peer gets (no public STUN fallback, node:crypto's X25519 in
// werift's DTLS, the DTLS handshake mends of dtls-order.ts and dtls-flights.ts), installed once per
// thread after the version check, and the ones applied to one
// peer or transceiver (a closing peer's DTLS retransmissions ended; the relay's faults: a DTLS
// that never starts, RTP sends that never reach the wire). werift 0.25.2 internals used:
// Connection.prototype.applyStunTurnServersFromOptions, .options.stunServer, .stunServer; the
// tweetnacl werift loads (box.keyPair, scalarMult); RTCDtlsTransport.{dtls.flight, start, sendRtp,
// verifyRemoteCertificateFingerprint}.

import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import nacl from "tweetnacl";
import { Connection, type RTCPeerConnection, type RTCRtpTransceiver, type RtpHeader } from "werift";
import { installFlights } from "./dtls-flights.ts";
import { flightSent, installOrder, mends } from "./dtls-order.ts";
import { dtlsPrototypes } from "./dtls-shapes.ts";
import { checkWeriftVersion, weriftInternals } from "./version.ts";
import { x25519, x25519KeyPair } from "./x25519.ts";

let patched = false;

/**
 * Checks werift's version and installs the patches every peer needs; idempotent, called before
 * any peer is created (rtc.ts's newPeer). Throws WeriftInternalsError on a version other than
 * WERIFT_VERSION or a missing Connection.applyStunTurnServersFromOptions.
 *
 * werift falls back to a built-in public STUN server when none is configured and resolves its
 * name for every peer connection; on an offline machine that lookup is what made ~5 % of setups
 * take 5.2 s. With `iceServers: []` we want host candidates only, so the fallback is cleared after
 * werift derives it.
 */
export function patchWerift(): void {
  if (patched) return;
  checkWeriftVersion();
  type Derive = (this: Connection) => void;
  const proto = Connection.prototype as unknown as { applyStunTurnServersFromOptions?: Derive };
  const derive = proto.applyStunTurnServersFromOptions;
  if (typeof derive !== "function") {
    throw weriftInternals(
      "Connection.applyStunTurnServersFromOptions is missing, the no-STUN patch cannot be applied",
    );
  }
  patched = true;
  proto.applyStunTurnServersFromOptions = function (this: Connection): void {
    derive.call(this);
    const self = this as unknown as { options: { stunServer?: unknown }; stunServer?: unknown };
    if (!self.options.stunServer) self.stunServer = undefined;
  };
  useNativeX25519();
  mendDtls();
}

/**
 * werift's DTLS 1.2 handshake as RFC 6347 asks, in both roles (docs/definitions.md#dtls-handshake):
 * messages handled once each in message_seq order, fragments reassembled in any order, records of
 * the next epoch kept until the keys exist (dtls-order.ts); flights retransmitted on a doubling
 * timer and a peer's retransmission answered with our last flight (dtls-flights.ts), each time in
 * records with new sequence numbers (dtls-renumber.ts). Throws
 * WeriftInternalsError where a prototype it replaces a method of is missing.
 */
function mendDtls(): void {
  const protos = dtlsPrototypes();
  installOrder(protos.socket, protos.cipher);
  installFlights(protos.flight, () => mends.on, flightSent);
}

/** Whether werift's DTLS key exchange runs on node:crypto (false: tweetnacl's, see below). */
export let nativeX25519 = false;

/**
 * werift's DTLS does its X25519 key exchange with tweetnacl, in JavaScript: ~1.4 ms of blocking
 * work per handshake on each side (a key pair and a shared secret), about half of a handshake's
 * CPU and ~7 % of a viewer thread's busy time during a ramp (bench/README.md). The two functions
 * it calls are replaced, on the tweetnacl module werift itself loads, by node:crypto's X25519,
 * which gives the same bytes (src/net/werift/x25519.ts, test/unit/x25519.test.ts). It only saves CPU:
 * where werift loads another copy of tweetnacl or its shape changed, werift keeps its own
 * (correct, slower), and test/unit/x25519.test.ts, which requires the patch, fails.
 */
function useNativeX25519(): void {
  const ours = fileURLToPath(import.meta.resolve("tweetnacl"));
  const werifts = createRequire(fileURLToPath(import.meta.resolve("werift"))).resolve("tweetnacl");
  const lib = nacl as unknown as { box?: { keyPair?: unknown }; scalarMult?: unknown };
  const box = lib.box;
  const keyPair = box?.keyPair;
  const scalarMult = lib.scalarMult;
  if (
    ours !== werifts ||
    box === undefined ||
    typeof keyPair !== "function" ||
    typeof scalarMult !== "function"
  )
    return;
  // keep the functions' own properties (keyPair.fromSecretKey, scalarMult.base, lengths)
  box.keyPair = Object.assign(() => x25519KeyPair(), keyPair);
  lib.scalarMult = Object.assign((n: Uint8Array, p: Uint8Array) => x25519(n, p), scalarMult);
  nativeX25519 = true;
}

/**
 * Ends the DTLS handshake retransmissions of a peer that is being closed. Handshake flights
 * retransmit on their own timers (werift's: after 0.5 s, 1 s, … 5.5 s, 33 s in all; the mended
 * ones of dtls-flights.ts: 0.1 … 3 s, doubling, ~27 s) whatever happens to the peer
 * connection, and werift's kept the process alive for ~25 s after a connect timeout against a
 * server that answers ICE but never DTLS. Marking the handshake as
 * past every flight ends each retransmission loop at its next wake-up (the loop's own exit
 * test: `dtls.flight >= nextFlight`). A finished handshake never looks at it again.
 */
export function abandonDtls(pc: RTCPeerConnection): void {
  for (const t of pc.dtlsTransports) {
    const ctx = (t as unknown as { dtls?: { dtls?: { flight?: number } } }).dtls?.dtls;
    if (ctx !== undefined && typeof ctx.flight === "number") ctx.flight = Number.POSITIVE_INFINITY;
  }
}

/**
 * Test-only (the relay's silent-dtls answer fault): the peer's DTLS transports never start their
 * handshake.
 */
export function neverStartDtls(pc: RTCPeerConnection): void {
  for (const t of pc.dtlsTransports)
    (t as unknown as { start: () => Promise<void> }).start = () => new Promise(() => {});
}

/** werift's RTP send on a transceiver's DTLS transport: SRTP-protects and writes one packet. */
export type SendRtp = (payload: Buffer, header: RtpHeader) => Promise<number>;

/**
 * The transceiver's RTP goes out through `wrap(werift's own dtlsTransport.sendRtp)`. werift's
 * RTCRtpSender writes first sends and NACK resends through that same call, so a wrap sees both.
 */
export function wrapSendRtp(tr: RTCRtpTransceiver, wrap: (own: SendRtp) => SendRtp): void {
  const dtls = tr.dtlsTransport as unknown as { sendRtp: SendRtp };
  dtls.sendRtp = wrap(dtls.sendRtp.bind(dtls));
}

/**
 * `done` is told when one of the peer's DTLS handshakes finished (werift checks the remote
 * certificate's fingerprint right after, and only then): a peer that fails after this failed on
 * what the server presented, not in its own handshake. Returns the transports watched (0: werift's
 * internals did not match).
 */
export function onDtlsHandshakeDone(pc: RTCPeerConnection, done: () => void): number {
  let n = 0;
  for (const t of pc.dtlsTransports) {
    const d = t as unknown as { verifyRemoteCertificateFingerprint?: unknown };
    const verify = d.verifyRemoteCertificateFingerprint;
    if (typeof verify !== "function") continue;
    d.verifyRemoteCertificateFingerprint = function (this: unknown, ...args: unknown[]) {
      done();
      return (verify as (...a: unknown[]) => unknown).apply(this, args);
    };
    n++;
  }
  return n;
}
