// The relay's packet ring (src/core/relay/packet-ring.ts): what is written is read back in place
// (fields, abs-capture-time, payload), across the ring's wrap; a second view of the same memory
// (another thread's) sees the same; a payload too large for a slot is refused, not cut.
import assert from "node:assert/strict";
import { test } from "node:test";
import { PacketRing, RING_SLOT_BYTES, RING_SLOTS } from "../../src/core/relay/packet-ring.ts";

test("packets written are read back in place, across the wrap, from another view of the memory", () => {
  const ring = new PacketRing();
  const other = new PacketRing(ring.sab);
  const total = RING_SLOTS + 10;
  for (let n = 0; n < total; n++) {
    const abs = n % 2 === 0 ? Buffer.alloc(8, n & 0xff) : null;
    assert.ok(
      ring.write(
        (65530 + n) & 0xffff,
        (0xfffffff0 + n * 3000) >>> 0,
        n % 3 === 0,
        Buffer.alloc(100 + (n % 50), n & 0xff),
        abs,
      ),
    );
  }
  assert.equal(other.count, total);
  for (const n of [RING_SLOTS - 1, RING_SLOTS, total - 1]) {
    const p = other.read(n);
    assert.equal(p.seq, (65530 + n) & 0xffff);
    assert.equal(p.ts, (0xfffffff0 + n * 3000) >>> 0);
    assert.equal(p.marker, n % 3 === 0);
    assert.deepEqual(p.payload, Buffer.alloc(100 + (n % 50), n & 0xff));
    assert.deepEqual(p.abs, n % 2 === 0 ? Buffer.alloc(8, n & 0xff) : null);
  }
});

test("a payload larger than a slot is refused and the count stays", () => {
  const ring = new PacketRing();
  assert.equal(ring.write(1, 1, false, Buffer.alloc(RING_SLOT_BYTES), null), false);
  assert.equal(ring.count, 0);
});
