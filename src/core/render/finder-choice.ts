// Which of libwebrtc's reference finders a frame goes to (docs/definitions.md#decodable-frames;
// modules/video_coding/rtp_frame_reference_finder.cc): VP8 with a temporal index and a TL0PICIDX →
// the VP8 finder (vp8-ref-finder.ts); VP8 with a PictureID otherwise → frame-id; H.264, and VP8
// without a PictureID → seq-num. A frame whose first packet carried a dependency descriptor goes to
// the generic finder whatever its codec (render-model.ts chooses it before this).

export type FinderKind = "vp8" | "frame-id" | "seq-num" | "generic";

/**
 * libwebrtc's finder for a frame: `pid` the PictureID of its first packet's VP8 descriptor (−1: none,
 * or H.264), `layers` its temporal index and TL0PICIDX (vp8Layers; −1: not both).
 */
export function finderOf(pid: number, layers: number): FinderKind {
  if (pid < 0) return "seq-num";
  return layers >= 0 ? "vp8" : "frame-id";
}
