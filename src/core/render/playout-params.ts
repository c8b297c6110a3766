// The playout stage's parameters (playout.ts, docs/definitions.md#playout): libwebrtc M106's
// constants, and the decoder this model stands in for.

/** kMaxAllowedFrameDelay: a frame this late is skipped when a later one is decodable, ms */
export const SKIP_LATE_MS = 5;
/** the render delay (kDefaultRenderDelay), ms */
export const RENDER_DELAY_MS = 10;
/**
 * libwebrtc's decode-time estimate (the 95th percentile of its decodes over 10 s, each in whole ms):
 * a fixed value here, the whole ms the calibration binary's 0.5–0.75 ms mean decodes round to, ms
 */
export const DECODE_MS = 1;
/**
 * how long the decoder is busy with one frame: the calibration binary's mean VP8 decode at 640×360
 * (getStats totalDecodeTime / framesDecoded, 0.55–0.72 ms in four runs), ms
 */
export const DECODER_BUSY_MS = 0.6;
/** the frame buffer's wait once frames are shown (its timeout), ms */
export const MAX_WAIT_MS = 3000;
/** a render time this far from now, or a target delay this long, resets the timing, ms */
export const MAX_VIDEO_DELAY_MS = 10_000;
/** playout delays at or under this (with a min of 0) render at once (the low-latency path), ms */
export const LOW_LATENCY_MAX_MS = 500;
/** frames decodable and waiting, at most (libwebrtc's buffer holds 800) */
export const QUEUE = 1024;
export const QMASK = QUEUE - 1;

export interface PlayoutDelay {
  minMs: number;
  maxMs: number;
}
