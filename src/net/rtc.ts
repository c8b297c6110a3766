// werift configuration shared by the publisher, the viewers and the built-in relay: codecs and
// header extension (docs/definitions.md#webrtc-configuration), host-only ICE with no STUN,
// loopback-only gathering, non-trickle gathering; each setting's reason is given beside it.
import { IceGatheringError } from "../core/errors.ts";
import type { ViewerProfile } from "../core/scenario/defaults.ts";
import {
  MediaStream,
  RTCPeerConnection,
  type RTCPeerConnectionConfig,
  RTCRtpCodecParameters,
  RTCRtpHeaderExtensionParameters,
  type RTCRtpTransceiver,
} from "./werift/api.ts";
import { patchWerift } from "./werift/patches.ts";

export const ABS_CAPTURE_TIME_URI = "http://www.webrtc.org/experiments/rtp-hdrext/abs-capture-time";
export const TRANSPORT_CC_URI = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01";
export const ABS_SEND_TIME_URI = "http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time";
/** The dependency descriptor (the render model's generic finder reads it where it was negotiated). */
export const DEPENDENCY_DESCRIPTOR_URI =
  "https://aomedia.org/av1-rtp-spec/#dependency-descriptor-rtp-header-extension";
/** The extensions a simulcast publisher's packets carry (RFC 8852, RFC 8843): mid, rid and repaired rid. */
export const SDES_MID_URI = "urn:ietf:params:rtp-hdrext:sdes:mid";
export const RID_URI = "urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id";
export const REPAIRED_RID_URI = "urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id";
/** What a simulcast publisher, or a relay taking one, negotiates for video. */
export const SIMULCAST_EXTENSIONS: readonly string[] = [
  ABS_CAPTURE_TIME_URI,
  SDES_MID_URI,
  RID_URI,
  REPAIRED_RID_URI,
];

/**
 * What a viewer offers and honours (docs/definitions.md#viewer-profile): `browser` offers what
 * libwebrtc offers for a receive-only video section as far as the viewer honours it (transport-cc
 * with the transport-wide sequence number, rtx per codec, sdes:mid, abs-send-time) beside
 * abs-capture-time; `minimal` keeps abs-capture-time alone, no transport-cc and no rtx.
 */
export type { ViewerProfile };

/** The video header extensions of a viewer's offer, in the order of their ids. */
export function viewerExtensions(profile: ViewerProfile): string[] {
  if (profile === "minimal") return [ABS_CAPTURE_TIME_URI];
  return [ABS_SEND_TIME_URI, TRANSPORT_CC_URI, SDES_MID_URI, ABS_CAPTURE_TIME_URI];
}

export interface IceOptions {
  /** gather one host candidate on 127.0.0.1 only and pair only 127.0.0.1 candidates */
  loopbackOnly: boolean;
  /** add a 127.0.0.1 host candidate beside the other interfaces */
  includeLoopback: boolean;
}

/** A video codec's RTCP feedback types; transport-cc in libwebrtc's place where it is offered. */
const feedback = (transportCc: boolean) => [
  { type: "goog-remb" },
  ...(transportCc ? [{ type: "transport-cc" }] : []),
  { type: "ccm", parameter: "fir" },
  { type: "nack" },
  { type: "nack", parameter: "pli" },
];

/** What a video codec list carries beside the codecs: transport-cc and an rtx codec per codec. */
export interface VideoCodecExtras {
  transportCc: boolean;
  rtx: boolean;
}

const NONE: VideoCodecExtras = { transportCc: false, rtx: false };

/** The extras of a viewer profile (docs/definitions.md#viewer-profile). */
export function viewerCodecExtras(profile: ViewerProfile): VideoCodecExtras {
  return profile === "browser" ? { transportCc: true, rtx: true } : NONE;
}

/** RFC 4588 retransmission of payload type `apt`, on payload type `pt`. */
function rtx(pt: number, apt: number): RTCRtpCodecParameters {
  return new RTCRtpCodecParameters({
    mimeType: "video/rtx",
    clockRate: 90000,
    payloadType: pt,
    parameters: `apt=${apt}`,
  });
}

export function videoCodecs(
  which: "vp8" | "h264" | "viewer",
  extras: VideoCodecExtras = NONE,
): RTCRtpCodecParameters[] {
  const vp8 = new RTCRtpCodecParameters({
    mimeType: "video/VP8",
    clockRate: 90000,
    payloadType: 96,
    rtcpFeedback: feedback(extras.transportCc),
  });
  const h264 = (pt: number, profile: string) =>
    new RTCRtpCodecParameters({
      mimeType: "video/H264",
      clockRate: 90000,
      payloadType: pt,
      rtcpFeedback: feedback(extras.transportCc),
      parameters: `level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=${profile}`,
    });
  // each codec followed by its rtx, as libwebrtc lists them (96 rtx 97, 102 rtx 103, 104 rtx 105)
  const withRtx = (c: RTCRtpCodecParameters[]) =>
    extras.rtx ? c.flatMap((x) => [x, rtx(x.payloadType + 1, x.payloadType)]) : c;
  if (which === "vp8") return withRtx([vp8]);
  if (which === "h264") return withRtx([h264(102, "42e01f"), h264(104, "42001f")]);
  return withRtx([vp8, h264(102, "42e01f"), h264(104, "42001f")]);
}

/**
 * Opus as browsers offer it (RFC 7587: opus/48000/2), for a run's audio track
 * (docs/definitions.md#audio-track).
 */
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

export function peerConfig(
  ice: IceOptions,
  codecs: RTCRtpCodecParameters[],
  videoExtensions: readonly string[] = [ABS_CAPTURE_TIME_URI],
): RTCPeerConnectionConfig {
  const config: RTCPeerConnectionConfig = {
    iceServers: [],
    codecs: { video: codecs, audio: audioCodecs() },
    // one transport for every track, as browsers do: with werift's max-compat default, an audio
    // m-line's own transport stayed open after bundling and its UDP socket outlived close()
    bundlePolicy: "max-bundle",
    headerExtensions: { video: videoExtensions.map((uri) => new RTCRtpHeaderExtensionParameters({ uri })) },
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

export function newPeer(
  ice: IceOptions,
  codecs: RTCRtpCodecParameters[],
  videoExtensions?: readonly string[],
): RTCPeerConnection {
  patchWerift();
  return new RTCPeerConnection(peerConfig(ice, codecs, videoExtensions));
}

/**
 * The publisher's send-only tracks, each in one media stream as a browser sends them, so the offer
 * carries `a=msid:<stream> <track>` on every sent media section: servers such as SRS create a
 * publish track only from an msid (docs/definitions.md#webrtc-configuration).
 */
export function sendTracks(
  pc: RTCPeerConnection,
  withAudio: boolean,
  rids: readonly string[] = [],
): { video: RTCRtpTransceiver; audio: RTCRtpTransceiver | null } {
  const stream = new MediaStream();
  const add = (kind: "video" | "audio") =>
    pc.addTransceiver(kind, { direction: "sendonly", streams: [stream] });
  // simulcast (RFC 8853): `a=rid:<rid> send` per layer and `a=simulcast:send <rids>`
  const simulcast = rids.map((rid) => ({ rid, direction: "send" as const }));
  const video =
    rids.length > 0
      ? pc.addTransceiver("video", { direction: "sendonly", streams: [stream], simulcast })
      : add("video");
  return { video, audio: withAudio ? add("audio") : null };
}

/**
 * A relay leg's sent track in a media stream of its own, so its answer carries `a=msid`: without
 * it libwebrtc (M106) takes the media SSRC and its RTX SSRC for two tracks and refuses the answer
 * ("more than one track specified with a=ssrc lines").
 */
export function sendInStream(tr: RTCRtpTransceiver): void {
  tr.sender.setStreams([new MediaStream()]);
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
      reject(new IceGatheringError("ICE gathering did not complete"));
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
  return extensionId(extensions, ABS_CAPTURE_TIME_URI);
}

/** The negotiated id of the extension `uri` on a transceiver's sender/receiver, or 0. */
export function extensionId(extensions: readonly { id: number; uri: string }[], uri: string): number {
  for (const e of extensions) if (e.uri === uri) return e.id;
  return 0;
}

/**
 * A simulcast offer as a browser sends it: its video section names its layers by rid only, with no
 * `a=ssrc` or `a=ssrc-group` line (werift writes its sender's one SSRC, which no layer uses).
 */
export function ridOnlyOffer(sdp: string): string {
  let video = false;
  return sdp
    .split("\r\n")
    .filter((line) => {
      if (line.startsWith("m=")) video = line.startsWith("m=video");
      return !(video && (line.startsWith("a=ssrc:") || line.startsWith("a=ssrc-group:")));
    })
    .join("\r\n");
}
