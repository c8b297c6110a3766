// Which of libwebrtc's reference finders a frame goes to (docs/definitions.md#decodable-frames;
// modules/video_coding/rtp_frame_reference_finder.cc): VP8 with a temporal index and a TL0PICIDX →
// the VP8 finder (vp8-ref-finder.ts); VP8 with a PictureID otherwise → frame-id; H.264, and VP8
// without a PictureID → seq-num. Generic frame descriptors are not read (the generic finder is not
// modelled).
import { vp8PictureId } from "../codec/vp8.ts";
import { vp8Layers } from "./vp8-ref-finder.ts";

export type FinderKind = "vp8" | "frame-id" | "seq-num";

/** libwebrtc's finder for a frame whose first packet's payload is `head`. */
export function finderFor(codec: "vp8" | "h264", head: Uint8Array): FinderKind {
  if (codec !== "vp8" || vp8PictureId(head) < 0) return "seq-num";
  return vp8Layers(head) >= 0 ? "vp8" : "frame-id";
}
