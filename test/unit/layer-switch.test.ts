// The relay's per-leg layer choice and rewrite (src/core/relay/layer-switch.ts): a leg switches at
// the asked layer's keyframe, and its sequence numbers and timestamps run on as one stream.
import assert from "node:assert/strict";
import { test } from "node:test";
import { LayerSwitch } from "../../src/core/relay/layer-switch.ts";

const STEP = 3000;

/** Two layers' packets as a simulcast publisher sends them: per frame, every layer in turn. */
interface Pkt {
  rid: string;
  seq: number;
  ts: number;
  key: boolean;
}

function frames(
  from: number,
  to: number,
  keyAt: number[],
  base: Record<string, { seq: number; ts: number }>,
) {
  const out: Pkt[] = [];
  const sent: Record<string, number> = { l: 0, h: 0 };
  for (let f = from; f < to; f++) {
    for (const rid of ["l", "h"]) {
      const b = base[rid]!;
      for (let p = 0; p < (rid === "h" ? 3 : 1); p++) {
        const seq = (b.seq + sent[rid]!++) & 0xffff;
        out.push({ rid, seq, ts: (b.ts + f * STEP) >>> 0, key: p === 0 && keyAt.includes(f) });
      }
    }
  }
  return out;
}

test("before the leg sent anything, an ask takes the layer at once", () => {
  const s = new LayerSwitch("h");
  assert.equal(s.ask("l"), true);
  assert.equal(s.current, "l");
  assert.equal(s.pending, null);
  assert.equal(s.take("h", 10, 0, true), null);
  assert.deepEqual({ ...s.take("l", 7, 90, false)! }, { seq: 7, ts: 90 });
  assert.equal(s.switches, 0);
  assert.equal(s.ask("l"), false, "already on it");
});

test("a switch waits for the new layer's keyframe, then sequence numbers and timestamps run on", () => {
  // the layers' own sequence numbers and timestamps differ (as a browser's do), near their wraps
  const base = { l: { seq: 65_530, ts: 4_294_960_000 }, h: { seq: 30_000, ts: 123_456 } };
  const pkts = frames(0, 12, [0, 8], base);
  const s = new LayerSwitch("l");
  const sent: { rid: string; seq: number; ts: number }[] = [];
  for (const p of pkts) {
    // the ask comes at layer l's frame 4
    if (p.rid === "l" && p.ts === (base.l.ts + 4 * STEP) >>> 0) s.ask("h");
    const r = s.take(p.rid, p.seq, p.ts, p.key);
    if (r !== null) sent.push({ rid: p.rid, seq: r.seq, ts: r.ts });
  }
  assert.equal(s.switches, 1);
  assert.equal(s.current, "h");
  // layer l up to frame 8 (sent before h's frame 8, lowest first), then h from its keyframe at frame 8
  const rids = sent.map((x) => x.rid);
  assert.equal(rids.filter((r) => r === "l").length, 9);
  assert.equal(rids.filter((r) => r === "h").length, 4 * 3);
  assert.equal(rids.indexOf("h"), 9);
  for (let i = 1; i < sent.length; i++) {
    assert.equal(sent[i]!.seq, (sent[i - 1]!.seq + 1) & 0xffff, `sequence numbers run on at ${i}`);
    const d = (sent[i]!.ts - sent[i - 1]!.ts + 2 ** 32) % 2 ** 32;
    assert.ok(d === 0 || d === STEP, `timestamps step by one frame at ${i}: ${d}`);
  }
  // the first h packet carries the leg's last l timestamp plus one frame
  const firstH = rids.indexOf("h");
  assert.equal(sent[firstH]!.ts, (sent[firstH - 1]!.ts + STEP) % 2 ** 32);
});

test("a switch back and forth keeps one stream; an ask for the current layer cancels a pending one", () => {
  const s = new LayerSwitch("l");
  s.take("l", 100, 0, true);
  s.ask("h");
  assert.equal(s.take("h", 5000, 777, false), null, "not a keyframe: the leg stays on l");
  assert.deepEqual({ ...s.take("l", 101, STEP, false)! }, { seq: 101, ts: STEP });
  s.ask("l");
  assert.equal(s.pending, null);
  assert.equal(s.take("h", 5001, 777 + STEP, true), null, "the ask was withdrawn");
  s.ask("h");
  const r = s.take("h", 5002, 777 + 2 * STEP, true);
  assert.deepEqual({ ...r! }, { seq: 102, ts: 2 * STEP });
  assert.deepEqual({ ...s.take("h", 5003, 777 + 3 * STEP, false)! }, { seq: 103, ts: 3 * STEP });
  s.ask("l");
  const back = s.take("l", 104, 4 * STEP, true);
  assert.deepEqual({ ...back! }, { seq: 104, ts: 4 * STEP }, "back on l where its own numbers line up");
  assert.equal(s.switches, 2);
});
