// The reassembler's pooled frame results (FrameResults with `reuse`, as the viewer pipeline runs
// it): the next push overwrites the object a frame came in, so a delay source must take what it
// keeps before then. These tests overwrite a frame's object the way the next push would and fail
// if a source read the frame after that.
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { loadClip } from "../../src/core/clip/clip.ts";
import { FramePieces } from "../../src/core/codec/pieces.ts";
import { depacketizeVp8 } from "../../src/core/codec/vp8.ts";
import { ClipTable, createHasher, type Hasher } from "../../src/core/delay/fingerprint.ts";
import { FingerprintDelay } from "../../src/core/delay/fingerprint-delay.ts";
import { SendLog } from "../../src/core/delay/sendlog.ts";
import { StampDelay } from "../../src/core/delay/stamp-delay.ts";
import { type CompletedFrame, Reassembler } from "../../src/core/rtp/reassembler.ts";

const MS = 1e6;
const clip = loadClip("vp8");
let hasher: Hasher;
let table: ClipTable;
before(async () => {
  hasher = await createHasher();
  table = new ClipTable(hasher, clip);
});

/** Writes clip frame k's figures into `f`, as a push completing that frame would. */
function fill(f: CompletedFrame, k: number, arrivalNs: number): CompletedFrame {
  f.timestamp = k * clip.ticks;
  f.pieces = FramePieces.of([clip.frames[k]!]);
  f.arrivalNs = arrivalNs;
  f.completedNs = arrivalNs;
  f.firstNs = arrivalNs - MS;
  f.late = false;
  return f;
}

test("with reuse the next push's frame comes in the same object, overwritten", () => {
  const frameOf = (reuse: boolean): [CompletedFrame, CompletedFrame] => {
    const r = new Reassembler(depacketizeVp8);
    r.results.reuse = reuse;
    const s = (seq: number, ts: number, at: number) => r.push(seq, ts, true, Uint8Array.of(0x10, seq), at);
    s(9, 0, 0); // the first frame never proves its head; it proves the next one's
    assert.equal(s(10, 3000, MS), 1);
    const a = r.results.frame(0);
    assert.equal(a.timestamp, 3000);
    assert.equal(s(11, 6000, 2 * MS), 1);
    return [a, r.results.frame(0)];
  };
  const [a, b] = frameOf(true);
  assert.equal(a, b, "one pooled object");
  assert.equal(a.timestamp, 6000, "overwritten by the next frame");
  assert.deepEqual(a.pieces?.views(), [Uint8Array.of(11)]);
  const [c, d] = frameOf(false);
  assert.notEqual(c, d);
  assert.equal(c.timestamp, 3000, "a new object per frame without reuse");
});

test("with reuse a push drops the last push's pieces: no payload is kept alive by the pool", () => {
  const r = new Reassembler(depacketizeVp8);
  r.results.reuse = true;
  r.push(9, 0, true, Uint8Array.of(0x10, 9), 0);
  assert.equal(r.push(10, 3000, true, Uint8Array.of(0x10, 10), MS), 1);
  const f = r.results.frame(0);
  const pieces = f.pieces;
  assert.ok(pieces !== null && pieces.n === 1);
  assert.equal(r.push(12, 9000, false, Uint8Array.of(0x00, 12), 2 * MS), 0);
  assert.equal(f.pieces, null);
  assert.equal(pieces.n, 0);
  assert.equal(pieces.bytes[0]!.length, 0, "the payload reference is overwritten");
});

test("a deferred fingerprint frame keeps its own figures when its object is reused", () => {
  const log = SendLog.create(table.loopFrames);
  log.record(0, 100 * MS);
  log.record(1, 133 * MS);
  // matched only at flush: the frame waits in the source while its object is overwritten
  const fpd = new FingerprintDelay({
    codec: "vp8",
    hasher,
    table,
    sendLog: log,
    logWaitNs: 10_000 * MS,
    onSample: null,
  });
  const f: CompletedFrame = fill({} as CompletedFrame, 0, 105 * MS);
  fpd.frame(f, false);
  fpd.frame(fill(f, 1, 140 * MS), false);
  fill(f, 2, 200 * MS); // the object reused once more, for a frame the source never got
  fpd.flush();
  const c = fpd.counters();
  assert.equal(c.samples, 2);
  assert.equal(c.keyframeSamples, 1, "clip frame 0 (a keyframe) matched as itself");
  assert.equal(fpd.keyHist.summaryMs().max, 5, "frame 0: 105 − 100 ms");
  assert.equal(fpd.deltaHist.summaryMs().max, 7, "frame 1: 140 − 133 ms");
});

test("the stamp source takes a frame's figures before its object is reused", () => {
  const st = new StampDelay(Float64Array.of(0));
  st.packet(10, 0, 100 * MS, true);
  st.packet(11, 3000, 133 * MS, false);
  const f: CompletedFrame = fill({} as CompletedFrame, 0, 104 * MS);
  st.frame(f, false);
  st.frame(fill(f, 1, 139 * MS), false);
  fill(f, 2, 300 * MS);
  const c = st.counters();
  assert.equal(c.samples, 2);
  assert.equal(st.keyHist.summaryMs().max, 4, "frame 0: 104 − 100 ms");
  assert.equal(st.deltaHist.summaryMs().max, 6, "frame 1: 139 − 133 ms");
});
