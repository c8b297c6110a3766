// werift's public API as this project uses it: every file in src/ outside src/net/werift imports
// werift from here and nothing else (test/unit/imports.test.ts), so what the project touches of
// werift is one list, and its internals are reached only through the seam's other files.
export type {
  MediaStreamTrack,
  RTCPeerConnectionConfig,
  RTCRtpTransceiver,
  RtcpPacket,
} from "werift";
export {
  MediaStream,
  RTCPeerConnection,
  RTCRtpCodecParameters,
  RTCRtpHeaderExtensionParameters,
  RtcpPayloadSpecificFeedback,
  RtcpTransportLayerFeedback,
  RtpHeader,
  RtpPacket,
} from "werift";
