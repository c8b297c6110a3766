// The two clocks. Everything that is subtracted uses the monotonic clock, which is process-wide
// (a worker's arrival instant and the main thread's send instant are on the same clock). Wall
// time is for report timestamps, abs-capture-time stamps and the clock exchange: it is derived
// from one anchor taken in the main thread (wall = anchorWall + (mono − anchorMono)), so every
// thread of one process reads the same wall clock, finer than Date.now()'s millisecond, and a
// step of the system clock during a run cannot move it (the step watch reports such steps).

/**
 * Monotonic nanoseconds (CLOCK_MONOTONIC) as a Number; exact to the ns below 2^53 ns (104 days of
 * uptime).
 */
export function monoNs(): number {
  return Number(process.hrtime.bigint());
}

export interface WallAnchor {
  /** Unix time in ns at the anchor, as a Number (≈ 256 ns resolution at today's magnitude) */
  wallNs: number;
  monoNs: number;
}

/**
 * A wall-clock reading finer than Date.now()'s millisecond: wait for the millisecond to turn.
 * The turn happened between the last call that returned the old value and the first that
 * returned the new one; both are bracketed by monotonic readings, so the new value (exact at the
 * edge) is paired with the middle of that window, known to ± half its width. A window wider
 * than 10 µs (the thread was preempted) is retried at the next edge, up to 5 times; the best
 * attempt is returned with its uncertainty. Blocks for about 1 ms.
 */
export function edgeWallReading(): { wallNs: number; monoNs: number; uncertaintyNs: number } {
  let best = { wallNs: 0, monoNs: 0, uncertaintyNs: Number.POSITIVE_INFINITY };
  for (let attempt = 0; attempt < 5 && best.uncertaintyNs > 5_000; attempt++) {
    let prevBefore = monoNs();
    const start = Date.now();
    const limit = prevBefore + 3e6;
    for (;;) {
      const before = monoNs();
      const now = Date.now();
      const after = monoNs();
      if (now !== start) {
        const half = (after - prevBefore) / 2;
        if (half < best.uncertaintyNs)
          best = { wallNs: now * 1e6, monoNs: prevBefore + half, uncertaintyNs: half };
        break;
      }
      if (after > limit) break;
      prevBefore = before;
    }
  }
  return best;
}

let testOffsetNs = 0;

/**
 * The clock's one injection point, for tests only: shifts the wall anchors this process takes
 * from now on by `ns`, so that a publisher and a viewer process have clocks that differ by a
 * known offset (test/e2e/faults/wall-offset.ts sets it in a child through a preloaded module).
 */
export function setTestWallOffsetNs(ns: number): void {
  testOffsetNs = ns;
}

/** Take the anchor from an edge-aligned wall reading. */
export function takeWallAnchor(): WallAnchor {
  const r = edgeWallReading();
  return { wallNs: r.wallNs + testOffsetNs, monoNs: r.monoNs };
}

export function wallOf(anchor: WallAnchor, mono: number): number {
  return anchor.wallNs + (mono - anchor.monoNs);
}

/** Wall clock now as a bigint of Unix ns (report timestamps). */
export function wallNowUnixNs(anchor: WallAnchor): bigint {
  return BigInt(Math.round(wallOf(anchor, monoNs())));
}
