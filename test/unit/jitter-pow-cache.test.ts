// The jitter estimate keeps its last alpha ** scale (jitter-estimator.ts, issue 40): a frame whose
// operands repeat takes it again instead of calling **. That must change nothing, bit for bit: an
// estimator whose kept power is forgotten before every update (so it always calls **) is driven
// beside one that keeps it, and after every frame each of their numeric fields must be the same
// double. The stream repeats its frame intervals (33 and 34 ms, as frames decoded at their whole-ms
// render times do, and a late one now and then) so that the kept power is taken, and its delays
// and sizes vary so that the state moves.
import assert from "node:assert/strict";
import { test } from "node:test";
import { JitterEstimator, POW_ALPHA, POW_SCALE } from "../../src/core/render/jitter-estimator.ts";

/** The estimator's doubles (one Float64Array, jitter-estimator.ts). */
const doubles = (j: JitterEstimator): Float64Array => Reflect.get(j, "s");

/** Every own field of the estimator that holds numbers, as a flat list (typed arrays expanded). */
function state(j: JitterEstimator): [string, number][] {
  const out: [string, number][] = [];
  for (const [k, v] of Object.entries(j)) {
    if (typeof v === "number") out.push([k, v]);
    else if (v instanceof Float64Array) for (const [i, x] of v.entries()) out.push([`${k}[${i}]`, x]);
  }
  return out;
}

test("jitter estimate: the kept alpha ** scale changes no field, bit for bit", () => {
  const kept = new JitterEstimator();
  const fresh = new JitterEstimator();
  let ms = 1000;
  let taken = 0;
  for (let i = 0; i < 1500; i++) {
    // a 7-frame pattern in a 30-frame window, and a late frame now and then: the mean moves at times
    ms += (i % 7 === 0 ? 34 : 33) + (i % 97 === 0 ? 5 : 0);
    const delay = ((i * 7919) % 9) - 4;
    const bytes = i % 60 === 0 ? 14_000 : 1800 + ((i * 37) % 11) * 90;
    // forget the kept power: this one calls ** on every frame
    doubles(fresh)[POW_ALPHA] = -1;
    const before = [doubles(kept)[POW_ALPHA], doubles(kept)[POW_SCALE]];
    kept.update(ms, delay, bytes);
    fresh.update(ms, delay, bytes);
    const after = [doubles(kept)[POW_ALPHA], doubles(kept)[POW_SCALE]];
    if (i > 0 && before[0] === after[0] && before[1] === after[1]) taken++;
    assert.equal(kept.estimateMs(), fresh.estimateMs());
    const a = state(kept).filter(([k]) => k !== `s[${POW_ALPHA}]`);
    const b = state(fresh).filter(([k]) => k !== `s[${POW_ALPHA}]`);
    for (let f = 0; f < a.length; f++) {
      assert.ok(Object.is(a[f]![1], b[f]![1]), `frame ${i}: ${a[f]![0]} ${a[f]![1]} against ${b[f]![1]}`);
    }
  }
  // the stream really took the kept power (after 400 frames alpha is fixed and the mean repeats)
  assert.ok(taken > 300, `kept power taken on ${taken} frames`);
});
