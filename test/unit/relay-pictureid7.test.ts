// The relay's test-only PictureID rewrites (src/main/relay/vp8-pictureid7.ts): a 15-bit PictureID
// becomes its low 7 bits in one byte, or goes; the frame's bytes after the descriptor unchanged.
import assert from "node:assert/strict";
import { test } from "node:test";
import { packetizeVp8, pictureIdBits, vp8PictureId } from "../../src/core/codec/vp8.ts";
import { toPictureId7, withoutPictureId } from "../../src/main/relay/vp8-pictureid7.ts";

test("a 15-bit PictureID is rewritten to 7 bits; the payload after the descriptor is kept", () => {
  const frame = Uint8Array.from({ length: 50 }, (_, i) => i);
  const p = Buffer.from(packetizeVp8(frame, 1200, 300)[0]!);
  assert.equal(vp8PictureId(p), 300);
  assert.equal(pictureIdBits(p), 15);
  const q = toPictureId7(p);
  assert.equal(q.length, p.length - 1);
  assert.equal(vp8PictureId(q), 300 & 0x7f);
  assert.equal(pictureIdBits(q), 7);
  assert.deepEqual([...q.subarray(3)], [...p.subarray(4)]);
  // already 7 bits, or no PictureID: as it was
  assert.equal(toPictureId7(q), q);
  const none = Buffer.from([0x10, 0x00, 1, 2]);
  assert.equal(toPictureId7(none), none);
});

test("a PictureID of either width is removed (I bit cleared); the payload after it is kept", () => {
  const frame = Uint8Array.from({ length: 50 }, (_, i) => i);
  const p = Buffer.from(packetizeVp8(frame, 1200, 300)[0]!);
  const q = withoutPictureId(p);
  assert.equal(vp8PictureId(q), -1);
  assert.equal(q.length, p.length - 2);
  assert.equal(q[0], p[0]);
  assert.deepEqual([...q.subarray(2)], [...p.subarray(4)]);
  const r = withoutPictureId(toPictureId7(p));
  assert.equal(vp8PictureId(r), -1);
  assert.deepEqual([...r], [...q]);
  // no PictureID, or no extension byte: as it was
  assert.equal(withoutPictureId(q), q);
  const plain = Buffer.from([0x10, 1, 2, 3]);
  assert.equal(withoutPictureId(plain), plain);
});
