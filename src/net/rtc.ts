// werift configuration shared by the publisher, the viewers and the built-in relay: codecs and
// header extension (docs/definitions.md#webrtc-configuration), host-only ICE with no STUN,
// loopback-only gathering, non-trickle gathering; each setting's reason is given beside it.
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import nacl from "tweetnacl";
import {
  Connection,
  RTCPeerConnection,
  type RTCPeerConnectionConfig,
  RTCRtpCodecParameters,
  RTCRtpHeaderExtensionParameters,
} from "werift";
import { x25519, x25519KeyPair } from "./x25519.ts";

export const ABS_CAPTURE_TIME_URI = "http://www.webrtc.org/experiments/rtp-hdrext/abs-capture-time";
export const WERIFT_VERSION = "0.25.2";

let patched = false;

/**
 * werift falls back to a built-in public STUN server when none is configured and resolves its
 * name for every peer connection; on an offline machine that lookup is what made ~5 % of setups
 * take 5.2 s (measured while choosing werift). With `iceServers: []` we want host candidates only, so the
 * fallback is cleared after werift derives it. Idempotent; called before any peer is created.
 */
export function patchWerift(): void {
  if (patched) return;
  patched = true;
  type Derive = (this: Connection) => void;
  const proto = Connection.prototype as unknown as { applyStunTurnServersFromOptions?: Derive };
  const derive = proto.applyStunTurnServersFromOptions;
  if (typeof derive !== "function") {
    throw new Error(
      `werift ${WERIFT_VERSION} expected: Connection.applyStunTurnServersFromOptions is missing, the no-STUN patch cannot be applied`,
    );
  }
  proto.applyStunTurnServersFromOptions = function (this: Connection): void {
    derive.call(this);
    const self = this as unknown as { options: { stunServer?: unknown }; stunServer?: unknown };
    if (!self.options.stunServer) self.stunServer = undefined;
  };
  useNativeX25519();
}

/** Whether werift's DTLS key exchange runs on node:crypto (false: tweetnacl's, see below). */
export let nativeX25519 = false;

/**
 * werift's DTLS does its X25519 key exchange with tweetnacl, in JavaScript: ~1.4 ms of blocking
 * work per handshake on each side (a key pair and a shared secret), about half of a handshake's
 * CPU and ~7 % of a viewer thread's busy time during a ramp (bench/README.md). The two functions
 * it calls are replaced, on the tweetnacl module werift itself loads, by node:crypto's X25519,
 * which gives the same bytes (src/net/x25519.ts, test/unit/x25519.test.ts). It only saves CPU:
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

export interface IceOptions {
  /** gather one host candidate on 127.0.0.1 only and pair only 127.0.0.1 candidates */
  loopbackOnly: boolean;
  /** add a 127.0.0.1 host candidate beside the other interfaces */
  includeLoopback: boolean;
}

const feedback = () => [
  { type: "goog-remb" },
  { type: "ccm", parameter: "fir" },
  { type: "nack" },
  { type: "nack", parameter: "pli" },
];

export function videoCodecs(which: "vp8" | "h264" | "viewer"): RTCRtpCodecParameters[] {
  const vp8 = new RTCRtpCodecParameters({
    mimeType: "video/VP8",
    clockRate: 90000,
    payloadType: 96,
    rtcpFeedback: feedback(),
  });
  const h264 = (pt: number, profile: string) =>
    new RTCRtpCodecParameters({
      mimeType: "video/H264",
      clockRate: 90000,
      payloadType: pt,
      rtcpFeedback: feedback(),
      parameters: `level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=${profile}`,
    });
  if (which === "vp8") return [vp8];
  if (which === "h264") return [h264(102, "42e01f"), h264(104, "42001f")];
  return [vp8, h264(102, "42e01f"), h264(104, "42001f")];
}

/** Opus as browsers offer it (RFC 7587: opus/48000/2), for a run's audio track (docs/definitions.md#audio-track). */
export function audioCodecs(): RTCRtpCodecParameters[] {
  return [
    new RTCRtpCodecParameters({
      mimeType: "audio/opus",
      clockRate: 48000,
      channels: 2,
      payloadType: 111,
      parameters: "minptime=10;useinbandfec=1",
    }),
  ];
}

export function peerConfig(ice: IceOptions, codecs: RTCRtpCodecParameters[]): RTCPeerConnectionConfig {
  const config: RTCPeerConnectionConfig = {
    iceServers: [],
    codecs: { video: codecs, audio: audioCodecs() },
    // one transport for every track, as browsers do: with werift's max-compat default, an audio
    // m-line's own transport stayed open after bundling and its UDP socket outlived close()
    bundlePolicy: "max-bundle",
    headerExtensions: { video: [new RTCRtpHeaderExtensionParameters({ uri: ABS_CAPTURE_TIME_URI })] },
  };
  if (ice.loopbackOnly) {
    // werift skips "internal" interfaces; with both families off and 127.0.0.1 added, it gathers
    // exactly one host candidate, bound to 127.0.0.1.
    config.iceUseIpv4 = false;
    config.iceUseIpv6 = false;
    config.iceAdditionalHostAddresses = ["127.0.0.1"];
    config.iceInterfaceAddresses = { udp4: "127.0.0.1" };
    config.iceFilterCandidatePair = (pair) =>
      pair.localCandidate.host === "127.0.0.1" && pair.remoteCandidate.host === "127.0.0.1";
  } else if (ice.includeLoopback) {
    config.iceAdditionalHostAddresses = ["127.0.0.1"];
  }
  return config;
}

export function newPeer(ice: IceOptions, codecs: RTCRtpCodecParameters[]): RTCPeerConnection {
  patchWerift();
  return new RTCPeerConnection(peerConfig(ice, codecs));
}

/** With loopback-only ICE, drop every candidate line that is not on 127.0.0.1. */
export function filterCandidates(sdp: string, ice: IceOptions): string {
  if (!ice.loopbackOnly) return sdp;
  return sdp
    .split("\r\n")
    .filter((line) => !line.startsWith("a=candidate:") || line.includes(" 127.0.0.1 "))
    .join("\r\n");
}

/** Non-trickle: resolves once ICE gathering is complete, or rejects after `timeoutMs`. */
export function gatheringComplete(pc: RTCPeerConnection, timeoutMs: number): Promise<void> {
  if (pc.iceGatheringState === "complete") return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      sub.unSubscribe();
      reject(new Error("ICE gathering did not complete"));
    }, timeoutMs);
    const sub = pc.iceGatheringStateChange.subscribe((state) => {
      if (state === "complete") {
        clearTimeout(timer);
        sub.unSubscribe();
        resolve();
      }
    });
  });
}

/** Whether an SDP (the server's answer or counter-offer) maps this header extension. */
export function sdpHasExtension(sdp: string, uri: string): boolean {
  return sdp.split(/\r?\n/).some((l) => l.startsWith("a=extmap:") && l.trimEnd().endsWith(` ${uri}`));
}

/** The negotiated extension id of abs-capture-time on a transceiver's sender/receiver, or 0. */
export function absCaptureId(extensions: readonly { id: number; uri: string }[]): number {
  for (const e of extensions) if (e.uri === ABS_CAPTURE_TIME_URI) return e.id;
  return 0;
}

/**
 * Ends the DTLS handshake retransmissions of a peer that is being closed. werift's handshake
 * flights retransmit on their own timers (after 0.5 s, 1 s, … 5.5 s: 33 s in all) whatever
 * happens to the peer connection, and those timers kept the process alive for ~25 s after a
 * connect timeout against a server that answers ICE but never DTLS. Marking the handshake as
 * past every flight ends each retransmission loop at its next wake-up (the loop's own exit
 * test: `dtls.flight >= nextFlight`). A finished handshake never looks at it again.
 */
export function abandonDtls(pc: RTCPeerConnection): void {
  for (const t of pc.dtlsTransports) {
    const ctx = (t as unknown as { dtls?: { dtls?: { flight?: number } } }).dtls?.dtls;
    if (ctx !== undefined && typeof ctx.flight === "number") ctx.flight = Number.POSITIVE_INFINITY;
  }
}
