// What the render model (render-model.ts) is given of a completed frame, and the counters of a
// viewer that showed nothing.
import { zeroCounts } from "../figures.ts";
import type { RenderCounters } from "../types.ts";
import { RENDER_COUNT_KEYS } from "./counts.ts";

/** The render counters of a viewer that showed nothing. */
export function emptyRender(): RenderCounters {
  return { finder: "", ...zeroCounts(RENDER_COUNT_KEYS), endGapMs: -1 };
}

/** What the model needs of a completed frame (the reassembler's CompletedFrame has it). */
export interface RenderFrame {
  /** extended sequence numbers of its lowest and highest packets */
  lo: number;
  hi: number;
  /** the payload at `lo` (VP8: its descriptor carries the PictureID) */
  head: Uint8Array;
  keyframe: boolean;
  /** arrival of the packet that completed it, ns */
  completedNs: number;
  /** its RTP timestamp (32 bits) */
  timestamp: number;
}
