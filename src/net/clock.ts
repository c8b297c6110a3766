// The two clocks. Everything that is subtracted uses the monotonic clock, which is process-wide
// (a worker's arrival instant and the main thread's send instant are on the same clock). Wall
// time is only for report timestamps and abs-capture-time stamps: it is derived from one anchor
// taken in the main thread (wall = anchorWall + (mono − anchorMono)), so every thread of one
// process reads the same wall clock, finer than Date.now()'s millisecond.

/** Monotonic nanoseconds (CLOCK_MONOTONIC) as a Number; exact to the ns below 2^53 ns (104 days of uptime). */
export function monoNs(): number {
  return Number(process.hrtime.bigint());
}

export interface WallAnchor {
  /** Unix time in ns at the anchor, as a Number (≈ 256 ns resolution at today's magnitude) */
  wallNs: number;
  monoNs: number;
}

/** Take the anchor: performance.timeOrigin is the wall clock at thread start with sub-ms precision. */
export function takeWallAnchor(): WallAnchor {
  const mono = monoNs();
  const wall = (performance.timeOrigin + performance.now()) * 1e6;
  return { wallNs: wall, monoNs: mono };
}

export function wallOf(anchor: WallAnchor, mono: number): number {
  return anchor.wallNs + (mono - anchor.monoNs);
}

/** Wall clock now as a bigint of Unix ns (report timestamps). */
export function wallNowUnixNs(anchor: WallAnchor): bigint {
  return BigInt(Math.round(wallOf(anchor, monoNs())));
}
