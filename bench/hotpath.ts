// Hot-path micro-benchmark (DESIGN "Hot path budget": our per-packet work < 3 µs). Feeds
// recorded-like synthetic packets — the embedded VP8 and H.264 clips packetised at MTU 1200
// exactly as the publisher sends them, arriving at 30 fps with 20 µs between a frame's packets,
// 2 ms transit and up to 200 µs of deterministic jitter, abs-capture-time stamped — through
// src/core/delay/viewer-pipeline.ts for V viewers at once (each packet goes to every viewer in turn,
// as from a relay's fan-out, with the send log written just before a frame's first packet).
// No werift, no sockets: this is our own cost on top of werift's receive path.
//
// Variants, each in its own process (a child per variant and round, the order reversed every other
// round, each child warmed up on its own variant), so that no variant's type feedback and inlining
// shape the code another one runs; --one-process runs them all in this process, interleaved round
// by round, as before (bench/README.md: in one process, `run` minus `run-nomodel` read 2–6 times
// the model's cost):
//   loop        the harness alone: the same calls into a sink that only reads its arguments
//   rtpstats    RtpStats.push only (loss, jitter, gaps, keyframes, join)
//   bare        ViewerPipeline with table = null and abs-capture-time not negotiated: the
//               statistics through the pipeline's own bookkeeping, nothing else
//   view        table = null, abs-capture-time negotiated: what a `view` viewer runs (no send
//               log, so no fingerprint; packet transit and whatever the stamps feed)
//   run         the whole pipeline as in a `run`: + reassembly, xxhash64 fingerprint, clip
//               lookup, matcher, delay histograms
//   twcc        loop, plus only what run+twcc adds (below): that work's own cost is twcc − loop
//   run+twcc    run, plus what a browser-profile viewer adds per packet before the pipeline
//               (docs/definitions.md#transport-feedback): the transport-wide sequence number
//               found in the packet's header extension (after abs-capture-time, as the relay
//               writes it) and recorded in the ring, and every 100 ms of arrival time the
//               feedback message written (its send through werift's sendRtcp is not in it)
//   bare-nomodel, view-nomodel, run-nomodel
//               the same without the render model (renderModel: false: no reassembly for the
//               render model alone, no reference finder, freeze clock or keyframe-request rule),
//               the pipeline as it was before it: the model's cost is the difference
//
// Figures per packet (one packet delivered to one viewer), medians over the rounds:
// - CPU µs: process.cpuUsage (user + system, so V8's GC helper threads count too) over a window
//   of every packet to every viewer; wall µs over the same window.
// - bytes allocated, measured in a separate, shorter window (the first --alloc-packets packets)
//   so that no GC runs inside it: the process runs with --expose-gc and a fixed 256 MiB
//   semi-space; the window starts after a forced full GC; heap bytes = growth of
//   process.memoryUsage().heapUsed (JS objects, including small typed arrays) and buffer bytes =
//   growth of .arrayBuffers (the off-heap backing stores of larger typed arrays, e.g. an FU-A
//   unit joined into a new buffer). A window is kept only when a PerformanceObserver saw no GC
//   in it: with nothing freed, growth is exactly what was allocated. Checked by hand against
//   1e6 two-field objects (40 B each, the size V8 gives them without pointer compression).
//
//   npm run bench:hotpath                 # 8 viewers × 25 000 packets per variant and codec
//   node bench/hotpath.ts --variants loop,run,run-nomodel [--one-process]
//   node bench/hotpath.ts --viewers 4 --packets 50000 --rounds 7
//   node bench/hotpath.ts --simulcast --variants loop,bare,run   # the layer bookkeeping's cost
//
// --simulcast (issue 41) measures each codec's stream three ways: the plain embedded clip; the
// simulcast h layer's clip (clips/clip-<codec>-h) as one encoding, its own table; and the same h
// packets as a simulcast viewer gets them from the relay (one layer per leg): the table of the
// three layers l, m, h (docs/definitions.md#simulcast-layers), the send log written as a simulcast
// publisher writes it (every layer's frame of each picture, k = 3·f + j), so the matcher, the
// per-layer histograms, counters and stays run. h as one encoding against h in simulcast: the same
// packets, the layer work alone.
import { spawnSync } from "node:child_process";
import { cpus } from "node:os";
import { PerformanceObserver } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { loadClip } from "../src/core/clip/clip.ts";
import type { Clip } from "../src/core/clip/model.ts";
import { embeddedLayerPath, loadSimulcastClips } from "../src/core/clip/simulcast.ts";
import { keyframeStartH264 } from "../src/core/codec/h264.ts";
import { keyframeStartVp8 } from "../src/core/codec/vp8.ts";
import { ClipTable, clipIdentity, createHasher, type Hasher } from "../src/core/delay/fingerprint.ts";
import { SendLog } from "../src/core/delay/sendlog.ts";
import { ViewerPipeline } from "../src/core/delay/viewer-pipeline.ts";
import { RtpStats } from "../src/core/rtp/stats.ts";
import { TwccRecorder } from "../src/core/rtp/twcc.ts";
import type { Codec } from "../src/core/types.ts";
import { extensionLength, extensionOffset, findExtension } from "../src/workers/receive/rtp-read.ts";
import { allocationGc } from "./allocation-gc.ts";
import { MS, type Packet, recording, WALL_MINUS_MONO_NS } from "./clip-recording.ts";
import { median } from "./median.ts";

// re-runs itself with the flags the allocation figure needs
const gc = allocationGc(import.meta.url);

const { values: args } = parseArgs({
  options: {
    viewers: { type: "string", default: "8" },
    packets: { type: "string", default: "25000" },
    rounds: { type: "string", default: "5" },
    "alloc-packets": { type: "string", default: "2500" },
    /** a comma-separated subset of the variants (all when absent) */
    variants: { type: "string" },
    /** every variant in this one process, interleaved round by round (before: each in its own) */
    "one-process": { type: "boolean", default: false },
    /** internal: the one stream (contextNames) a child measures */
    context: { type: "string" },
    /** also the simulcast h layer, as one encoding and as a simulcast viewer receives it */
    simulcast: { type: "boolean", default: false },
    /** internal: one process's windows as JSON, for the parent's medians */
    child: { type: "boolean", default: false },
  },
});
const VIEWERS = Number(args.viewers);
const PACKETS_PER_VIEWER = Number(args.packets);
const ROUNDS = Number(args.rounds);
const ALLOC_PACKETS = Math.min(Number(args["alloc-packets"]), PACKETS_PER_VIEWER);

type Variant =
  | "loop"
  | "twcc"
  | "rtpstats"
  | "bare"
  | "view"
  | "run"
  | "run+twcc"
  | "bare-nomodel"
  | "view-nomodel"
  | "run-nomodel";
const ALL_VARIANTS: Variant[] = [
  "loop",
  "twcc",
  "rtpstats",
  "bare",
  "view",
  "run",
  "run+twcc",
  "bare-nomodel",
  "view-nomodel",
  "run-nomodel",
];
const VARIANTS: Variant[] =
  args.variants === undefined
    ? ALL_VARIANTS
    : ALL_VARIANTS.filter((v) => (args.variants ?? "").split(",").includes(v));
/** The variant without its -nomodel suffix. */
const baseOf = (v: Variant): string => v.replace("-nomodel", "").replace("+twcc", "");

interface Sink {
  onPacket(
    seq: number,
    ts: number,
    marker: boolean,
    payload: Uint8Array,
    arrivalNs: number,
    captureWallNs: number,
  ): void;
}

/** Reads every argument into a double field (updated in place: no allocation of its own). */
class NullSink implements Sink {
  sum = 0.5;
  onPacket(
    seq: number,
    ts: number,
    marker: boolean,
    payload: Uint8Array,
    arrivalNs: number,
    wall: number,
  ): void {
    this.sum += seq + ts + (marker ? 1 : 0) + payload.length + arrivalNs - wall;
  }
}

class StatsSink implements Sink {
  private readonly rtp: RtpStats;
  private readonly postNs: number;
  constructor(codec: Codec, postNs: number) {
    this.rtp = new RtpStats({
      clockRate: 90_000,
      stallNs: 500 * MS,
      keyframeStart: codec === "vp8" ? keyframeStartVp8 : keyframeStartH264,
    });
    this.postNs = postNs;
  }
  onPacket(seq: number, ts: number, marker: boolean, payload: Uint8Array, arrivalNs: number): void {
    this.rtp.push(seq, ts, marker, payload, arrivalNs - this.postNs);
  }
  received(): number {
    return this.rtp.report().received;
  }
}

/** A sink behind the transport-wide number's lookup and record, and the feedback's writing. */
class TwccSink implements Sink {
  readonly pipeline: Sink;
  private readonly recorder = new TwccRecorder();
  // a header as the relay writes it: one-byte extensions, abs-capture-time (id 4, 8 bytes) then
  // the transport-wide number (id 2, 2 bytes), three words
  private readonly header = Buffer.from([
    0x90, 96, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0xbe, 0xde, 0, 3, 0x47, 1, 2, 3, 4, 5, 6, 7, 8, 0x21, 0, 0,
  ]);
  private transportSeq = 0;
  private flushAtNs = -1;
  messages = 0;
  constructor(pipeline: Sink) {
    this.pipeline = pipeline;
  }
  onPacket(
    seq: number,
    ts: number,
    marker: boolean,
    payload: Uint8Array,
    arrivalNs: number,
    captureWallNs: number,
  ): void {
    const h = this.header;
    // the sender's part: this packet's number in its header
    const t = this.transportSeq;
    this.transportSeq = (t + 1) & 0xffff;
    h[26] = t >>> 8;
    h[27] = t & 0xff;
    // the receiver's part (receiver.ts transportSeq, twcc-sender.ts)
    const found = findExtension(h, h.length, 2);
    if (found >= 0 && extensionLength(found) >= 2) {
      const at = extensionOffset(found);
      this.recorder.onPacket((h[at]! << 8) | h[at + 1]!, arrivalNs);
    }
    if (arrivalNs >= this.flushAtNs) {
      if (this.flushAtNs >= 0) while (this.recorder.next(1, 2) > 0) this.messages++;
      this.flushAtNs = arrivalNs + 100 * MS;
    }
    this.pipeline.onPacket(seq, ts, marker, payload, arrivalNs, captureWallNs);
  }
}

interface Context {
  /** the results' key: the codec, then "-h" (the h layer as one encoding) or "-sim" (in simulcast) */
  name: string;
  codec: Codec;
  hasher: Hasher;
  table: ClipTable;
  packets: Packet[];
  /** the simulcast layers the table and the send log hold (1: one encoding) */
  layers: number;
  /** with layers > 1: the received layer's index, lowest first */
  layer: number;
}

function sinks(ctx: Context, variant: Variant, log: SendLog): Sink[] {
  const postNs = ctx.packets[0]!.arrivalNs - 50 * MS;
  return Array.from({ length: VIEWERS }, (): Sink => {
    if (variant === "loop") return new NullSink();
    if (variant === "twcc") return new TwccSink(new NullSink());
    if (variant === "rtpstats") return new StatsSink(ctx.codec, postNs);
    const full = baseOf(variant) === "run";
    const pipeline = new ViewerPipeline({
      codec: ctx.codec,
      stallNs: 500 * MS,
      excludeFirstNs: 0,
      postNs,
      wallMinusMonoNs: WALL_MINUS_MONO_NS,
      hasher: full ? ctx.hasher : null,
      table: full ? ctx.table : null,
      sendLog: full ? log : null,
      absCaptureNegotiated: baseOf(variant) !== "bare",
      renderModel: !variant.endsWith("-nomodel"),
    });
    return variant === "run+twcc" ? new TwccSink(pipeline) : pipeline;
  });
}

interface Window {
  cpuUs: number;
  wallUs: number;
  heapBytes: number;
  bufferBytes: number;
  gcs: number;
}

let gcCount = 0;
new PerformanceObserver((list) => {
  gcCount += list.getEntries().length;
}).observe({ entryTypes: ["gc"] });
const settle = () => new Promise((r) => setImmediate(r));

/**
 * The send log's entries for a frame's first packet: with simulcast, every layer's frame of the
 * picture, as the publisher logs them (docs/definitions.md#simulcast-publisher): k = L·f + j, clip
 * index j·N + i.
 */
function logFrame(ctx: Context, log: SendLog, p: Packet): void {
  const L = ctx.layers;
  if (L === 1) {
    log.record(p.logK, p.sendNs);
    return;
  }
  const n = ctx.table.loopFrames / L;
  for (let j = 0; j < L; j++) log.record(L * p.logK + j, p.sendNs, j * n + (p.logK % n));
}

/** One window: the first `count` packets to every viewer, in arrival order. Per-delivery figures. */
async function measure(ctx: Context, variant: Variant, count: number): Promise<Window> {
  const log = SendLog.create(ctx.table.loopFrames);
  const targets = sinks(ctx, variant, log);
  const pkts = ctx.packets;
  gc();
  await settle(); // GC entries arrive on the next turns of the loop
  await settle();
  const gcBefore = gcCount;
  const mem0 = process.memoryUsage();
  const cpu0 = process.cpuUsage();
  const wall0 = process.hrtime.bigint();
  for (let i = 0; i < count; i++) {
    const p = pkts[i]!;
    if (p.logK >= 0) logFrame(ctx, log, p);
    for (let v = 0; v < targets.length; v++) {
      targets[v]!.onPacket(p.seq, p.ts, p.marker, p.payload, p.arrivalNs, p.captureWallNs);
    }
  }
  const wall1 = process.hrtime.bigint();
  const cpu = process.cpuUsage(cpu0);
  const mem1 = process.memoryUsage();
  await settle();
  await settle();
  const gcs = gcCount - gcBefore;
  check(ctx, variant, targets, count);
  const n = count * targets.length;
  return {
    cpuUs: (cpu.user + cpu.system) / n,
    wallUs: Number(wall1 - wall0) / 1e3 / n,
    heapBytes: (mem1.heapUsed - mem0.heapUsed) / n,
    bufferBytes: (mem1.arrayBuffers - mem0.arrayBuffers) / n,
    gcs,
  };
}

/** The bench measures nothing unless the work really happened: every frame sampled, none lost. */
function check(ctx: Context, variant: Variant, targets: Sink[], n: number): void {
  for (const t of targets) {
    const inner = t instanceof TwccSink ? t.pipeline : t;
    if (inner instanceof NullSink && !Number.isFinite(inner.sum)) throw new Error("loop: no work seen");
    if (t instanceof StatsSink && t.received() !== n)
      throw new Error(`${variant}: ${t.received()} of ${n} received`);
    if (t instanceof TwccSink && t.messages < 1) throw new Error(`${variant}: no feedback written`);
    const p = inner;
    if (!(p instanceof ViewerPipeline)) continue;
    const r = p.finish();
    if (r.rtp.received !== n || r.rtp.lost !== 0)
      throw new Error(`${variant}: received ${r.rtp.received} of ${n}`);
    if (!p.joined) throw new Error(`${variant}: never joined`);
    const d = r.oneWayDelay;
    // the render model saw a clean stream: every frame but the first shown, no freeze
    if (!variant.endsWith("-nomodel") && (r.render.freezes !== 0 || r.render.framesShown < 2)) {
      throw new Error(`${variant}: ${r.render.framesShown} frames shown, ${r.render.freezes} freezes`);
    }
    if (baseOf(variant) === "run") {
      const frames = ctx.packets.slice(0, n).filter((p) => p.logK >= 0).length;
      // at most the first (if the window starts mid-frame) and the last (cut short) missing
      if (d.samples < frames - 2 || d.unmatchedFrames !== 0 || d.invalid !== 0) {
        throw new Error(`pipeline: ${d.samples} samples of ${frames} frames, ${d.unmatchedFrames} unmatched`);
      }
      // with simulcast, every sample on the received layer
      if (ctx.layers > 1 && r.layerSamples?.[ctx.layer] !== d.samples) {
        throw new Error(`${ctx.name}: ${r.layerSamples?.join(",")} layer samples, ${d.samples} in all`);
      }
    } else if (d.samples !== 0) {
      throw new Error(`${variant}: delay samples without a table`);
    }
    const stamped = baseOf(variant) === "bare" ? 0 : n;
    if (r.packetTransit.stamped !== stamped) {
      throw new Error(`${variant}: ${r.packetTransit.stamped} stamped packets, want ${stamped}`);
    }
  }
}

interface Results {
  timed: Record<string, Window[]>;
  alloc: Record<string, Window[]>;
}

/** Every round of VARIANTS in this process, after a warm-up round (JIT and caches). */
async function measureHere(contexts: Context[]): Promise<Results> {
  const res: Results = { timed: {}, alloc: {} };
  const add = (m: Record<string, Window[]>, key: string, w: Window) => {
    m[key] = [...(m[key] ?? []), w];
  };
  for (let round = -1; round < ROUNDS; round++) {
    for (const ctx of contexts) {
      for (const variant of VARIANTS) {
        const t = await measure(ctx, variant, ctx.packets.length);
        const a = await measure(ctx, variant, ALLOC_PACKETS);
        if (round < 0) continue;
        add(res.timed, `${ctx.name}/${variant}`, t);
        if (a.gcs === 0) add(res.alloc, `${ctx.name}/${variant}`, a);
      }
    }
  }
  return res;
}

/**
 * Each variant and stream in its own process (the same V8 flags), one round each, the order
 * reversed every other round: no variant's or stream's type feedback, inlining or heap shapes the
 * code another one runs. Each child warms up on its own variant before its measured round.
 */
function measureApart(names: string[]): Results {
  const res: Results = { timed: {}, alloc: {} };
  const self = fileURLToPath(import.meta.url);
  const rest = [
    "--viewers",
    args.viewers,
    "--packets",
    args.packets,
    "--alloc-packets",
    args["alloc-packets"],
  ];
  const runs = names.flatMap((name) => VARIANTS.map((v) => ({ name, v })));
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? runs : [...runs].reverse();
    for (const { name, v } of order) {
      const argv = [
        ...process.execArgv,
        self,
        "--child",
        "--context",
        name,
        "--variants",
        v,
        "--rounds",
        "1",
      ];
      const r = spawnSync(process.execPath, [...argv, ...rest] as string[], {
        stdio: ["ignore", "pipe", "inherit"],
      });
      if (r.status !== 0) throw new Error(`hotpath: the ${name} ${v} child exited with ${r.status}`);
      const got = JSON.parse(r.stdout.toString()) as Results;
      for (const k of ["timed", "alloc"] as const) {
        for (const [key, ws] of Object.entries(got[k])) res[k][key] = [...(res[k][key] ?? []), ...ws];
      }
    }
  }
  return res;
}

/** The streams measured: each codec's plain clip; with --simulcast, its h layer alone and in simulcast. */
function contextNames(): string[] {
  const suffixes = args.simulcast === true ? ["", "-h", "-sim"] : [""];
  return ["vp8", "h264"].flatMap((c) => suffixes.map((s) => c + s));
}

/** The stream named `name` (contextNames). */
function makeContext(hasher: Hasher, name: string): Context {
  const codec: Codec = name.startsWith("h264") ? "h264" : "vp8";
  const one = (clip: Clip): Context => ({
    name,
    codec,
    hasher,
    table: new ClipTable(hasher, clip),
    packets: recording(clip, PACKETS_PER_VIEWER),
    layers: 1,
    layer: 0,
  });
  if (name === codec) return one(loadClip(codec));
  if (name.endsWith("-h")) return one(loadClip(codec, { path: embeddedLayerPath(codec, "h") }));
  const sim = loadSimulcastClips(codec);
  const layer = sim.layers.findIndex((l) => l.rid === "h");
  return {
    name,
    codec,
    hasher,
    table: new ClipTable(hasher, { ...clipIdentity(hasher, sim.combined), layers: sim.layers.length }),
    packets: recording((sim.layers[layer] as { clip: Clip }).clip, PACKETS_PER_VIEWER),
    layers: sim.layers.length,
    layer,
  };
}

async function main(): Promise<void> {
  const hasher = await createHasher();
  const names = args.child === true ? [String(args.context)] : contextNames();
  if (args.child === true) {
    process.stdout.write(JSON.stringify(await measureHere([makeContext(hasher, names[0] as string)])));
    return;
  }
  const contexts = args["one-process"] === true ? names.map((n) => makeContext(hasher, n)) : [];
  const { timed: t, alloc: a } =
    args["one-process"] === true ? await measureHere(contexts) : measureApart(names);
  // the streams' shapes, for the print (no timing)
  const shapes = names.map((n) => makeContext(hasher, n));
  print(shapes, new Map(Object.entries(t)), new Map(Object.entries(a)));
}

const fixed = (x: number, d: number) => (Number.isNaN(x) ? "n/a" : x.toFixed(d));
const med = (m: Map<string, Window[]>, name: string, v: Variant, f: (w: Window) => number): number =>
  median((m.get(`${name}/${v}`) ?? []).map(f));

function print(contexts: Context[], timed: Map<string, Window[]>, alloc: Map<string, Window[]>): void {
  console.log(
    `whipbench hot path: ${VIEWERS} viewers × ${PACKETS_PER_VIEWER} packets = ${VIEWERS * PACKETS_PER_VIEWER} ` +
      `deliveries per timed window (allocation: ${VIEWERS} × ${ALLOC_PACKETS}), median of ${ROUNDS} rounds ` +
      `(${args["one-process"] === true ? "all variants in one process" : "each variant in its own process"}), ` +
      `node ${process.version} ${process.arch}, ${cpus().length} CPUs`,
  );
  console.log("");
  console.log(
    "| codec | variant | CPU µs/pkt | wall µs/pkt | heap B/pkt | buffer B/pkt | GC in timed windows |",
  );
  console.log("|---|---|---:|---:|---:|---:|---:|");
  for (const { name } of contexts) {
    for (const v of VARIANTS) {
      const ts = timed.get(`${name}/${v}`) ?? [];
      const cells = [
        fixed(
          med(timed, name, v, (w) => w.cpuUs),
          3,
        ),
        fixed(
          med(timed, name, v, (w) => w.wallUs),
          3,
        ),
        fixed(
          med(alloc, name, v, (w) => w.heapBytes),
          0,
        ),
        fixed(
          med(alloc, name, v, (w) => w.bufferBytes),
          0,
        ),
        `${ts.filter((w) => w.gcs > 0).length} of ${ts.length}`,
      ];
      console.log(`| ${name} | ${v} | ${cells.join(" | ")} |`);
    }
  }
  console.log("");
  for (const ctx of contexts) summary(ctx, timed);
  if (args.simulcast === true) for (const c of ["vp8", "h264"]) simulcastSummary(c, contexts, timed);
}

function summary(ctx: Context, timed: Map<string, Window[]>): void {
  const c = ctx.name;
  const cpu = (v: Variant) => med(timed, c, v, (w) => w.cpuUs);
  const frames = ctx.packets.filter((p) => p.logK >= 0).length;
  console.log(
    `${c}: run pipeline minus harness ${fixed(cpu("run") - cpu("loop"), 3)} µs CPU per packet ` +
      `(DESIGN budget: under 3); of which everything past the statistics (reassembly, hash, match, histograms, transit) ` +
      `${fixed(cpu("run") - cpu("bare"), 3)} µs at ${(ctx.packets.length / frames).toFixed(2)} packets per frame`,
  );
  console.log(
    `${c}: transport-wide number recorded and feedback written: twcc minus loop ` +
      `${fixed(cpu("twcc") - cpu("loop"), 3)}, run+twcc minus run ${fixed(cpu("run+twcc") - cpu("run"), 3)} ` +
      "µs CPU per packet (issue 39's budget: 0.5)",
  );
  const model = (v: "bare" | "view" | "run") => fixed(cpu(v) - cpu(`${v}-nomodel`), 3);
  console.log(
    `${c}: render model (with and without it, same run): bare +${model("bare")}, view +${model("view")}, ` +
      `run +${model("run")} µs CPU per packet (target: 0.3)`,
  );
}

/**
 * The simulcast viewer's layer work: h in simulcast minus h as one encoding (the same packets), per
 * variant; `bare` runs no table on either, so its difference is the noise. The streams' packets per
 * frame, packet rates and bit rates, for the per-packet figures' sake.
 */
function simulcastSummary(codec: string, contexts: Context[], timed: Map<string, Window[]>): void {
  for (const ctx of contexts.filter((x) => x.codec === codec)) {
    const frames = ctx.packets.filter((p) => p.logK >= 0).length;
    const fps = 90_000 / ctx.table.ticks;
    const bytes = ctx.packets.reduce((sum, p) => sum + p.payload.length, 0);
    console.log(
      `${ctx.name}: ${(ctx.packets.length / frames).toFixed(2)} packets per frame, ` +
        `${((ctx.packets.length / frames) * fps).toFixed(0)} packets/s at ${fps.toFixed(0)} fps, ` +
        `${((bytes * 8 * fps) / frames / 1000).toFixed(0)} kbit/s of payload` +
        (ctx.layers > 1 ? `, layer ${ctx.layer} of a ${ctx.layers}-layer table` : ""),
    );
  }
  const diffs = VARIANTS.map((v) => {
    const d = med(timed, `${codec}-sim`, v, (w) => w.cpuUs) - med(timed, `${codec}-h`, v, (w) => w.cpuUs);
    return `${v} ${d >= 0 ? "+" : ""}${fixed(d, 3)}`;
  });
  console.log(`${codec}: h in simulcast minus h alone, CPU µs per packet: ${diffs.join(", ")}`);
  // each round's figure, for the noise the differences stand in
  for (const n of [codec, `${codec}-h`, `${codec}-sim`]) {
    const rounds = VARIANTS.map((v) => {
      const cpus = (timed.get(`${n}/${v}`) ?? []).map((w) => w.cpuUs.toFixed(3));
      return `${v} ${cpus.join(" ")}`;
    });
    console.log(`${n}: CPU µs per packet, each round: ${rounds.join("; ")}`);
  }
  // the harness writes L log entries per picture with simulcast (the publisher's work, not the viewer's)
  const own = (n: string) => med(timed, n, "run", (w) => w.cpuUs) - med(timed, n, "loop", (w) => w.cpuUs);
  console.log(
    `${codec}: run minus loop (the viewer's own work): plain ${fixed(own(codec), 3)}, h alone ` +
      `${fixed(own(`${codec}-h`), 3)}, h in simulcast ${fixed(own(`${codec}-sim`), 3)} µs CPU per packet`,
  );
}

await main();
