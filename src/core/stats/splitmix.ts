// SplitMix64 with BigInt (docs/definitions.md#start-schedule): the seeded per-viewer ramp offsets.
// Offset i depends only on the seed and i, never on the number of viewers.

const MASK64 = (1n << 64n) - 1n;
const GOLDEN = 0x9e3779b97f4a7c15n;
const MUL1 = 0xbf58476d1ce4e5b9n;
const MUL2 = 0x94d049bb133111ebn;
const TWO53 = 2 ** 53;

/** The first `count` raw SplitMix64 outputs for a seed (an int64; negatives as two's complement). */
export function splitmixOutputs(seed: bigint, count: number): bigint[] {
  let state = BigInt.asUintN(64, seed);
  const out: bigint[] = [];
  for (let i = 0; i < count; i++) {
    state = (state + GOLDEN) & MASK64;
    let z = state;
    z = ((z ^ (z >> 30n)) * MUL1) & MASK64;
    z = ((z ^ (z >> 27n)) * MUL2) & MASK64;
    out.push(z ^ (z >> 31n));
  }
  return out;
}

/**
 * Offsets in integer ns, each truncate(((output >> 11) / 2^53) × boundNs), so in [0, boundNs)
 * for boundNs ≥ 1 (exactly as the Go tool computes it in float64).
 */
export function rampOffsetsNs(seed: bigint, boundNs: number, count: number): number[] {
  return splitmixOutputs(seed, count).map((z) => Math.trunc((Number(z >> 11n) / TWO53) * boundNs));
}

/** A SplitMix64 stream: each call returns the next fraction in [0, 1) (the top 53 bits over 2^53). */
export function splitmixFractions(seed: bigint): () => number {
  let state = BigInt.asUintN(64, seed);
  return () => {
    state = (state + GOLDEN) & MASK64;
    let z = state;
    z = ((z ^ (z >> 30n)) * MUL1) & MASK64;
    z = ((z ^ (z >> 27n)) * MUL2) & MASK64;
    return Number((z ^ (z >> 31n)) >> 11n) / TWO53;
  };
}
