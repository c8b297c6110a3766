// Property-based tests of the reassembler (docs/definitions.md#reassembly) over arbitrary packet streams: sequence
// numbers that step, repeat, go back or jump by powers of two; timestamps from a small pool
// or anywhere; markers and payloads at random; arrivals non-decreasing (its precondition)
// with gaps up to seconds. Nothing throws, the state stays bounded, the counters add up, and
// a clean stream — however reordered and duplicated — gives back every frame after the first.
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { depacketizeH264 } from "../../src/core/codec/h264.ts";
import { FramePieces } from "../../src/core/codec/pieces.ts";
import { depacketizeVp8, packetizeVp8 } from "../../src/core/codec/vp8.ts";
import {
  type CompletedFrame,
  type Depacketize,
  MAX_PENDING,
  Reassembler,
  WINDOW_NS,
} from "../../src/core/rtp/reassembler.ts";
import { MAX_CAPACITY } from "../../src/core/rtp/seen-ring.ts";
import { bytes, check, concat, list } from "./fuzz.ts";

const FORGET_NS = 2 * WINDOW_NS;
/** A seen entry or a closed frame lives at most this long (forgotten after 2 s, pruned once a second). */
const MEMORY_NS = FORGET_NS + WINDOW_NS;

const depacketizers: Record<string, Depacketize> = {
  vp8: depacketizeVp8,
  h264: depacketizeH264,
  throws: () => {
    throw new Error("a depacketiser that throws");
  },
  whole: (payloads) => payloads.slice(),
};

interface Packet {
  seqStep: number;
  ts: { kind: "pool"; i: number } | { kind: "same" } | { kind: "next" } | { kind: "any"; v: number };
  marker: boolean;
  payload: Uint8Array;
  dtNs: number;
}

const packetArb: fc.Arbitrary<Packet> = fc.record({
  seqStep: fc.oneof(
    { weight: 8, arbitrary: fc.integer({ min: -3, max: 3 }).map((d) => (d === 0 ? 1 : d)) },
    { weight: 1, arbitrary: fc.constant(0) },
    { weight: 1, arbitrary: fc.constantFrom(16384, -16384, 32767, -32768, 8192, 4096, 65535) },
    { weight: 1, arbitrary: fc.integer({ min: -32768, max: 32767 }) },
  ),
  ts: fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record({ kind: fc.constant("pool" as const), i: fc.integer({ min: 0, max: 7 }) }),
    },
    { weight: 4, arbitrary: fc.record({ kind: fc.constant("same" as const) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant("next" as const) }) },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant("any" as const),
        v: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
      }),
    },
  ),
  marker: fc.boolean(),
  payload: fc.oneof(
    bytes(6),
    fc.constantFrom(
      Uint8Array.of(0x10, 0x00),
      Uint8Array.of(0x00, 0x01),
      Uint8Array.of(0x65, 0x88),
      Uint8Array.of(),
    ),
  ),
  dtNs: fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min: 0, max: 2_000_000 }) },
    { weight: 2, arbitrary: fc.constant(0) },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: 300_000_000 }) },
    { weight: 1, arbitrary: fc.constantFrom(WINDOW_NS - 1, WINDOW_NS, 1.5e9, FORGET_NS + 1, 2.5e9, 3e9 + 7) },
  ),
});

const streamArb = fc.record({
  depacketizer: fc.constantFrom(...Object.keys(depacketizers)),
  seq0: fc.integer({ min: 0, max: 0xffff }),
  ts0: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
  t0: fc.constantFrom(0, 1e15),
  packets: list(packetArb, 300),
});

test("reassembler: any stream — no throw, bounded state, consistent counters", (t) => {
  check(t, 300, [streamArb], (s) => {
    const r = new Reassembler(depacketizers[s.depacketizer]!);
    const out: CompletedFrame[] = [];
    let seq = s.seq0;
    let ts = s.ts0;
    let now = s.t0;
    const arrivals: number[] = []; // of every push, for the windowed bounds
    const tsSeen = new Set<number>();
    const seqsSeen = new Set<number>();
    const lastCompleted = new Map<number, number>(); // ts → instant completed
    let completed = 0;
    let late = 0;
    let incomplete = 0;
    let frameEnd = r.frameEnd;
    s.packets.forEach((p, i) => {
      seq = (seq + p.seqStep) & 0xffff;
      if (p.ts.kind === "pool") ts = (s.ts0 + p.ts.i * 3000) >>> 0;
      else if (p.ts.kind === "next") ts = (ts + 3000) >>> 0;
      else if (p.ts.kind === "any") ts = p.ts.v;
      now += p.dtNs;
      arrivals.push(now);
      tsSeen.add(ts);

      const before = out.length;
      const n = r.push(seq, ts, p.marker, p.payload, now, out);
      assert.equal(n, out.length - before);
      for (const f of out.slice(before)) {
        assert.ok(tsSeen.has(f.timestamp));
        assert.ok(f.firstNs <= f.arrivalNs && f.arrivalNs <= f.completedNs, "first ≤ t1 ≤ completed");
        assert.equal(f.completedNs, now);
        assert.ok(f.pieces === null || f.pieces instanceof FramePieces);
        if (s.depacketizer === "throws") assert.equal(f.pieces, null);
        const prev = lastCompleted.get(f.timestamp | 0);
        assert.ok(
          prev === undefined || now - prev > FORGET_NS,
          "a frame completes once while it is remembered",
        );
        lastCompleted.set(f.timestamp | 0, now);
        if (f.late) late++;
        completed++;
      }

      // counters
      assert.ok(r.incompleteFrames >= incomplete, "incompleteFrames never decreases");
      incomplete = r.incompleteFrames;
      assert.equal(r.lateCompletedFrames, late);
      assert.ok(completed + incomplete <= i + 1, "every frame closed owns at least one packet");
      if (frameEnd === "timestamp") assert.equal(r.frameEnd, "timestamp", "the timestamp rule is permanent");
      if (frameEnd !== "") assert.notEqual(r.frameEnd, "");
      frameEnd = r.frameEnd;

      // state
      const newSeq = !seqsSeen.has(seq);
      seqsSeen.add(seq);
      if (newSeq || i % 8 === 0 || i === s.packets.length - 1) {
        const z = r.stateSizes();
        assert.ok(z.pending <= MAX_PENDING, `pending ${z.pending}`);
        assert.ok(z.seenCapacity <= MAX_CAPACITY, `seen capacity ${z.seenCapacity}`);
        assert.ok(z.seen <= Math.min(i + 1, z.seenCapacity), `seen ${z.seen}`);
        if (newSeq) {
          // a sequence number never pushed before is no duplicate, so the push pruned (when
          // due): what is remembered arrived, or closed, within the last MEMORY_NS
          let recent = 0;
          for (const a of arrivals) if (a > now - MEMORY_NS) recent++;
          assert.ok(z.seen <= recent, `seen ${z.seen}, ${recent} recent packets`);
          assert.ok(z.closed <= recent + MAX_PENDING, `closed ${z.closed}, ${recent} recent packets`);
        }
      }
    });
    if (arrivals.length > 0 && arrivals[arrivals.length - 1]! - s.t0 <= FORGET_NS) {
      assert.ok(completed + incomplete <= tsSeen.size, "within 2 s a timestamp closes at most once");
    }
  });
});

test("reassembler: a sender jumping sequence numbers by powers of two keeps memory and time bounded", (t) => {
  const burst = fc.record({
    step: fc.constantFrom(16384, 8192, 32767, 4096, -16384),
    count: fc.integer({ min: 500, max: 3000 }),
    spacingNs: fc.constantFrom(1_000, 20_000, 100_000),
    freshTs: fc.boolean(),
    seq0: fc.integer({ min: 0, max: 0xffff }),
  });
  check(t, 20, [burst], (b) => {
    const r = new Reassembler(depacketizeVp8);
    const out: CompletedFrame[] = [];
    const payload = Uint8Array.of(0x10, 0x00);
    for (let i = 0; i < b.count; i++) {
      const ts = b.freshTs ? (i * 7919) >>> 0 : (Math.floor(i / 3) * 3000) >>> 0;
      r.push((b.seq0 + i * b.step) & 0xffff, ts, i % 3 === 2, payload, i * b.spacingNs, out);
      out.length = 0;
    }
    const z = r.stateSizes();
    assert.ok(z.seenCapacity <= MAX_CAPACITY, `seen capacity ${z.seenCapacity}`);
    assert.ok(z.pending <= MAX_PENDING, `pending ${z.pending}`);
  });
});

// ---- a clean stream, reordered and duplicated --------------------------------------------

const cleanArb = fc.record({
  frames: list(bytes(400, 1), 25, 2),
  mtu: fc.integer({ min: 5, max: 200 }),
  seq0: fc.integer({ min: 0, max: 0xffff }),
  ts0: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
  markers: fc.boolean(),
  // per packet: how far it is moved later (a few places) and how many extra copies it gets
  moves: fc.array(fc.tuple(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 2 })), {
    maxLength: 400,
    size: "max",
  }),
  spacingNs: fc.constantFrom(0, 10_000, 1_000_000),
});

test("reassembler: a reordered, duplicated clean stream yields every frame after the first, exactly", (t) => {
  check(t, 300, [cleanArb], (c) => {
    interface Pkt {
      seq: number;
      ts: number;
      marker: boolean;
      payload: Uint8Array;
      order: number;
    }
    const sent: Pkt[] = [];
    c.frames.forEach((frame, k) => {
      const ts = (c.ts0 + k * 3000) >>> 0;
      const payloads = packetizeVp8(frame, c.mtu, k);
      payloads.forEach((payload, j) => {
        const seq = (c.seq0 + sent.length) & 0xffff;
        sent.push({ seq, ts, marker: c.markers && j === payloads.length - 1, payload, order: 0 });
      });
    });
    // reorder: packet i goes to position i + move (stable for ties); duplicates follow later
    const wire: Pkt[] = [];
    sent.forEach((p, i) => {
      const [move, copies] = c.moves[i] ?? [0, 0];
      wire.push({ ...p, order: i + move + 0.5 * Math.min(move, 1) });
      for (let d = 1; d <= copies; d++) wire.push({ ...p, order: i + move + d + 0.75 });
    });
    wire.sort((a, b) => a.order - b.order);

    const r = new Reassembler(depacketizeVp8);
    const out: CompletedFrame[] = [];
    wire.forEach((p, i) => {
      r.push(p.seq, p.ts, p.marker, p.payload, i * c.spacingNs, out);
    });

    const last = c.frames.length - 1;
    // the first frame never proves its head; without markers the last frame never ends
    const expected = c.frames.map((f, k) => ({ k, f })).filter(({ k }) => k >= 1 && (c.markers || k < last));
    const got = new Map(out.map((f) => [f.timestamp, f]));
    assert.equal(out.length, got.size, "each frame completes once");
    assert.equal(out.length, expected.length);
    for (const { k, f } of expected) {
      const frame = got.get((c.ts0 + k * 3000) >>> 0);
      assert.ok(frame !== undefined, `frame ${k} missing`);
      assert.ok(frame.pieces !== null);
      assert.deepEqual(Array.from(concat(frame.pieces.views())), Array.from(f));
    }
    assert.equal(r.incompleteFrames, 0);
    assert.equal(r.frameEnd, expected.length === 0 ? "" : c.markers ? "marker" : "timestamp");
  });
});
