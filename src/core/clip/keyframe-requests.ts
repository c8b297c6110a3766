// Keyframes on request (docs/definitions.md#keyframes-on-request): which clip frame the publisher
// sends next when viewers ask for a keyframe (RTCP PLI or FIR). A request cuts the GOP short:
// the next frame is the clip's next keyframe, no sooner than KEYFRAME_MIN_INTERVAL_NS after the
// last keyframe sent on request; every request until a keyframe goes out is coalesced into it,
// and a keyframe the clip sends in its own turn answers them too.

/** The shortest time between two keyframes sent on request (libwebrtc's encoder uses 300 ms). */
export const KEYFRAME_MIN_INTERVAL_NS = 300e6;

export type KeyframeRequestKind = "pli" | "fir";

export class KeyframeRequests {
  pliReceived = 0;
  firReceived = 0;
  /** keyframes sent before their turn in the clip because of a request */
  keyframesOnRequest = 0;
  private readonly keyframes: readonly boolean[];
  private readonly enabled: boolean;
  private readonly minIntervalNs: number;
  /** per clip index, the first keyframe index at or after it (cyclic) */
  private readonly nextKey: Int32Array;
  private pending = false;
  private lastOnRequestNs = Number.NEGATIVE_INFINITY;

  /**
   * `keyframes`: the clip's keyframe flags (index 0 a keyframe); `enabled` false: requests are only
   * counted.
   */
  constructor(keyframes: readonly boolean[], enabled: boolean, minIntervalNs = KEYFRAME_MIN_INTERVAL_NS) {
    this.keyframes = keyframes;
    this.enabled = enabled;
    this.minIntervalNs = minIntervalNs;
    const n = keyframes.length;
    this.nextKey = new Int32Array(n);
    let next = 0;
    for (let j = 2 * n - 1; j >= 0; j--) {
      if (keyframes[j % n]) next = j % n;
      if (j < n) this.nextKey[j] = next;
    }
  }

  /** One request arrived. */
  request(kind: KeyframeRequestKind): void {
    if (kind === "pli") this.pliReceived++;
    else this.firReceived++;
    if (this.enabled) this.pending = true;
  }

  /** Whether a request waits for its keyframe. */
  get waiting(): boolean {
    return this.pending;
  }

  /** The clip index to send after clip index `i`, at `nowNs` (monotonic). */
  next(i: number, nowNs: number): number {
    const n = this.keyframes.length;
    const j = (i + 1) % n;
    if (!this.pending || this.keyframes[j] || nowNs - this.lastOnRequestNs < this.minIntervalNs) return j;
    this.keyframesOnRequest++;
    this.lastOnRequestNs = nowNs;
    return this.nextKey[j] ?? 0;
  }

  /** Clip index `i` was sent: a keyframe answers every request so far. */
  sent(i: number): void {
    if (this.keyframes[i]) this.pending = false;
  }
}
