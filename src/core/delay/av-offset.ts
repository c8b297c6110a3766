// The audio/video offset of one viewer (docs/definitions.md#audio-video-offset): both tracks'
// one-way delay samples binned by the second of their send instant (t1 − delay, from the
// viewer's POST); for each second holding samples of both tracks, the mean audio delay minus the
// mean video delay. Positive: audio arrived later, relative to its send, than video.

/** Per-second sums, grown as the run goes on (one slot per second: bounded by the run's length). */
class Bins {
  readonly sum: number[] = [];
  readonly n: number[] = [];
  add(second: number, delayNs: number): void {
    while (this.n.length <= second) {
      this.sum.push(0);
      this.n.push(0);
    }
    this.sum[second]! += delayNs;
    this.n[second]! += 1;
  }
}

export class AvOffset {
  private readonly originNs: number;
  private readonly audio = new Bins();
  private readonly video = new Bins();

  /** `originNs`: the viewer's POST instant (monotonic ns); seconds count from it. */
  constructor(originNs: number) {
    this.originNs = originNs;
  }

  private second(t1Ns: number, delayNs: number): number {
    return Math.max(0, Math.floor((t1Ns - delayNs - this.originNs) / 1e9));
  }

  /** A video frame's delay sample, its last packet's arrival t1. */
  videoSample(t1Ns: number, delayNs: number): void {
    this.video.add(this.second(t1Ns, delayNs), delayNs);
  }

  /** An audio packet's delay sample, its arrival t1. */
  audioSample(t1Ns: number, delayNs: number): void {
    this.audio.add(this.second(t1Ns, delayNs), delayNs);
  }

  /** The offset of every second with samples of both tracks, ns, in order of the seconds. */
  offsetsNs(): number[] {
    const out: number[] = [];
    const a = this.audio;
    const v = this.video;
    const n = Math.min(a.n.length, v.n.length);
    for (let s = 0; s < n; s++) {
      const na = a.n[s]!;
      const nv = v.n[s]!;
      if (na > 0 && nv > 0) out.push(a.sum[s]! / na - v.sum[s]! / nv);
    }
    return out;
  }
}
