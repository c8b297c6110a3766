// The reassembler of a VP8 or H.264 track: the codec's frame-start marks (its head proof) and
// what makes a complete frame a keyframe (docs/definitions.md#decodable-frames).
import { frameStartH264, h264Pieces, idrPartH264 } from "../codec/h264.ts";
import { frameStartVp8, keyframeStartVp8, keyPartVp8, vp8Pieces } from "../codec/vp8.ts";
import type { Codec } from "../types.ts";
import { type FrameStart, Reassembler } from "./reassembler.ts";

/** A VP8 frame is a keyframe when its first packet starts one (P bit 0). */
function frameKeyVp8(head: Uint8Array): boolean {
  return keyframeStartVp8(head);
}

/** An H.264 frame is a keyframe when a packet carries part of an IDR slice (STAP-A and FU-A too). */
function frameKeyH264(_head: Uint8Array, payloads: readonly Uint8Array[], count: number): boolean {
  for (let j = 0; j < count; j++) if (idrPartH264(payloads[j]!)) return true;
  return false;
}

export const VP8_FRAME_START: FrameStart = {
  startClass: frameStartVp8,
  keyPart: keyPartVp8,
  frameKey: frameKeyVp8,
  certain: 1 << 0, // S with partition 0 marks only a frame's first packet (libwebrtc's VP8 packet buffer)
};
export const H264_FRAME_START: FrameStart = {
  startClass: frameStartH264,
  keyPart: idrPartH264,
  frameKey: frameKeyH264,
  certain: 1 << 9, // an AUD is the first NAL unit of its access unit (H.264 7.4.1.2.3)
  streamFirst: 1 << 7, // an SPS begins the keyframe a viewer starts on (docs/definitions.md#reassembly)
};

/** The reassembler of a VP8 or H.264 track, with the codec's frame-start head proof. */
export function reassemblerFor(codec: Codec): Reassembler {
  return codec === "vp8"
    ? new Reassembler({ pieces: vp8Pieces }, VP8_FRAME_START)
    : new Reassembler({ pieces: h264Pieces }, H264_FRAME_START);
}
