// bench:calibration — our viewers' freezes beside libwebrtc's own (M106, @roamhq/wrtc) on the same
// stream of the built-in relay, for the fault patterns of bench/libwebrtc.ts (PATTERNS). Prints one row
// per receiver and a verdict per pattern against the targets (freezes ±1 per 30 s, frozen seconds
// ±15 %). Flags: --seconds S (30), --libwebrtc N (2), --viewers N (3), --patterns i,j (all),
// --baseline <another checkout's bin/whipbench.js> (its viewers watch too: a model before and after a
// change on the same stream).
import { parseArgs } from "node:util";
import { FreezeClock } from "../src/core/render/freeze-clock.ts";
import { windowLine } from "./fault-window.ts";
import { type Calibration, calibrate, type LibwebrtcStats, libwebrtcMissing, PATTERNS } from "./libwebrtc.ts";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "30" },
    libwebrtc: { type: "string", default: "2" },
    viewers: { type: "string", default: "3" },
    patterns: { type: "string", default: "" },
    baseline: { type: "string" },
  },
});
const seconds = Number(values.seconds);
const chosen = values.patterns === "" ? PATTERNS.map((_, i) => i) : values.patterns.split(",").map(Number);

const missing = libwebrtcMissing();
if (missing !== null) {
  console.error(`bench:calibration: ${missing}`);
  process.exit(1);
}

const mean = (xs: number[]): number =>
  xs.length === 0 ? Number.NaN : xs.reduce((a, b) => a + b, 0) / xs.length;
const f1 = (x: number): string => (Number.isFinite(x) ? x.toFixed(2) : "—");

/** Our freeze rule over the instants libwebrtc's frames reached its sink: the counter checked alone. */
function sinkFreezes(ms: readonly number[]): string {
  const clock = new FreezeClock();
  for (const t of ms) clock.shown(t * 1e6);
  return `${clock.freezes} / ${f1(clock.frozenMs / 1000)} s`;
}

/** libwebrtc's mean decode time and jitter-buffer delay per frame, and its RFC 3550 jitter, ms. */
function perFrame(l: LibwebrtcStats): string {
  const decode = ((l.totalDecodeTime ?? Number.NaN) * 1000) / (l.framesDecoded ?? Number.NaN);
  const buffer = ((l.jitterBufferDelay ?? Number.NaN) * 1000) / (l.jitterBufferEmittedCount ?? Number.NaN);
  return `${f1(decode)} / ${f1(buffer)} | ${f1((l.jitter ?? Number.NaN) * 1000)}`;
}

function rows(c: Calibration): void {
  console.log(`\n## ${c.pattern}, ${c.seconds} s`);
  if (c.faultWindow !== null) console.log(`\n${windowLine(c.faultWindow)}`);
  if (c.unavailable !== undefined) console.log(`\n**Comparison unavailable, because** ${c.unavailable}.`);
  console.log(
    "| receiver | freezes | frozen s | frames shown / decoded | not decodable / dropped | PLIs | our freeze rule on its sink's JS instants | decode ms / jitter-buffer ms per frame | RFC 3550 jitter ms |",
  );
  console.log("|---|---:|---:|---:|---:|---:|---|---|---:|");
  for (const [i, l] of c.libwebrtc.entries()) {
    if (!l.ok) console.log(`| libwebrtc ${i + 1} | failed: ${l.error} |||||`);
    else
      console.log(
        `| libwebrtc ${i + 1} | ${l.freezeCount} | ${f1(l.totalFreezesDuration ?? Number.NaN)} | ${l.framesDecoded} | ${l.framesDropped} | ${l.pliCount} | ${sinkFreezes(l.sinkFrameMs ?? [])} | ${perFrame(l)} |`,
      );
  }
  for (const [i, r] of c.ours.entries()) {
    console.log(
      `| whipbench ${i + 1} | ${r.freezes} | ${f1(r.frozenMs / 1000)} | ${r.framesShown} | ${r.framesNotDecodable} | ${r.plisSent} | | | ${f1(c.oursJitterMs[i] ?? Number.NaN)} |`,
    );
  }
  for (const [i, r] of c.baseline.entries()) {
    console.log(
      `| baseline ${i + 1} | ${r.freezes} | ${f1(r.frozenMs / 1000)} | ${r.framesShown} | ${r.framesNotDecodable} | ${r.plisSent} | |`,
    );
  }
  if (c.ours.length === 0) console.log(`| whipbench | no viewer figures (view exit ${c.viewCode}) |||||`);
  const lib = c.libwebrtc.filter((l) => l.ok);
  const lf = mean(lib.map((l) => l.freezeCount ?? 0));
  const ls = mean(lib.map((l) => l.totalFreezesDuration ?? 0));
  const of = mean(c.ours.map((r) => r.freezes));
  const os = mean(c.ours.map((r) => r.frozenMs / 1000));
  const perThirty = (Math.abs(of - lf) * 30) / c.seconds;
  const rel = ls === 0 ? (os === 0 ? 0 : Number.POSITIVE_INFINITY) : Math.abs(os - ls) / ls;
  if (c.unavailable !== undefined) return;
  console.log(
    `\nmeans: libwebrtc ${f1(lf)} freezes, ${f1(ls)} s; whipbench ${f1(of)} freezes, ${f1(os)} s; ` +
      `|Δ freezes| per 30 s ${f1(perThirty)} (target ≤ 1), frozen s off by ${Number.isFinite(rel) ? `${(rel * 100).toFixed(1)} %` : "∞"} (target ≤ 15 %)`,
  );
}

for (const i of chosen) {
  const pattern = PATTERNS[i];
  if (pattern === undefined) continue;
  const c = await calibrate(
    pattern,
    seconds,
    Number(values.libwebrtc),
    Number(values.viewers),
    values.baseline,
  );
  rows(c);
}
