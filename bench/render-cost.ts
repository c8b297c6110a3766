// What the render model costs per packet (docs/definitions.md#viewer-experience), for
// bench/playout-cost.ts: one viewer's ViewerRender (reference finder, playout, freeze clock,
// keyframe-request rule, H.264 packet buffer) over a recorded packet sequence of each embedded clip
// (bench/clip-recording.ts: MTU 1200, 30 fps, deterministic jitter), the frames reassembled
// beforehand so that reassembly is not in it. Variants, interleaved round by round in the same
// process so that a noisy machine moves them together: the harness alone (the same walk over the
// packets and frames, summing their fields) and the model (packets and frames through ViewerRender,
// as the viewer pipeline drives it); then each viewer's own reassembler (pooled frames, as in
// src/core/delay/viewer-pipeline.ts) alone and with the model fed its frames as they complete; and
// the whole viewer pipeline as bench/hotpath.ts's `run` builds it (reassembly, fingerprint, match,
// histograms; src/core/delay/viewer-pipeline.ts) with and without the model, to compare the model's
// cost there with its cost alone in one process; and with --baseline <another
// checkout> the same through that checkout's ViewerRender (a model before and after a change, in one
// process). Figures: CPU ns per packet.
import { resolve } from "node:path";
import { PerformanceObserver } from "node:perf_hooks";
import { loadClip } from "../src/core/clip/clip.ts";
import { ClipTable, createHasher, type Hasher } from "../src/core/delay/fingerprint.ts";
import { SendLog } from "../src/core/delay/sendlog.ts";
import { ViewerPipeline } from "../src/core/delay/viewer-pipeline.ts";
import type { RenderFrame } from "../src/core/render/render-model.ts";
import { ViewerRender } from "../src/core/render/viewer-render.ts";
import { reassemblerFor } from "../src/core/rtp/codec-frames.ts";
import type { Codec } from "../src/core/types.ts";
import { type Packet, recording, WALL_MINUS_MONO_NS } from "./clip-recording.ts";
import { median } from "./median.ts";

type Frame = RenderFrame & { late: boolean };

interface Recorded {
  codec: Codec;
  packets: Packet[];
  frames: Frame[];
  /** frames completed by packet i: frames[first[i]] … frames[first[i + 1] − 1] */
  first: Int32Array;
  table: ClipTable;
  hasher: Hasher;
}

function record(codec: Codec, count: number, hasher: Hasher): Recorded {
  const clip = loadClip(codec);
  const packets = recording(clip, count);
  const reasm = reassemblerFor(codec);
  const frames: Frame[] = [];
  const first = new Int32Array(count + 1);
  for (let i = 0; i < packets.length; i++) {
    const p = packets[i]!;
    first[i] = frames.length;
    const n = reasm.push(p.seq, p.ts, p.marker, p.payload, p.arrivalNs);
    for (let j = 0; j < n; j++) {
      const f = reasm.results.frame(j);
      const { lo, hi, head, keyframe, completedNs, timestamp, late } = f;
      frames.push({ lo, hi, head, keyframe, completedNs, timestamp, late });
    }
  }
  first[packets.length] = frames.length;
  return { codec, packets, frames, first, table: new ClipTable(hasher, clip), hasher };
}

/**
 * One window's CPU and heap growth per delivery (`stop` with the deliveries it made). The caller
 * forces a full GC before the pass (the process runs with bench/allocation-gc.ts's flags) and counts
 * the heap growth as the bytes allocated only where no GC ran in the window.
 */
class Meter {
  private cpu0 = process.cpuUsage();
  private heap0 = 0;
  ns = 0;
  bytes = 0;
  start(): void {
    this.heap0 = process.memoryUsage().heapUsed;
    this.cpu0 = process.cpuUsage();
  }
  stop(deliveries: number): void {
    const used = process.cpuUsage(this.cpu0);
    this.bytes = (process.memoryUsage().heapUsed - this.heap0) / deliveries;
    this.ns = ((used.user + used.system) * 1000) / deliveries;
  }
}

type Variant = "loop" | "model" | "baseline" | "reasm" | "reasm+model" | "pipeline" | "pipeline-nomodel";
type Render = typeof ViewerRender;

/** CPU ns per packet for one pass of a variant that reassembles: "reasm" or "reasm+model". */
function livePass(r: Recorded, model: boolean, viewers: number, meter: Meter): void {
  const at = r.packets[0]!.arrivalNs - 50e6;
  const vs = Array.from({ length: viewers }, () => new ViewerRender(r.codec, "browser", null, at));
  const rs = Array.from({ length: viewers }, () => reassemblerFor(r.codec));
  // as a viewer without a fingerprint source runs it: pooled frames, no payload joined
  for (const x of rs) {
    x.results.reuse = true;
    x.depacketise = false;
  }
  let sink = 0;
  meter.start();
  for (let i = 0; i < r.packets.length; i++) {
    const p = r.packets[i]!;
    sink += p.payload[0]!;
    for (let k = 0; k < viewers; k++) {
      const v = vs[k]!;
      if (model) v.packet(p.arrivalNs, p.payload, i > 0, p.seq, p.ts, p.marker);
      const n = rs[k]!.push(p.seq, p.ts, p.marker, p.payload, p.arrivalNs);
      for (let j = 0; j < n; j++) {
        const f = rs[k]!.results.frame(j);
        if (model) v.frame(f);
        else sink += f.lo;
      }
    }
  }
  meter.stop(r.packets.length * viewers);
  const shown = vs[0]!.finish(r.packets[r.packets.length - 1]!.arrivalNs + 100e6).render.framesShown;
  if (model && shown < r.frames.length - 2)
    throw new Error(`reasm+model: ${shown} of ${r.frames.length} shown`);
  if (!(sink > 0)) throw new Error("nothing summed");
}

/** CPU ns per packet through the whole viewer pipeline, as bench/hotpath.ts's `run` (or `run-nomodel`). */
function pipelinePass(r: Recorded, model: boolean, viewers: number, meter: Meter): void {
  const log = SendLog.create(r.table.loopFrames);
  const postNs = r.packets[0]!.arrivalNs - 50e6;
  const vs = Array.from(
    { length: viewers },
    () =>
      new ViewerPipeline({
        codec: r.codec,
        stallNs: 500e6,
        excludeFirstNs: 0,
        postNs,
        wallMinusMonoNs: WALL_MINUS_MONO_NS,
        hasher: r.hasher,
        table: r.table,
        sendLog: log,
        absCaptureNegotiated: true,
        renderModel: model,
      }),
  );
  meter.start();
  for (const p of r.packets) {
    if (p.logK >= 0) log.record(p.logK, p.sendNs);
    for (let k = 0; k < viewers; k++) {
      vs[k]!.onPacket(p.seq, p.ts, p.marker, p.payload, p.arrivalNs, p.captureWallNs);
    }
  }
  meter.stop(r.packets.length * viewers);
  const res = vs[0]!.finish();
  if (
    res.oneWayDelay.samples < r.frames.length - 2 ||
    (model && res.render.framesShown < r.frames.length - 2)
  )
    throw new Error(`pipeline: ${res.oneWayDelay.samples} samples, ${res.render.framesShown} shown`);
}

/** CPU ns per packet for one pass of `variant`. */
function pass(r: Recorded, variant: Variant, base: Render | null, viewers: number, meter: Meter): void {
  const Model = variant === "baseline" && base !== null ? base : ViewerRender;
  const vs = Array.from(
    { length: viewers },
    () => new Model(r.codec, "browser", null, r.packets[0]!.arrivalNs - 50e6),
  );
  const { packets, frames, first } = r;
  let sink = 0;
  meter.start();
  for (let i = 0; i < packets.length; i++) {
    const p = packets[i]!;
    // every variant reads the payload's first byte, as the receive path has just done: its cache
    // miss (the recording's payloads span hundreds of MB) is the harness's, not the model's
    sink += p.payload[0]!;
    // each packet to every viewer in turn, and the frames it completed (as from a relay's fan-out)
    for (let k = 0; k < viewers; k++) {
      const v = vs[k]!;
      if (variant === "loop") sink += p.arrivalNs + p.seq + p.ts + p.payload.length;
      else v.packet(p.arrivalNs, p.payload, i > 0, p.seq, p.ts, p.marker);
      for (let j = first[i]!; j < first[i + 1]!; j++) {
        const f = frames[j]!;
        if (variant !== "loop") v.frame(f);
        else sink += f.lo + f.completedNs;
      }
    }
  }
  meter.stop(r.packets.length * viewers);
  const end = packets[packets.length - 1]!.arrivalNs + 100e6;
  const shown = Math.min(...vs.map((v) => v.finish(end).render.framesShown));
  // the work must have happened: the model showed every frame but the first, the sums were read
  if (variant !== "loop" && shown < frames.length - 2)
    throw new Error(`${variant}: ${shown} of ${frames.length} shown`);
  if (!(sink > 0)) throw new Error("nothing summed");
}

let gcCount = 0;
const settle = () => new Promise((r) => setImmediate(r));

/**
 * `baseline`: another checkout's root, whose ViewerRender runs beside ours; "" none. `gc`: the forced
 * full GC before each window (bench/allocation-gc.ts).
 */
export async function renderCost(
  count: number,
  rounds: number,
  viewers: number,
  baseline: string,
  gc: () => void,
): Promise<void> {
  new PerformanceObserver((list) => {
    gcCount += list.getEntries().length;
  }).observe({ entryTypes: ["gc"] });
  const hasher = await createHasher();
  const recs = (["vp8", "h264"] as const).map((c) => record(c, count, hasher));
  const base: Render | null =
    baseline === ""
      ? null
      : (await import(resolve(baseline, "src/core/render/viewer-render.ts"))).ViewerRender;
  const variants: Variant[] = ["loop", "model", "reasm", "reasm+model", "pipeline", "pipeline-nomodel"];
  if (base !== null) variants.push("baseline");
  const ns = new Map<string, number[]>();
  const bytes = new Map<string, number[]>();
  const add = (m: Map<string, number[]>, k: string, x: number) => m.set(k, [...(m.get(k) ?? []), x]);
  const meter = new Meter();
  for (let round = -1; round < rounds; round++) {
    for (const r of recs) {
      for (const v of variants) {
        gc();
        await settle(); // the forced GC's entry arrives on a later turn
        await settle();
        const gcBefore = gcCount;
        if (v.startsWith("reasm")) livePass(r, v === "reasm+model", viewers, meter);
        else if (v.startsWith("pipeline")) pipelinePass(r, v === "pipeline", viewers, meter);
        else pass(r, v, base, viewers, meter);
        const { ns: x, bytes: b } = meter;
        await settle();
        await settle();
        if (round < 0) continue;
        add(ns, `${r.codec}/${v}`, x);
        // a window that saw a GC undercounts: left out
        if (gcCount === gcBefore) add(bytes, `${r.codec}/${v}`, b);
      }
    }
  }
  console.log("");
  console.log(
    `render model: ${viewers} viewers × ${count} packets per pass, median of ${rounds} rounds, ` +
      "CPU ns per packet delivered to one viewer",
  );
  for (const r of recs) {
    const m = (v: Variant) => median(ns.get(`${r.codec}/${v}`) ?? []);
    const perFrame = (r.packets.length / r.frames.length).toFixed(2);
    console.log(
      `${r.codec}: loop ${m("loop").toFixed(0)}, model ${m("model").toFixed(0)}; model minus loop ` +
        `${(m("model") - m("loop")).toFixed(0)} ns per packet, ${perFrame} packets per frame; with ` +
        `its own reassembler's frames: reasm ${m("reasm").toFixed(0)}, reasm+model ` +
        `${m("reasm+model").toFixed(0)}, the model ${(m("reasm+model") - m("reasm")).toFixed(0)} ns per packet`,
    );
    console.log(
      `${r.codec}: the whole viewer pipeline (bench:hotpath's run): with the model ` +
        `${m("pipeline").toFixed(0)}, without ${m("pipeline-nomodel").toFixed(0)}, the model ` +
        `${(m("pipeline") - m("pipeline-nomodel")).toFixed(0)} ns per packet`,
    );
    const b = (v: Variant) => {
      const xs = bytes.get(`${r.codec}/${v}`) ?? [];
      return xs.length === 0 ? "unavailable (a GC ran in every window)" : `${median(xs).toFixed(0)}`;
    };
    console.log(
      `${r.codec}: heap bytes allocated per packet (windows without a GC): ` +
        variants.map((v) => `${v} ${b(v)}`).join(", "),
    );
    if (base !== null) {
      console.log(
        `${r.codec}: baseline (${baseline}) ${m("baseline").toFixed(0)}; minus loop ` +
          `${(m("baseline") - m("loop")).toFixed(0)} ns per packet`,
      );
    }
  }
}
