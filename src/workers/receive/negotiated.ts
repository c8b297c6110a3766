// What a viewer's transceiver negotiated, as its receive chain (chain.ts) reads it once SRTP
// starts or its track arrives: the media codecs apart from rtx (RFC 4588), the rtx payload types,
// the transport-wide sequence number's extension id (docs/definitions.md#viewer-profile) and the
// codec's name as the pipeline takes it.
import { DEPENDENCY_DESCRIPTOR_URI, extensionId, TRANSPORT_CC_URI } from "../../net/rtc.ts";
import type { RTCRtpTransceiver } from "../../net/werift/api.ts";

function isRtx(mime: string): boolean {
  return mime.toLowerCase() === "video/rtx";
}

/** The negotiated codecs that carry media (not rtx), in the transceiver's order. */
export function mediaCodecs(tr: RTCRtpTransceiver): RTCRtpTransceiver["codecs"] {
  return tr.codecs.filter((c) => !isRtx(c.mimeType));
}

/**
 * The transport-wide sequence number's extension id where transport-cc was negotiated (the
 * feedback type on the media codec and the extension both, as libwebrtc requires), else 0.
 */
export function transportCcId(tr: RTCRtpTransceiver): number {
  const media = tr.codecs.find((c) => !isRtx(c.mimeType));
  if (media?.rtcpFeedback.some((f) => f.type === "transport-cc") !== true) return 0;
  return extensionId(tr.headerExtensions, TRANSPORT_CC_URI);
}

/**
 * The dependency descriptor's extension id where it was negotiated, else 0
 * (docs/definitions.md#decodable-frames: no viewer profile offers it today).
 */
export function dependencyDescriptorId(tr: RTCRtpTransceiver): number {
  return extensionId(tr.headerExtensions, DEPENDENCY_DESCRIPTOR_URI);
}

/** The negotiated rtx codecs' payload types (RFC 4588), none where rtx was not negotiated. */
export function rtxPayloadTypes(tr: RTCRtpTransceiver): number[] {
  return tr.codecs.filter((c) => isRtx(c.mimeType)).map((c) => c.payloadType);
}

/** A codec's name from its MIME type, as the pipeline takes it ("video/VP8" → "vp8"). */
export function codecName(mime: string): string {
  const m = mime.toLowerCase();
  return m.startsWith("video/") ? m.slice(6) : m;
}

/** One `a=fmtp` parameter's value (`name=value;…`), undefined where absent. */
function fmtpValue(parameters: string | undefined, name: string): string | undefined {
  for (const part of (parameters ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim().toLowerCase() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * The `rtx-time` (RFC 4588, ms) of the rtx codec whose `apt` is the first media codec, as the
 * answer gave it; −1 where there is none or it is not a whole number (docs/definitions.md#keyframe-requests).
 */
export function rtxTimeMs(tr: RTCRtpTransceiver): number {
  const media = tr.codecs.find((c) => !isRtx(c.mimeType));
  if (media === undefined) return -1;
  for (const c of tr.codecs) {
    if (!isRtx(c.mimeType) || fmtpValue(c.parameters, "apt") !== String(media.payloadType)) continue;
    const t = fmtpValue(c.parameters, "rtx-time");
    return t !== undefined && /^\d{1,9}$/.test(t) ? Number(t) : -1;
  }
  return -1;
}
