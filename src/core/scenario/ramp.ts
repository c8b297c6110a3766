// The ramp's start slots (docs/definitions.md#start-schedule): viewer i of n starts
// floor(ramp · i / n) ns after t0 (integer arithmetic), plus its seeded offset when there is one.

export function rampStartsNs(n: number, rampNs: number, offsets: readonly number[] | null): number[] {
  const startNs: number[] = new Array<number>(n);
  const ramp = BigInt(rampNs);
  const bn = BigInt(n);
  for (let i = 0; i < n; i++) {
    const slot = Number((ramp * BigInt(i)) / bn); // floor: both non-negative
    startNs[i] = slot + (offsets?.[i] ?? 0);
  }
  return startNs;
}
