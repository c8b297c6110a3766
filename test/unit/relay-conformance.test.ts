// The relay's test-only burst and wrap shift (src/main/relay/conformance.ts).
import assert from "node:assert/strict";
import { test } from "node:test";
import { Burst, WrapShift } from "../../src/main/relay/conformance.ts";

test("burst: opens on a keyframe start once every leg is connected and settled, then stays open", () => {
  const b = new Burst({ legs: 2, packets: 10, settleMs: 100 });
  assert.equal(b.admit(1, true, 0), false, "one leg only");
  assert.equal(b.admit(2, true, 10), false, "not settled");
  assert.equal(b.admit(2, false, 200), false, "settled, but not a keyframe start");
  assert.equal(b.admit(2, true, 210), true);
  assert.equal(b.admit(1, false, 220), true, "stays open");
  assert.equal(b.limit, 10);
  const reset = new Burst({ legs: 2, packets: 1, settleMs: 100 });
  reset.admit(2, false, 0);
  reset.admit(1, false, 50); // a leg dropped: the settle time starts again
  assert.equal(reset.admit(2, true, 120), false);
  assert.equal(reset.admit(2, true, 221), true);
});

test("wrap shift: sequence numbers and timestamps wrap `after` packets into the stream", () => {
  const w = new WrapShift(60);
  w.see(1234, 0xfff00000);
  w.see(9999, 5); // only the first packet sets the shift
  assert.equal(w.seq(1234), 65536 - 60);
  assert.equal(w.seq(1234 + 59), 65535);
  assert.equal(w.seq(1234 + 60), 0);
  const first = w.ts(0xfff00000);
  assert.equal(first, 2 ** 32 - Math.round((60 / 132) * 90000));
  assert.ok(w.ts(0xfff00000 + 45000) < first, "the timestamp wrapped within half a second");
});
