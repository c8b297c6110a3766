// Property-based test of the codec head proof (issue 11) over real packetised streams: VP8
// frames, and H.264 access units of a sender that is consistent in its habits but chosen at
// random (an SEI before every picture, two slices per picture, a PPS with every delta frame),
// through the project's payloaders at small MTUs, with packets lost and swapped at random.
// Whatever is lost, a frame the codec-aware reassembler completes holds every packet the
// sender sent for it; and it completes every frame the reference rule completes, and more.
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { depacketizeH264, packetizeH264 } from "../../src/core/codec/h264.ts";
import { depacketizeVp8, packetizeVp8 } from "../../src/core/codec/vp8.ts";
import { H264_FRAME_START, VP8_FRAME_START } from "../../src/core/delay/viewer-pipeline.ts";
import { type CompletedFrame, Reassembler } from "../../src/core/rtp/reassembler.ts";
import { bytes, check, concat, list } from "./fuzz.ts";

/** A NAL unit: its header byte, then the body with no start-code emulation. */
function nal(header: number, first: number, body: Uint8Array): Uint8Array {
  const n = concat([Uint8Array.of(header, first), body]);
  for (let i = 2; i < n.length; i++) if (n[i]! <= 1 && n[i - 1] === 0 && n[i - 2] === 0) n[i] = 2;
  if (n[n.length - 1] === 0) n[n.length - 1] = 0x80;
  return n;
}

const START = Uint8Array.of(0, 0, 0, 1);

interface Habits {
  sei: boolean;
  twoSlices: boolean;
  ppsInDelta: boolean;
}

/** One Annex-B access unit of a sender with `habits`. */
function accessUnit(key: boolean, body: Uint8Array, h: Habits): Uint8Array {
  const units: Uint8Array[] = [];
  if (key) units.push(nal(0x67, 0x42, body.subarray(0, 3)), nal(0x68, 0xce, body.subarray(0, 2)));
  else if (h.ppsInDelta) units.push(nal(0x68, 0xce, body.subarray(0, 2)));
  if (h.sei) units.push(nal(0x06, 0x05, body.subarray(0, 4)));
  const type = key ? 0x65 : 0x41;
  units.push(nal(type, 0x88, body)); // first_mb_in_slice 0
  if (h.twoSlices) units.push(nal(type, 0x1a, body.subarray(1))); // a later slice
  return concat(units.flatMap((u) => [START, u]));
}

const caseArb = fc.record({
  codec: fc.constantFrom("vp8" as const, "h264" as const),
  habits: fc.record({ sei: fc.boolean(), twoSlices: fc.boolean(), ppsInDelta: fc.boolean() }),
  frames: list(fc.record({ key: fc.boolean(), body: bytes(120, 4) }), 30, 2),
  mtu: fc.integer({ min: 8, max: 60 }),
  seq0: fc.integer({ min: 0, max: 0xffff }),
  ts0: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
  // per packet: 0 as is, 1 lost, 2 swapped with the next
  fate: fc.array(fc.constantFrom(0, 0, 0, 0, 0, 0, 1, 1, 2), { maxLength: 600, size: "max" }),
});

type Case = typeof caseArb extends fc.Arbitrary<infer T> ? T : never;

const totals = { frames: 0, seqOnly: 0, codec: 0 };

function runCase(c: Case): void {
  interface Pkt {
    seq: number;
    ts: number;
    marker: boolean;
    payload: Uint8Array;
  }
  const sent: Pkt[] = [];
  const original = new Map<number, Uint8Array[]>(); // ts → the payloads sent for it
  let seq = c.seq0;
  c.frames.forEach((f, k) => {
    const key = k === 0 || f.key;
    let payloads: Uint8Array[];
    if (c.codec === "vp8") {
      const frame = f.body.slice();
      frame[0] = key ? frame[0]! & 0xfe : frame[0]! | 1;
      payloads = packetizeVp8(frame, c.mtu, k);
    } else {
      payloads = packetizeH264(accessUnit(key, f.body, c.habits), c.mtu);
    }
    const ts = (c.ts0 + k * 3000) >>> 0;
    original.set(ts, payloads);
    payloads.forEach((payload, j) => {
      sent.push({ seq, ts, marker: j === payloads.length - 1, payload });
      seq = (seq + 1) & 0xffff;
    });
  });
  const wire: Pkt[] = [];
  for (let i = 0; i < sent.length; i++) {
    const fate = c.fate[i] ?? 0;
    if (fate === 1) continue;
    if (fate === 2 && i + 1 < sent.length) {
      wire.push(sent[i + 1]!, sent[i]!);
      i++;
      continue;
    }
    wire.push(sent[i]!);
  }

  const depacketize = c.codec === "vp8" ? depacketizeVp8 : depacketizeH264;
  const codec = new Reassembler(depacketize, c.codec === "vp8" ? VP8_FRAME_START : H264_FRAME_START);
  const seqOnly = new Reassembler(depacketize);
  const done = { codec: new Set<number>(), seqOnly: new Set<number>() };
  const out: CompletedFrame[] = [];
  wire.forEach((p, i) => {
    const at = (i + 1) * 1e6;
    out.length = 0;
    codec.push(p.seq, p.ts, p.marker, p.payload, at, out);
    for (const f of out) {
      done.codec.add(f.timestamp);
      // every packet sent for the frame is in it: the same depacketised bytes
      const want = depacketize(original.get(f.timestamp)!);
      assert.ok(f.pieces !== null && want !== null, "a whole frame depacketises");
      assert.deepEqual(concat(f.pieces.views()), concat(want), `frame ${f.timestamp} is missing a packet`);
    }
    out.length = 0;
    seqOnly.push(p.seq, p.ts, p.marker, p.payload, at, out);
    for (const f of out) done.seqOnly.add(f.timestamp);
  });
  for (const ts of done.seqOnly)
    assert.ok(done.codec.has(ts), `${ts}: complete by the packet before, not with the codec rule`);
  totals.frames += c.frames.length;
  totals.seqOnly += done.seqOnly.size;
  totals.codec += done.codec.size;
}

test("codec head proof: a completed frame holds every packet sent for it; it completes what the reference rule does, and more", (t) => {
  check(t, 300, [caseArb], runCase);
  t.diagnostic(
    `frames sent ${totals.frames}, completed by the reference rule ${totals.seqOnly}, with the codec rule ${totals.codec}`,
  );
  assert.ok(
    totals.codec > totals.seqOnly,
    "the codec rule never completed a frame the reference rule did not",
  );
});
