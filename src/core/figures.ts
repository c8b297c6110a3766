// A list of figures declared once as a `const` array of names, and what is derived from it
// without writing the names out again: a record of them at 0, a copy in the list's order (the
// report's key order), a sum (pooling over viewers, threads or agents). Setup and report time
// only: per-packet code keeps its plain fields.

/** Every counter of `keys` at 0, in their order. */
export function zeroCounts<K extends string>(keys: readonly K[]): Record<K, number> {
  const out = {} as Record<K, number>;
  for (const k of keys) out[k] = 0;
  return out;
}

/** `from`'s counters of `keys`, in their order (a block's counters from a viewer's). */
export function pickCounts<K extends string>(
  from: Readonly<Record<K, number>>,
  keys: readonly K[],
): Record<K, number> {
  const out = {} as Record<K, number>;
  for (const k of keys) out[k] = from[k];
  return out;
}

/** Adds `from`'s counters of `keys` into `into` (pooling over viewers, threads or agents). */
export function addCounts<K extends string>(
  into: Record<K, number>,
  from: Readonly<Record<K, number>>,
  keys: readonly K[],
): void {
  for (const k of keys) into[k] += from[k];
}
