// The dependency descriptor reader (src/core/rtp/dependency-descriptor.ts) on hand-built descriptors
// (bench/dd-writer.ts): the mandatory fields, the structure a keyframe carries, the frame diffs a
// template gives or the frame carries, and the descriptors libwebrtc cannot read.
import assert from "node:assert/strict";
import { test } from "node:test";
import { customDescriptor, deltaDescriptor, keyframeDescriptor } from "../../bench/dd-writer.ts";
import { DdFields, readDependencyDescriptor } from "../../src/core/rtp/dependency-descriptor.ts";

function read(b: Uint8Array, known: DdFields["structure"]): DdFields | null {
  const out = new DdFields();
  return readDependencyDescriptor(b, 0, b.length, known, out) ? out : null;
}

test("a keyframe's descriptor: its mandatory fields and the L1T2 structure", () => {
  const k = read(keyframeDescriptor(65530, false), null);
  assert.ok(k !== null);
  assert.equal(k.start, true);
  assert.equal(k.end, false);
  assert.equal(k.frameNumber, 65530);
  assert.equal(k.attached, true);
  const s = k.structure!;
  assert.equal(s.templates, 3);
  assert.equal(s.decodeTargets, 2);
  assert.equal(s.chains, 1);
  assert.deepEqual([...s.fdiffCount.subarray(0, 3)], [0, 1, 1]);
  assert.equal(s.fdiffs[8], 2);
  assert.equal(s.fdiffs[16], 1);
  assert.equal(k.fdiffCount, 0);
});

test("a 3-byte descriptor takes its template's diffs from the structure in force", () => {
  const s = read(keyframeDescriptor(7, true), null)!.structure;
  const base = read(deltaDescriptor(9, 1, true, false), s)!;
  assert.deepEqual([base.start, base.end, base.frameNumber, base.attached], [true, false, 9, false]);
  assert.deepEqual([base.fdiffCount, base.fdiffs[0]], [1, 2]);
  const top = read(deltaDescriptor(10, 2, false, true), s)!;
  assert.deepEqual([top.start, top.end, top.fdiffCount, top.fdiffs[0]], [false, true, 1, 1]);
});

test("custom frame diffs replace the template's", () => {
  const s = read(keyframeDescriptor(7, true), null)!.structure;
  const f = read(customDescriptor(20, 1, [1, 3, 16]), s)!;
  assert.equal(f.fdiffCount, 3);
  assert.deepEqual([...f.fdiffs.subarray(0, 3)], [1, 3, 16]);
});

test("template ids count from the structure's offset", () => {
  const s = read(keyframeDescriptor(7, true, 60), null)!.structure!;
  assert.equal(s.templateIdOffset, 60);
  // template 61 is the structure's second (diff 2), 62 its third, 63 and 0 outside it
  assert.equal(read(deltaDescriptor(8, 61, true, true), s)!.fdiffs[0], 2);
  assert.equal(read(deltaDescriptor(8, 62, true, true), s)!.fdiffs[0], 1);
  assert.equal(read(deltaDescriptor(8, 63, true, true), s), null);
  assert.equal(read(deltaDescriptor(8, 0, true, true), s), null);
});

test("descriptors libwebrtc cannot read: no structure yet, cut short", () => {
  assert.equal(read(deltaDescriptor(9, 1, true, true), null), null);
  assert.equal(read(Uint8Array.of(0x80, 0), null), null);
  const k = keyframeDescriptor(7, true);
  assert.equal(read(k.subarray(0, 6), null), null);
  // the same bytes read in place at an offset
  const padded = new Uint8Array(k.length + 5);
  padded.set(k, 3);
  const out = new DdFields();
  assert.equal(readDependencyDescriptor(padded, 3, k.length, null, out), true);
  assert.equal(out.frameNumber, 7);
});
