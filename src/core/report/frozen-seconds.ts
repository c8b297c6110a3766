// The viewers frozen per second of a run (docs/definitions.md#viewers-frozen-per-second): each
// freeze a viewer counts, split over the run seconds it covers, as whole nanoseconds of frozen
// viewer-time per second. A freeze is known only when the frame that ends it is shown, so a tick
// carries what was learnt since the previous one, keyed by the second it fell in; integer sums,
// so threads and agents add up exactly in any order.

/**
 * Flat pairs `[second, ns, second, ns, …]`: frozen viewer-time learnt since the previous tick, by
 * the run second it fell in (second k covers t0 + (k − 1) s to t0 + k s, as the timeline's `t`).
 */
export type FrozenPairs = number[];

export class FrozenSeconds {
  private bySecond = new Map<number, number>();
  /** freezes counted since the previous take */
  freezes = 0;

  /** One freeze from `startNs` to `endNs` (monotonic), on a run whose t0 is `t0Ns`. */
  add(startNs: number, endNs: number, t0Ns: number): void {
    this.freezes++;
    let from = Math.max(Math.round(startNs - t0Ns), 0);
    const to = Math.round(endNs - t0Ns);
    while (from < to) {
      const second = Math.floor(from / 1e9) + 1;
      const edge = Math.min(second * 1e9, to);
      this.bySecond.set(second, (this.bySecond.get(second) ?? 0) + (edge - from));
      from = edge;
    }
  }

  /** What was learnt since the previous take, as pairs ascending by second; then empty. */
  take(): { freezes: number; frozenNs: FrozenPairs } {
    const out: FrozenPairs = [];
    for (const s of [...this.bySecond.keys()].sort((a, b) => a - b)) out.push(s, this.bySecond.get(s) ?? 0);
    const freezes = this.freezes;
    this.bySecond = new Map();
    this.freezes = 0;
    return { freezes, frozenNs: out };
  }
}

/** Adds pairs into a per-second total. */
export function addPairs(into: Map<number, number>, pairs: readonly number[]): void {
  for (let i = 0; i + 1 < pairs.length; i += 2) {
    const second = pairs[i] ?? 0;
    into.set(second, (into.get(second) ?? 0) + (pairs[i + 1] ?? 0));
  }
}

/** Several ticks' pairs summed by second, ascending. */
export function mergePairs(lists: readonly (readonly number[])[]): FrozenPairs {
  const m = new Map<number, number>();
  for (const l of lists) addPairs(m, l);
  const out: FrozenPairs = [];
  for (const s of [...m.keys()].sort((a, b) => a - b)) out.push(s, m.get(s) ?? 0);
  return out;
}

/** The total frozen viewer-time of pairs, ns. */
export function pairsTotalNs(pairs: readonly number[]): number {
  let sum = 0;
  for (let i = 1; i < pairs.length; i += 2) sum += pairs[i] ?? 0;
  return sum;
}
