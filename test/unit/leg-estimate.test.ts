// The relay's leg estimate (docs/definitions.md#relay-layer-estimate), fed by hand: the loss-based
// rule on closed windows, each layer's measured rate, and the layer choice with its hysteresis
// (down at once, up one layer after UP_WINDOWS windows and not within HOLD_DOWN_MS of a move down).
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  GROWTH,
  HEADROOM,
  HOLD_DOWN_MS,
  LayerRates,
  LegEstimate,
  UP_WINDOWS,
  WINDOW_MS,
} from "../../src/core/relay/leg-estimate.ts";

const RIDS = ["l", "m", "h"];
const RATES: Record<string, number> = { l: 100_000, m: 300_000, h: 900_000 };
const rate = (rid: string) => RATES[rid];

/** One window: `bps` sent in 10 packets, then a feedback reporting `lost` of 100 packets lost. */
function window(e: LegEstimate, startMs: number, bps: number, lost: number) {
  for (let i = 0; i < 10; i++) e.sent(bps / 8 / 10, startMs + i * 100);
  return e.feedback(100 - lost, lost, startMs + WINDOW_MS, RATES.h ?? 0);
}

test("layer rates: bits per second over the last closed window, per layer", () => {
  const r = new LayerRates();
  for (let ms = 0; ms <= 1000; ms += 100) {
    r.add("l", 1250, ms);
    r.add("h", 11250, ms);
  }
  // the window 0..1000 closed at 1000 with 10 packets each (the 1000 ms one opens the next)
  assert.equal(r.rate("l"), 100_000);
  assert.equal(r.rate("h"), 900_000);
  assert.equal(r.rate("m"), undefined);
});

test("no window closes before WINDOW_MS or without feedback; the first starts at the sending rate with headroom", () => {
  const e = new LegEstimate();
  assert.equal(e.feedback(10, 0, 5000, 900_000), null, "nothing sent yet");
  e.sent(1000, 0);
  assert.equal(e.feedback(10, 0, 500, 900_000), null);
  assert.equal(e.feedback(0, 0, 1000, 900_000)?.lossFraction, 0);
  const f = new LegEstimate();
  const w = window(f, 0, 900_000, 5);
  // 5 % loss: between LOSS_LOW and LOSS_HIGH, the estimate holds at its start
  assert.ok(w !== null);
  assert.equal(w.lossFraction, 0.05);
  assert.ok(Math.abs(w.deliveredBps - 900_000 * 0.95) < 1);
  assert.ok(Math.abs(w.estimateBps - 900_000 * HEADROOM) < 1);
});

test("30 % loss moves the leg down at once; a clean leg stays on h", () => {
  const lossy = new LegEstimate();
  const clean = new LegEstimate();
  window(lossy, 0, 900_000, 0);
  window(clean, 0, 900_000, 0);
  assert.equal(lossy.choose("h", RIDS, rate, WINDOW_MS), "h");
  const w = window(lossy, WINDOW_MS, 900_000, 30);
  // A·(1 − p/2) = 1.08 Mbit/s · 0.85 < h · HEADROOM = 1.08 Mbit/s: h does not fit, m does
  assert.ok(w !== null && w.estimateBps < (RATES.h ?? 0) * HEADROOM);
  assert.equal(lossy.choose("h", RIDS, rate, 2 * WINDOW_MS), "m");
  assert.equal(lossy.downs, 1);
  for (let i = 1; i < 10; i++) {
    window(clean, i * WINDOW_MS, 900_000, 0);
    assert.equal(clean.choose("h", RIDS, rate, (i + 1) * WINDOW_MS), "h");
  }
  assert.equal(clean.downs + clean.ups, 0);
});

test("up one layer only after UP_WINDOWS clean windows and not within HOLD_DOWN_MS of a move down", () => {
  const e = new LegEstimate();
  window(e, 0, 900_000, 0);
  window(e, WINDOW_MS, 900_000, 40);
  let t = 2 * WINDOW_MS;
  assert.equal(e.choose("h", RIDS, rate, t), "m");
  const downAt = t;
  // clean windows on m: the estimate grows by GROWTH a window until h fits again
  let on = "m";
  const moves: [number, string][] = [];
  for (let i = 0; i < 30 && on === "m"; i++) {
    window(e, t, 300_000, 0);
    t += WINDOW_MS;
    const next = e.choose(on, RIDS, rate, t);
    if (next !== on) moves.push([t, next]);
    on = next;
  }
  assert.deepEqual(
    moves.map((m) => m[1]),
    ["h"],
  );
  const upAt = moves[0]?.[0] ?? 0;
  assert.ok(upAt - downAt >= HOLD_DOWN_MS, `up ${upAt - downAt} ms after the move down`);
  assert.ok(e.ups === 1 && GROWTH > 1 && UP_WINDOWS >= 1);
});

test("with no rate measured for some layer the leg stays where it is", () => {
  const e = new LegEstimate();
  window(e, 0, 900_000, 0);
  window(e, WINDOW_MS, 900_000, 50);
  assert.equal(
    e.choose("h", RIDS, (r) => (r === "m" ? undefined : rate(r)), 2 * WINDOW_MS),
    "h",
  );
});
