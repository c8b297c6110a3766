// Shared settings of the property-based (fast-check) tests under test/fuzz.
//
// Case counts: every property has a default count, small enough that the whole fuzz suite
// runs in a few seconds inside `npm test`. A longer run:
//   WB_FUZZ_SCALE=20   every property runs 20× its default count (`npm run test:fuzz` does this)
//   WB_FUZZ_RUNS=N     every property runs exactly N cases (overrides the scale)
//   WB_FUZZ_SEED=S     replays a failing run (fast-check prints the seed and the path)
//   WB_FUZZ_CASE_MS=M  the bound on one case's run time (default 2000 ms)
import assert from "node:assert/strict";
import type { TestContext } from "node:test";
import fc from "fast-check";

function positiveInt(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`${name} must be a positive integer, not ${JSON.stringify(raw)}`);
  return n;
}

const RUNS = positiveInt("WB_FUZZ_RUNS");
const SCALE = positiveInt("WB_FUZZ_SCALE") ?? 1;
const SEED = process.env.WB_FUZZ_SEED;
/** A case taking longer than this fails: the "no hang" bound (inputs are small, cases take ≪ 1 ms to a few ms). */
export const CASE_MS = positiveInt("WB_FUZZ_CASE_MS") ?? 2000;

/** The number of cases a property with `defaultRuns` runs in this process. */
export function runsFor(defaultRuns: number): number {
  return RUNS ?? defaultRuns * SCALE;
}

/**
 * Runs a property for its case count and reports the count as a test diagnostic. Every case
 * is timed: one that runs past CASE_MS fails (a sync property cannot be interrupted, so a
 * real infinite loop would hang the file; the bound catches the super-linear blow-ups that
 * bounded inputs can still produce).
 */
export function check<Ts extends [unknown, ...unknown[]]>(
  t: TestContext,
  defaultRuns: number,
  arbs: { [K in keyof Ts]: fc.Arbitrary<Ts[K]> },
  predicate: (...args: Ts) => void,
): void {
  const numRuns = runsFor(defaultRuns);
  const timed = (...args: Ts): void => {
    const start = performance.now();
    predicate(...args);
    const ms = performance.now() - start;
    assert.ok(ms < CASE_MS, `one case ran ${ms.toFixed(0)} ms (bound ${CASE_MS} ms)`);
  };
  const prop = fc.property(...arbs, timed);
  fc.assert(prop, {
    numRuns,
    includeErrorInReport: true,
    ...(SEED !== undefined && SEED !== "" ? { seed: Number(SEED) } : {}),
  });
  t.diagnostic(`${numRuns} cases`);
}

/** Asserts that `fn` returns, or throws an instance of one of `allowed` (and nothing else). */
export function onlyThrows<T>(
  fn: () => T,
  allowed: ReadonlyArray<abstract new (...args: never[]) => Error>,
): { ok: true; value: T } | { ok: false; error: Error } {
  try {
    return { ok: true, value: fn() };
  } catch (err) {
    const known = allowed.some((cls) => err instanceof cls);
    assert.ok(known, `unexpected throw: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    return { ok: false, error: err as Error };
  }
}

/**
 * Arrays of up to maxLength items: half the time short (fast-check's default "small" size,
 * about ten items at most), half the time of any length up to maxLength.
 */
export function list<T>(arb: fc.Arbitrary<T>, maxLength: number, minLength = 0): fc.Arbitrary<T[]> {
  return fc.oneof(
    fc.array(arb, { minLength, maxLength }),
    fc.array(arb, { minLength, maxLength, size: "max" }),
  );
}

/** Byte arrays where 0x00, 0x01, 0x03 and 0xff are common (start codes, escapes, flags). */
export function bytes(maxLength: number, minLength = 0): fc.Arbitrary<Uint8Array> {
  const byte = fc.oneof(
    { weight: 3, arbitrary: fc.integer({ min: 0, max: 255 }) },
    { weight: 2, arbitrary: fc.constantFrom(0x00, 0x01, 0x03, 0xff) },
  );
  return list(byte, maxLength, minLength).map((a) => Uint8Array.from(a));
}

/** Concatenation of byte arrays. */
export function concat(parts: readonly Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}

/** Whether `view` is a window into the same memory as `whole` (a subarray of it). */
export function isViewInto(view: Uint8Array, whole: Uint8Array): boolean {
  return (
    view.buffer === whole.buffer &&
    view.byteOffset >= whole.byteOffset &&
    view.byteOffset + view.length <= whole.byteOffset + whole.length
  );
}
