import assert from "node:assert/strict";
import { test } from "node:test";
import { depacketizeH264 } from "../../src/core/codec/h264.ts";
import { depacketizeVp8 } from "../../src/core/codec/vp8.ts";
import { type CompletedFrame, Reassembler } from "../../src/core/rtp/reassembler.ts";
import { SeenRing } from "../../src/core/rtp/seen-ring.ts";

const MS = 1e6;
const dec = new TextDecoder();

/** A VP8 payload whose descriptor has S set (a frame's first packet), then one data byte. */
const s = (ch: string): Uint8Array => Uint8Array.of(0x10, ch.charCodeAt(0));
/** A VP8 continuation payload. */
const c = (ch: string): Uint8Array => Uint8Array.of(0x00, ch.charCodeAt(0));

const vp8 = (): Reassembler => new Reassembler(depacketizeVp8);
const h264 = (): Reassembler => new Reassembler(depacketizeH264);

const out: CompletedFrame[] = [];
function push(
  r: Reassembler,
  seq: number,
  ts: number,
  marker: boolean,
  p: Uint8Array,
  ms: number,
): CompletedFrame[] {
  out.length = 0;
  const n = r.push(seq, ts, marker, p, Math.round(ms * MS), out);
  assert.equal(n, out.length);
  return out.slice();
}

function text(f: CompletedFrame): string {
  assert.ok(f.pieces !== null, "frame rejected");
  return f.pieces
    .views()
    .map((b) => dec.decode(b))
    .join("");
}

function none(got: CompletedFrame[], what: string): void {
  assert.equal(got.length, 0, what);
}

function one(got: CompletedFrame[], payload: string, what: string): CompletedFrame {
  assert.equal(got.length, 1, what);
  assert.equal(text(got[0]!), payload, what);
  return got[0]!;
}

/** A first frame that never completes and is never counted; its seq 9 proves the next head. */
function prime(r: Reassembler): void {
  none(push(r, 9, 0, true, s("p"), 0), "prime");
}

test("completion on the marker", () => {
  const r = vp8();
  assert.equal(r.frameEnd, "");
  prime(r);
  none(push(r, 10, 3000, false, s("a"), 10), "10");
  none(push(r, 11, 3000, false, c("b"), 11), "11");
  const f = one(push(r, 12, 3000, true, c("c"), 12), "abc", "12");
  assert.deepEqual(
    { ts: f.timestamp, t1: f.arrivalNs, done: f.completedNs, first: f.firstNs, late: f.late },
    { ts: 3000, t1: 12 * MS, done: 12 * MS, first: 10 * MS, late: false },
  );
  assert.equal(r.frameEnd, "marker");
  assert.equal(r.lateCompletedFrames, 0);
});

test("the first copy wins; the arrival stays the first marker's, completed at the filling packet", () => {
  const r = vp8();
  prime(r);
  none(push(r, 10, 3000, false, s("a"), 10), "10");
  none(push(r, 12, 3000, true, c("c"), 12), "12");
  none(push(r, 12, 3000, true, c("X"), 13), "duplicate 12");
  const f = one(push(r, 11, 3000, false, c("b"), 14), "abc", "11");
  assert.equal(f.arrivalNs, 12 * MS);
  assert.equal(f.completedNs, 14 * MS);
  assert.equal(f.firstNs, 10 * MS);
  assert.equal(f.late, true); // the gap was filled after the end had arrived
  assert.equal(r.lateCompletedFrames, 1);
  none(push(r, 12, 3000, true, c("Y"), 15), "duplicate 12 after completion");
});

test("a retransmitted last packet is not late and is t1", () => {
  const r = vp8();
  prime(r);
  none(push(r, 10, 3000, false, s("a"), 10), "10");
  none(push(r, 11, 3000, false, c("b"), 11), "11");
  const f = one(push(r, 12, 3000, true, c("c"), 110), "abc", "12 (retransmitted)");
  assert.equal(f.arrivalNs, 110 * MS);
  assert.equal(f.late, false);
  assert.equal(r.lateCompletedFrames, 0);
});

test("waiting only for the head proof does not make a frame late", () => {
  const r = vp8();
  none(push(r, 8, 0, true, s("p"), 0), "prime 8");
  // frame A (ts 3000) is one packet, seq 9, lost at first; frame B arrives whole
  none(push(r, 10, 6000, false, s("d"), 20), "10");
  none(push(r, 11, 6000, true, c("e"), 21), "11: head of B not proven");
  const got = push(r, 9, 3000, true, s("a"), 50); // A's retransmission proves B's head
  assert.equal(got.length, 2);
  assert.equal(text(got[0]!), "a");
  assert.equal(text(got[1]!), "de");
  assert.deepEqual(
    { t1: got[1]!.arrivalNs, done: got[1]!.completedNs, late: got[1]!.late },
    { t1: 21 * MS, done: 50 * MS, late: false },
  );
  assert.equal(got[0]!.late, false);
  assert.equal(r.lateCompletedFrames, 0);
});

test("sequence wrap", () => {
  const r = vp8();
  none(push(r, 65534, 0, true, s("p"), 0), "65534");
  none(push(r, 65535, 3000, false, s("a"), 10), "65535");
  none(push(r, 0, 3000, false, c("b"), 11), "0");
  one(push(r, 1, 3000, true, c("c"), 12), "abc", "1");
});

test("timestamp wrap: the head's timestamp is earlier by signed 32-bit difference", () => {
  const r = vp8();
  const t0 = 0xfffff000 + 3000; // 4294966200
  const t1 = (t0 + 3000) >>> 0; // wraps to 1904
  assert.equal(t1, 1904);
  none(push(r, 9, t0, true, s("p"), 0), "prime");
  none(push(r, 10, t1, false, s("a"), 10), "10");
  const f = one(push(r, 11, t1, true, c("b"), 11), "ab", "11");
  assert.equal(f.timestamp, 1904);
});

test("a lost head never completes and expires as incomplete", () => {
  const r = vp8();
  prime(r);
  none(push(r, 11, 3000, false, c("b"), 10), "11");
  none(push(r, 12, 3000, true, c("c"), 11), "12");
  none(push(r, 13, 6000, false, s("d"), 20), "13");
  one(push(r, 14, 6000, true, c("e"), 21), "de", "14");
  assert.equal(r.incompleteFrames, 0);
  one(push(r, 15, 9000, true, s("f"), 1010), "f", "15");
  assert.equal(r.incompleteFrames, 1);
});

test("a head with a later timestamp blocks completion", () => {
  const r = vp8();
  none(push(r, 9, 6000, true, s("p"), 0), "9");
  none(push(r, 10, 3000, false, s("a"), 1), "10");
  none(push(r, 11, 3000, false, c("b"), 2), "11");
  none(push(r, 12, 3000, true, c("c"), 3), "12");
});

test("incomplete after exactly 1 s, not at 999 ms; late packets ignored after expiry", () => {
  const r = vp8();
  prime(r);
  none(push(r, 10, 3000, false, s("a"), 5), "10");
  none(push(r, 12, 3000, true, c("c"), 7), "12");
  one(push(r, 13, 6000, true, s("d"), 1004), "d", "13 at 999 ms");
  assert.equal(r.incompleteFrames, 0);
  one(push(r, 14, 9000, true, s("e"), 1005), "e", "14 at 1000 ms");
  assert.equal(r.incompleteFrames, 1);
  none(push(r, 11, 3000, false, c("b"), 1006), "late 11");
  assert.equal(r.incompleteFrames, 1);
  one(push(r, 15, 12000, true, s("f"), 2100), "f", "15");
  assert.equal(r.incompleteFrames, 1);
});

test("stale FU-A bytes of an incomplete frame are never part of the next frame", () => {
  const r = h264();
  none(push(r, 9, 0, true, Uint8Array.of(0x41, 0x01), 0), "prime");
  none(push(r, 10, 3000, false, Uint8Array.of(0x7c, 0x85, 0x78), 1), "FU-A start");
  none(push(r, 12, 3000, true, Uint8Array.of(0x7c, 0x45, 0x7a), 3), "FU-A end");
  const got = push(r, 13, 6000, true, Uint8Array.of(0x41, 0x62), 4);
  assert.equal(got.length, 1);
  assert.equal(got[0]!.timestamp, 6000);
  assert.deepEqual(got[0]!.pieces?.views(), [Uint8Array.of(0x41, 0x62)]);
});

test("markerless switch; markers are ignored after it", () => {
  const r = vp8();
  prime(r);
  none(push(r, 10, 3000, false, s("a"), 1), "10");
  one(push(r, 11, 3000, true, c("b"), 2), "ab", "11");
  assert.equal(r.frameEnd, "marker");
  none(push(r, 12, 6000, false, s("c"), 20), "12");
  none(push(r, 13, 6000, false, c("d"), 21), "13");
  const b = one(push(r, 14, 9000, false, s("e"), 30), "cd", "14");
  assert.equal(b.arrivalNs, 21 * MS);
  assert.equal(b.completedNs, 30 * MS);
  assert.equal(r.frameEnd, "timestamp");
  none(push(r, 15, 9000, true, c("f"), 31), "15 (marker ignored)");
  const cf = one(push(r, 16, 12000, false, s("g"), 40), "ef", "16");
  assert.equal(cf.arrivalNs, 31 * MS);
});

test("a lost marker does not switch the rule", () => {
  const r = vp8();
  prime(r);
  none(push(r, 10, 3000, false, s("a"), 1), "10");
  one(push(r, 11, 3000, true, c("b"), 2), "ab", "11");
  none(push(r, 12, 6000, false, s("c"), 3), "12 (13, its marker, is lost)");
  none(push(r, 14, 9000, false, s("e"), 5), "14");
  none(push(r, 15, 9000, true, c("f"), 6), "15: head 13 missing");
  none(push(r, 16, 12000, false, s("g"), 8), "16");
  one(push(r, 17, 12000, true, c("h"), 9), "gh", "17");
  one(push(r, 18, 15000, true, s("i"), 1010), "i", "18");
  assert.equal(r.incompleteFrames, 2);
  assert.equal(r.frameEnd, "marker");
});

test("STAP-B, MTAP16 and FU-B are rejected with null pieces", () => {
  const r = h264();
  none(push(r, 9, 0, true, Uint8Array.of(0x41, 0x01), 0), "prime");
  const cases = [Uint8Array.of(0x19, 0, 1), Uint8Array.of(0x1a, 0, 1), Uint8Array.of(0x1d, 0, 1)];
  cases.forEach((p, i) => {
    const got = push(r, 10 + i, 3000 * (i + 1), true, p, i + 1);
    assert.equal(got.length, 1, `type ${p[0]! & 0x1f}`);
    assert.equal(got[0]!.pieces, null);
  });
});

test("a throwing depacketiser rejects the frame", () => {
  const r = new Reassembler(() => {
    throw new Error("boom");
  });
  prime(r);
  const got = push(r, 10, 3000, true, s("a"), 1);
  assert.equal(got.length, 1);
  assert.equal(got[0]!.pieces, null);
});

test("the first frame is not counted", () => {
  const r = vp8();
  none(push(r, 10, 3000, false, s("a"), 0), "10");
  none(push(r, 11, 3000, true, c("b"), 1), "11");
  one(push(r, 12, 6000, true, s("c"), 1500), "c", "12");
  assert.equal(r.incompleteFrames, 0);
});

test("frames pending at stop are not counted", () => {
  const r = vp8();
  prime(r);
  none(push(r, 10, 3000, false, s("a"), 1), "10");
  assert.equal(r.incompleteFrames, 0);
  assert.equal(r.stateSizes().pending, 2);
});

test("bounded state: 1800 frames of 3 packets, every 10th missing its middle packet", () => {
  const r = vp8();
  let n = 0;
  let maxSeen = 0;
  let maxClosed = 0;
  let maxPending = 0;
  const frames: CompletedFrame[] = [];
  for (let k = 0; k < 1800; k++) {
    for (let j = 0; j < 3; j++) {
      if (k % 10 === 5 && j === 1) continue; // lost; its sequence number is still consumed
      const at = Math.floor((k * 1e9) / 30) + j * 1e5;
      frames.length = 0;
      n += r.push((3 * k + j) & 0xffff, 3000 * k, j === 2, j === 0 ? s("x") : c("y"), at, frames);
      const z = r.stateSizes();
      maxSeen = Math.max(maxSeen, z.seen);
      maxClosed = Math.max(maxClosed, z.closed);
      maxPending = Math.max(maxPending, z.pending);
    }
  }
  assert.equal(n, 1619);
  assert.equal(r.incompleteFrames, 177);
  assert.ok(maxSeen < 400, `seen ${maxSeen}`);
  assert.ok(maxClosed < 200, `closed ${maxClosed}`);
  assert.ok(maxPending < 40, `pending ${maxPending}`);
  assert.ok(r.stateSizes().seenCapacity <= 512);
});

test("the seen ring grows under a burst and keeps every live entry", () => {
  const r = vp8();
  prime(r);
  none(push(r, 10, 3000, false, s("a"), 1), "10");
  none(push(r, 12, 3000, true, c("c"), 2), "12 (11 missing)");
  const frames: CompletedFrame[] = [];
  let n = 0;
  for (let i = 0; i < 2000; i++) {
    n += r.push(13 + i, 6000 + i * 3000, true, s("z"), 3 * MS + i * 1e5, frames); // 2000 packets in 200 ms
  }
  assert.equal(n, 2000);
  const z = r.stateSizes();
  assert.equal(z.seen, 2003);
  assert.ok(z.seenCapacity >= 2048, `capacity ${z.seenCapacity}`);
  // seq 10 is still remembered after the growth: its second copy is ignored, the first wins
  none(push(r, 10, 3000, false, s("X"), 250), "duplicate 10");
  one(push(r, 11, 3000, false, c("b"), 260), "abc", "11");
  // 3 s later the old packets are forgotten (pruned at most once per second)
  frames.length = 0;
  r.push(2013, 6000 + 2000 * 3000, true, s("b"), 3300 * MS, frames);
  assert.equal(r.stateSizes().seen, 1);
});

test("SeenRing: a map over extended sequence numbers that grows on collision and forgets by arrival", () => {
  const ring = new SeenRing(4);
  assert.equal(ring.capacity, 4);
  const base = 2 ** 32;
  ring.add(base + 1, 3000, 10);
  ring.add(base + 5, 6000, 20); // same slot as base + 1 in 4 slots: grows
  assert.ok(ring.capacity >= 8);
  assert.equal(ring.tsOf(base + 1), 3000);
  assert.equal(ring.tsOf(base + 5), 6000);
  assert.equal(ring.tsOf(base + 9), -1);
  assert.equal(ring.tsOf(base + 2), -1);
  ring.forgetBefore(15);
  assert.equal(ring.tsOf(base + 1), -1); // forgotten: its slot may be reused without growing
  const cap = ring.capacity;
  ring.add(base + 1 + cap, 9000, 30);
  assert.equal(ring.capacity, cap);
  assert.equal(ring.size, 2);
  assert.equal(ring.tsOf(base + 1 + cap), 9000);
});
