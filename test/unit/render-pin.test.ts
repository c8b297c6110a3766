// Pins the render model's figures bit for bit (issue 40): a change that only moves numbers between
// fields, arguments and typed arrays must leave every show instant, freeze and count as it was. The
// streams are deterministic but uneven (jitter, stalls, retransmissions, sizes, a lost frame,
// padding, nanosecond instants and RTP timestamps past the small integers, a timestamp wrap); each
// test hashes every instant the model produced (sha-256 of their float64 bytes) beside its counts.
// The pinned values were taken from the code before that change (main e8b42a5).
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { test } from "node:test";
import { packetizeVp8 } from "../../src/core/codec/vp8.ts";
import { Playout } from "../../src/core/render/playout.ts";
import { RenderModel } from "../../src/core/render/render-model.ts";

const MS = 1e6;
const FRAME_MS = 1000 / 30;
/** a monotonic clock some days after boot, as process.hrtime.bigint() reads on a server, ns */
const T0_NS = 431_234_567_891_234;
/** the RTP timestamp of frame 0: the 32-bit timestamps wrap after 120 frames */
const TS0 = 2 ** 32 - 120 * 3000;

const digest = (xs: number[]): string =>
  createHash("sha256")
    .update(new Uint8Array(Float64Array.from(xs).buffer))
    .digest("hex")
    .slice(0, 16);

/** Frame i's completion: 30 fps, up to 44 ms of jitter, and a 220 ms stall every 150 frames. */
function readyNs(i: number): number {
  const ms = i * FRAME_MS + ((i * 7919) % 13) * 3.7;
  const stallEnd = Math.floor(i / 150) * 150 * FRAME_MS + 220;
  return T0_NS + Math.round((i % 150 >= 1 && ms < stallEnd && i >= 150 ? stallEnd : ms) * MS) + (i % 3);
}

const bytesOf = (i: number): number => (i % 60 === 0 ? 14_000 : 1800 + ((i * 37) % 11) * 90);

test("pin: the playout's show instants over an uneven stream", () => {
  const shown: number[] = [];
  const keys: number[] = [];
  const p: Playout = new Playout((key) => {
    shown.push(p.shownNs);
    if (key) keys.push(p.shownNs);
  });
  for (let i = 0; i < 600; i++) {
    const at = readyNs(i);
    const ts = (TS0 + i * 3000) >>> 0;
    const rtx = i % 47 === 5;
    p.completed(at, ts, rtx);
    p.ready(at, ts, at - (i % 4) * 250_000, bytesOf(i), rtx, i % 60 === 0);
    p.release(at);
  }
  p.advance(readyNs(599) + 1e9);
  // the stalls at frames 150, 300 and 450 make the frames late: those a later one waits behind are skipped
  assert.deepEqual([shown.length, p.skipped, keys.length], [591, 9, 10]);
  assert.equal(digest(shown), "f2ca9160cd96b4f1");
});

/** A VP8 first packet with this PictureID (15 bits), a keyframe or not. */
const vp8Head = (pid: number, key: boolean): Uint8Array =>
  packetizeVp8(Uint8Array.of(key ? 0x00 : 0x01, 1, 2, 3), 1200, pid)[0]!;

/** Runs `frames` frames of a 3-packet-a-frame stream through a model; frame 200 is lost. */
function model(codec: "vp8" | "h264"): { counts: number[]; freezes: string; hist: string } {
  const freezes: number[] = [];
  const m = new RenderModel(codec, (a, b) => freezes.push(a, b));
  let seq = 2 ** 30 + 60_000;
  for (let i = 0; i < 450; i++) {
    const key = i % 90 === 0;
    const at = readyNs(i);
    if (i === 230) m.pliSent(at - 30 * MS);
    if (codec === "h264" && i % 25 === 7) m.padding((seq + 3) & 0xffff, at - MS);
    const lo = seq;
    seq += codec === "h264" && i % 25 === 7 ? 4 : 3;
    if (i === 200) continue;
    const head = codec === "vp8" ? vp8Head((i + 32_700) & 0x7fff, key) : new Uint8Array(4);
    const f = { lo, hi: lo + 2, head, keyframe: key, completedNs: at, timestamp: (TS0 + i * 3000) >>> 0 };
    m.frame(f, bytesOf(i), i % 53 === 9);
    m.advance(at + 5 * MS);
  }
  const r = m.finish(readyNs(449) + 200 * MS);
  const counts = [r.framesShown, r.framesNotDecodable, r.framesLate, r.freezes, r.frozenMs, r.recoveries];
  const hist = [m.recoveryHist.quantileNs(0.5), m.pliKeyframeHist.quantileNs(0.5)];
  return {
    counts: [...counts, r.measuredMs, r.endGapMs, r.plisAnswered],
    freezes: digest(freezes),
    hist: digest(hist),
  };
}

test("pin: the render model's counts and freeze instants, VP8 (frame-id) and H.264 (seq-num, padding)", () => {
  // shown, not decodable, late, freezes, frozen ms, recoveries, measured ms, end gap ms, PLIs answered
  const pinned = {
    counts: [380, 69, 0, 1, 2363, 1, 15022, 149, 1],
    freezes: "c65710a9f1cd7826",
    hist: "592d23f85322bead",
  };
  assert.deepEqual(model("vp8"), pinned);
  // the padding after every 25th frame continues the seq-num chain: the same frames are shown
  assert.deepEqual(model("h264"), pinned);
});
