// When a viewer asks for a keyframe (docs/definitions.md#keyframe-requests), as a pure function of
// instants; the worker's timer only calls poll() on time. "browser" follows libwebrtc's receive
// stream: its frame buffer waits for a frame to release — 200 ms while it still needs a keyframe
// (before the first shown frame), 3 s after — and on each timeout, counted from the last frame
// shown or the last timeout, asks for a keyframe (PLI) when an RTP packet arrived within 5 s and
// no keyframe packet within 200 ms; with no packet for 5 s it marks the stream inactive (the
// pause of the freeze clock). It also asks when the first frame completed is not a keyframe, and
// when the NACK list would pass 1 000 packets. "join" keeps the earlier rule: a PLI with the first
// packet and every 500 ms of packets until the first complete keyframe. An `rtx-time` in the
// answer (libwebrtc's NACK history) shortens the 200 ms and 3 s waits (nackHistory()).

import type { KeyframeRequestMode } from "../scenario/defaults.ts";

export type { KeyframeRequestMode } from "../scenario/defaults.ts";

/** Frame-buffer wait while a keyframe is needed (kMaxWaitForKeyFrame). */
export const WAIT_KEYFRAME_NS = 200e6;
/** Frame-buffer wait once frames are shown (kMaxWaitForFrame). */
export const WAIT_FRAME_NS = 3e9;
/** A stream with no packet for this long is inactive: no request, a pause. */
export const INACTIVE_NS = 5e9;
/** "join": repeat while waiting for the first complete keyframe. */
export const JOIN_REPEAT_NS = 500e6;

/**
 * libwebrtc M106's waits for a NACK history of `historyMs` (video_receive_stream2.cc,
 * DetermineMaxWaitForFrame): the history (keyframe) and 3 × it (frame) when 3 × it is under 3 s,
 * else 200 ms and 3 s; a history of 0 or none (−1) keeps 200 ms and 3 s.
 */
export function maxWaitsNs(historyMs: number): { keyframeNs: number; frameNs: number } {
  if (historyMs > 0 && 3 * historyMs * 1e6 < WAIT_FRAME_NS) {
    return { keyframeNs: historyMs * 1e6, frameNs: 3 * historyMs * 1e6 };
  }
  return { keyframeNs: WAIT_KEYFRAME_NS, frameNs: WAIT_FRAME_NS };
}

export class KeyframeRequestRule {
  readonly mode: KeyframeRequestMode;
  private baseNs = -1;
  /** the receive stream's start: the frame buffer's 200 ms waits run from it (−1: unknown) */
  private startNs = -1;
  private keyframeNeeded = true;
  private lastPacketNs = Number.NEGATIVE_INFINITY;
  private lastKeyPacketNs = Number.NEGATIVE_INFINITY;
  private lastPliNs = Number.NEGATIVE_INFINITY;
  private now = false;
  /** the frame buffer's waits (kMaxWaitForKeyFrame, kMaxWaitForFrame unless nackHistory()) */
  private waitKeyNs = WAIT_KEYFRAME_NS;
  private waitFrameNs = WAIT_FRAME_NS;
  private readonly onInactive: () => void;

  /** `onInactive`: a timeout found no packet for 5 s (the freeze clock's pause). */
  constructor(mode: KeyframeRequestMode, onInactive: () => void) {
    this.mode = mode;
    this.onInactive = onInactive;
  }

  /**
   * One RTP packet at `ns`, `keyPart` when it carries part of a keyframe; `joined`: the viewer
   * has its first complete keyframe. Call after poll(ns). Returns whether a PLI is due now
   * ("join" only; "browser" answers through poll).
   */
  packet(ns: number, keyPart: boolean, joined: boolean): boolean {
    if (this.baseNs < 0) this.baseNs = this.firstWait(ns);
    this.lastPacketNs = ns;
    if (keyPart) this.lastKeyPacketNs = ns;
    if (this.mode !== "join" || joined || ns - this.lastPliNs < JOIN_REPEAT_NS) return false;
    this.lastPliNs = ns;
    return true;
  }

  /**
   * The receive stream started at `ns` (before its first packet): libwebrtc's frame buffer waits
   * 200 ms from then, again and again, so its first timeout after the first packet falls on that
   * grid, not 200 ms after the packet (video_receive_stream2.cc, Start).
   */
  start(ns: number): void {
    if (this.baseNs < 0) this.startNs = ns;
  }

  /**
   * The answer's `rtx-time` for the video codec, ms (−1: none): libwebrtc's NACK history, which
   * sets the waits and the "receiving a keyframe" window (maxWaitsNs). Call before the first packet.
   */
  nackHistory(rtxTimeMs: number): void {
    const w = maxWaitsNs(rtxTimeMs);
    this.waitKeyNs = w.keyframeNs;
    this.waitFrameNs = w.frameNs;
  }

  /** The wait running when the first packet arrives at `ns`: the last keyframe-wait step of the grid. */
  private firstWait(ns: number): number {
    const s = this.startNs;
    if (s < 0 || ns < s) return ns;
    return s + Math.floor((ns - s) / this.waitKeyNs) * this.waitKeyNs;
  }

  /** A frame was shown at `ns`: the frame buffer's wait starts again. */
  shown(ns: number): void {
    this.baseNs = ns;
    this.keyframeNeeded = false;
  }

  /**
   * The first frame completed is not a keyframe ("browser": a request at once, unless a packet of
   * a keyframe already arrived: libwebrtc would have assembled that keyframe first, where our
   * reassembler may close it a packet later, once the stream proved its head).
   */
  firstFrameNotKey(): void {
    if (this.mode === "browser" && this.lastKeyPacketNs === Number.NEGATIVE_INFINITY) this.now = true;
  }

  /**
   * An IDR packet came before any SPS and PPS: libwebrtc's SPS/PPS tracker drops it and asks at
   * once ("browser").
   */
  parameterSetsMissing(): void {
    if (this.mode === "browser") this.now = true;
  }

  /** The NACK list would pass 1 000 packets ("browser": a request at once). */
  nackOverflow(): void {
    if (this.mode === "browser") this.now = true;
  }

  /**
   * The next instant poll() may send a PLI, ns; −1 before the first packet, and always with
   * "join" (its requests go out with packets; the packets' own polls find the pauses).
   */
  nextDueNs(): number {
    if (this.baseNs < 0 || this.mode === "join") return -1;
    return this.now ? this.lastPacketNs : this.baseNs + this.wait();
  }

  /**
   * Runs the frame buffer's timeouts due by `ns`; returns whether a PLI goes out now (several
   * due at once are one).
   */
  poll(ns: number): boolean {
    let pli = this.now;
    this.now = false;
    if (this.baseNs < 0) return pli;
    for (let t = this.baseNs + this.wait(); t <= ns; t = this.baseNs + this.wait()) {
      this.baseNs = t;
      if (t - this.lastPacketNs >= INACTIVE_NS) this.onInactive();
      else if (this.mode === "browser" && t - this.lastKeyPacketNs >= this.waitKeyNs) pli = true;
    }
    return pli;
  }

  private wait(): number {
    return this.keyframeNeeded ? this.waitKeyNs : this.waitFrameNs;
  }
}
