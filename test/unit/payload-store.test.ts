// The reassembler's copies of reused payloads (copyInto, the arena path): frames completed from
// one buffer that the caller overwrites after every push come out byte for byte, while frames
// interleave and the store's payload chunks are released and reused; and reuse keeps the number
// of chunks made bounded however much is copied.
import assert from "node:assert/strict";
import { test } from "node:test";
import { depacketizeVp8 } from "../../src/core/codec/vp8.ts";
import { CHUNK_BYTES, type PayloadChunk, PayloadStore } from "../../src/core/rtp/payload-store.ts";
import { type CompletedFrame, Reassembler } from "../../src/core/rtp/reassembler.ts";

const FRAMES = 3000;
const MS = 1e6;

/** Deterministic payload bytes of packet j of frame k (after the VP8 descriptor), 200..1399 long. */
function data(k: number, j: number): Uint8Array {
  const n = 200 + ((k * 7919 + j * 104729) % 1200);
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = (k * 31 + j * 17 + i) & 0xff;
  return out;
}

function expected(k: number): Buffer {
  return Buffer.concat([data(k, 0), data(k, 1), data(k, 2)]);
}

function joined(f: CompletedFrame): Buffer {
  assert.ok(f.pieces !== null, "frame rejected");
  return Buffer.concat(f.pieces.views());
}

test("copyInto: frames from one reused buffer are whole and exact while chunks are reused", () => {
  const r = new Reassembler(depacketizeVp8);
  const store = new PayloadStore();
  r.copyInto = store;
  const slot = new Uint8Array(2048);
  const out: CompletedFrame[] = [];
  // frame k is packets 3k..3k+2; order: p0(k) p2(k) p1(k−1) — frame k−1 completes while k is pending
  const order: [number, number][] = [];
  for (let k = 0; k < FRAMES; k++) {
    order.push([k, 0], [k, 2]);
    if (k > 0) order.push([k - 1, 1]);
  }
  let t = 0;
  let completed = 0;
  let copied = 0;
  for (const [k, j] of order) {
    const d = data(k, j);
    slot[0] = j === 0 ? 0x10 : 0x00;
    slot.set(d, 1);
    const view = slot.subarray(0, d.length + 1);
    out.length = 0;
    const n = r.push((3 * k + j) & 0xffff, (k * 3000) >>> 0, j === 2, view, ++t * MS, out);
    for (let i = 0; i < n; i++) {
      const f = out[i]!;
      const fk = f.timestamp / 3000;
      assert.deepEqual(joined(f), expected(fk), `frame ${fk}`);
      completed++;
    }
    if (j !== 1) copied += view.length;
    slot.fill(0xee); // the caller reuses its buffer
  }
  // frame 0 has no packet before it to prove its head; every later one but the last completes
  assert.equal(completed, FRAMES - 2);
  assert.ok(copied > 40 * CHUNK_BYTES, `copied ${copied} bytes`);
  const made = store.chunks().made;
  assert.ok(made >= 1 && made <= 3, `${made} chunks made for ${copied} bytes copied`);
});

test("copyInto: a frame that the next frame's first packet completes is read intact after that packet's copy", () => {
  // no markers: each frame ends when the next one's first packet arrives, and that packet is
  // copied in the same push, after the completed frame's slots were recycled; frames of 150
  // packets span several chunks, so a chunk the completed frame filled from its start is free
  // at that moment, and a copy into it would overwrite the frame before it is read
  const r = new Reassembler(depacketizeVp8);
  r.copyInto = new PayloadStore();
  const slot = new Uint8Array(2048);
  const out: CompletedFrame[] = [];
  const PACKETS = 150;
  const FRAMES_BIG = 400;
  const want = (k: number): Buffer => Buffer.concat(Array.from({ length: PACKETS }, (_, j) => data(k, j)));
  let t = 0;
  let completed = 0;
  for (let k = 0; k < FRAMES_BIG; k++) {
    for (let j = 0; j < PACKETS; j++) {
      const d = data(k, j);
      slot[0] = j === 0 ? 0x10 : 0x00;
      slot.set(d, 1);
      out.length = 0;
      const seq = (PACKETS * k + j) & 0xffff;
      const n = r.push(seq, (k * 3000) >>> 0, false, slot.subarray(0, d.length + 1), ++t * MS, out);
      for (let i = 0; i < n; i++) {
        const f = out[i]!;
        assert.ok(want(f.timestamp / 3000).equals(joined(f)), `frame ${f.timestamp / 3000}`);
        completed++;
      }
      slot.fill(0xee);
    }
  }
  assert.equal(completed, FRAMES_BIG - 2);
});

test("PayloadStore: each store keeps its own chunks (one per thread, no module state)", () => {
  const a = new PayloadStore();
  const b = new PayloadStore();
  const into: { chunk: PayloadChunk | null } = { chunk: null };
  const kept = a.keep(Uint8Array.of(1, 2, 3), into);
  assert.deepEqual([...kept], [1, 2, 3]);
  assert.deepEqual(a.chunks(), { made: 1, free: 0 });
  assert.deepEqual(b.chunks(), { made: 0, free: 0 });
  const other = b.keep(Uint8Array.of(9), { chunk: null });
  assert.equal(other[0], 9);
  assert.equal(kept[0], 1, "a copy in one store is not overwritten by another's");
  assert.ok(into.chunk !== null);
  a.release(into.chunk);
  assert.deepEqual(a.chunks(), { made: 1, free: 0 }, "the chunk in use stays current, not freed");
});
