// What the render model's playout stage costs per frame (docs/definitions.md#playout): its
// timestamp extrapolator, jitter estimate, render times and decode schedule, on a 30 fps stream
// whose frames are ready with up to 1.8 ms of deterministic jitter, a keyframe every 60 frames.
// Beside it, in the same process and interleaved round by round so that a noisy machine moves
// them together: the same loop with nothing called (the harness), and the jitter estimate alone.
// The playout runs once per decodable frame, not per packet: divide by the packets per frame
// (bench:hotpath prints them, 2.3 for the VP8 clip) for its share of the per-packet figure.
// Then the whole render model per packet (bench/render-cost.ts): each viewer's ViewerRender over a
// recorded packet sequence of each embedded clip, its frames reassembled beforehand.
//   node bench/playout-cost.ts [--frames 300000] [--packets 100000] [--viewers 8] [--rounds 7]
//   [--baseline DIR]
import { parseArgs } from "node:util";
import { JitterEstimator } from "../src/core/render/jitter-estimator.ts";
import { Playout } from "../src/core/render/playout.ts";
import { allocationGc } from "./allocation-gc.ts";
import { median } from "./median.ts";
import { renderCost } from "./render-cost.ts";

// re-runs itself with the flags the render model's allocation figures need (bench/allocation-gc.ts)
const gc = allocationGc(import.meta.url);

const { values } = parseArgs({
  options: {
    frames: { type: "string", default: "300000" },
    packets: { type: "string", default: "100000" },
    /** viewers fed each packet in turn (bench:hotpath's 8) */
    viewers: { type: "string", default: "8" },
    rounds: { type: "string", default: "7" },
    /** another checkout's root: its render model per packet beside ours */
    baseline: { type: "string", default: "" },
  },
});
const FRAMES = Number(values.frames);
const ROUNDS = Number(values.rounds);
const FRAME_MS = 1000 / 30;

type Variant = "loop" | "jitter" | "playout";

/** CPU ns per frame for one pass of `variant` over FRAMES frames. */
function pass(variant: Variant): number {
  let shown = 0;
  let sink = 0;
  const playout = new Playout(() => {
    shown++;
  });
  const jitter = new JitterEstimator();
  const t0 = process.cpuUsage();
  for (let i = 0; i < FRAMES; i++) {
    const ms = 1000 + i * FRAME_MS + (i % 7) * 0.3;
    const ts = (i * 3000) >>> 0;
    const bytes = i % 60 === 0 ? 14_000 : 2000 + (i % 5) * 100;
    if (variant === "playout") {
      const ns = ms * 1e6;
      playout.completed(ns, ts, false);
      playout.ready(ns, ts, ns, bytes, false, i % 60 === 0);
      playout.release(ns);
    } else if (variant === "jitter") {
      jitter.update(ms, (i % 7) - 3, bytes);
      sink += jitter.estimateMs();
    } else sink += ms + ts + bytes;
  }
  const used = process.cpuUsage(t0);
  // the work must have happened: every frame shown, or the sums read
  if (variant === "playout" && shown < FRAMES - 1) throw new Error(`${shown} of ${FRAMES} frames shown`);
  if (variant !== "playout" && !(sink > 0)) throw new Error("nothing summed");
  return ((used.user + used.system) * 1000) / FRAMES;
}

const variants: Variant[] = ["loop", "jitter", "playout"];
const ns: Record<Variant, number[]> = { loop: [], jitter: [], playout: [] };
for (let r = 0; r < ROUNDS; r++) for (const v of variants) ns[v].push(pass(v));
const loop = median(ns.loop);
console.log(`${FRAMES} frames per pass, median of ${ROUNDS} rounds, CPU ns per frame`);
for (const v of variants) console.log(`${v}: ${median(ns[v]).toFixed(0)}`);
console.log(
  `playout minus loop: ${(median(ns.playout) - loop).toFixed(0)} ns per frame; jitter estimate minus loop: ` +
    `${(median(ns.jitter) - loop).toFixed(0)} ns`,
);

await renderCost(Number(values.packets), ROUNDS, Number(values.viewers), values.baseline, gc);
