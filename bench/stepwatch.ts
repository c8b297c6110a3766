// How quiet the clock-step detector is on this machine: edge-aligned wall readings against the
// monotonic clock once a second (as a run takes them) for --seconds (default 60); prints the
// worst |Δwall − Δmono| per interval, the reading uncertainty, and whether a step was detected.
//
//   node bench/stepwatch.ts [--seconds 60]

import { edgeWallReading } from "../src/core/clock/clock.ts";
import { StepWatch } from "../src/core/clock/stepwatch.ts";

const i = process.argv.indexOf("--seconds");
const seconds = i >= 0 ? Number(process.argv[i + 1]) : 60;
const w = new StepWatch();
let prev = edgeWallReading();
w.observe(prev.wallNs, prev.monoNs);
let worstNs = 0;
let worstUncertaintyNs = prev.uncertaintyNs;
for (let s = 0; s < seconds; s++) {
  await new Promise((r) => setTimeout(r, 1000));
  const r = edgeWallReading();
  w.observe(r.wallNs, r.monoNs);
  worstNs = Math.max(worstNs, Math.abs(r.wallNs - prev.wallNs - (r.monoNs - prev.monoNs)));
  worstUncertaintyNs = Math.max(worstUncertaintyNs, r.uncertaintyNs);
  prev = r;
}
process.stdout.write(
  `${seconds} s, one reading a second: worst |Δwall − Δmono| ${(worstNs / 1000).toFixed(1)} µs (allowance 600 µs), worst reading uncertainty ±${(worstUncertaintyNs / 1000).toFixed(1)} µs, step detected: ${w.stepDetected}\n`,
);
