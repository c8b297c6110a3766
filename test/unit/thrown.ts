import assert from "node:assert/strict";

/** The message `fn` throws; fails the test when it throws nothing. */
export function thrown(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    return (err as Error).message;
  }
  assert.fail("no error thrown");
}
