// Socket to histogram, per packet, in one thread without sockets: what a viewer's whole receive
// costs on the lean path (a fresh Buffer per datagram, node:crypto) and on the arena path (each
// datagram copied into one reused slot, as recvmmsg writes the arena, then unprotected in place
// with the node binary's OpenSSL), each feeding the viewer's full pipeline (reassembly,
// fingerprint, clip lookup, send-log match, delay histograms, transit, stamps) as in a `run`.
//
//   npm run bench:arena-alloc -- [--viewers 8] [--packets 6000] [--rounds 5] [--profile gcm|cm] [--paths lean,arena]
//
// The stream is the embedded VP8 clip as bench/clip-recording.ts records it, protected once.
// Each window gets fresh receivers and pipelines (their own SRTP and replay state) for
// --viewers viewers; every packet goes to every viewer in turn, the send log written before a
// frame's first packet. CPU: process.cpuUsage over the window (GC helper threads included).
// Allocation: as bench/hotpath.ts — the process re-runs itself with --expose-gc and a 256 MiB
// young generation, a full GC before the window, growth of heapUsed (JS objects) and
// arrayBuffers (backing stores); windows that saw a GC are not used for the allocation figures.
// The lean variant's datagram Buffer is made before the window (dgram's own allocation is not
// counted: it is the kernel-copy stand-in on both paths).
import { PerformanceObserver } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { loadClip } from "../src/core/clip/clip.ts";
import { ClipTable, createHasher, type Hasher } from "../src/core/delay/fingerprint.ts";
import { SendLog } from "../src/core/delay/sendlog.ts";
import { ViewerPipeline } from "../src/core/delay/viewer-pipeline.ts";
import { fmtFixed } from "../src/core/go-compat/fmt.ts";
import { PayloadStore } from "../src/core/rtp/payload-store.ts";
import {
  SRTP_AEAD_AES_128_GCM,
  SRTP_AES128_CM_HMAC_SHA1_80,
  type SrtpProfile,
} from "../src/core/srtp/kdf.ts";
import { OwnSrtpStage } from "../src/workers/receive/receiver.ts";
import { allocationGc } from "./allocation-gc.ts";
import { MS, type Packet, recording, WALL_MINUS_MONO_NS } from "./clip-recording.ts";
import { median } from "./median.ts";
import { protectRecording, streamReceiverOptions } from "./srtp-stream.ts";

const gc = allocationGc(import.meta.url);

const { values: args } = parseArgs({
  options: {
    viewers: { type: "string", default: "8" },
    packets: { type: "string", default: "6000" },
    rounds: { type: "string", default: "5" },
    profile: { type: "string", default: "gcm" },
    paths: { type: "string", default: "lean,arena" },
  },
});
const VIEWERS = Number(args.viewers);
const PACKETS = Number(args.packets);
const ROUNDS = Number(args.rounds);
const profile: SrtpProfile = args.profile === "cm" ? SRTP_AES128_CM_HMAC_SHA1_80 : SRTP_AEAD_AES_128_GCM;
if (PACKETS > 60_000) throw new Error("--packets: at most 60000 (the stream must not wrap)");

type Variant = "lean" | "arena";
const VARIANTS = args.paths.split(",").map((p): Variant => {
  if (p !== "lean" && p !== "arena") throw new Error(`--paths: unknown path ${p}`);
  return p;
});

interface Viewer {
  rx: OwnSrtpStage;
  pipeline: ViewerPipeline;
}

/** The bench thread's payload chunks: one store for every round's viewers, as a thread keeps its
 * own across viewers (src/workers/thread.ts); a store per round would count its first chunks. */
const payloads = new PayloadStore();

function viewers(v: Variant, hasher: Hasher, table: ClipTable, log: SendLog, postNs: number): Viewer[] {
  return Array.from({ length: VIEWERS }, () => {
    const pipeline = new ViewerPipeline({
      codec: "vp8",
      stallNs: 500 * MS,
      excludeFirstNs: 0,
      postNs,
      wallMinusMonoNs: WALL_MINUS_MONO_NS,
      hasher,
      table,
      sendLog: log,
      absCaptureNegotiated: true,
    });
    if (v === "arena") pipeline.reusesPayloads(payloads);
    const rx = new OwnSrtpStage({
      ...streamReceiverOptions(profile),
      inPlace: v === "arena",
      keyframes: () => pipeline.render,
      next: {
        receive: (p) => pipeline.onPacket(p.seq, p.ts, p.marker, p.payload, p.arrivalNs, p.captureWallNs),
        close: () => {},
      },
    });
    if (v === "arena" && rx.srtpBackend !== "openssl") {
      throw new Error(`arena: OpenSSL in place did not load (${rx.srtpBackend})`);
    }
    return { rx, pipeline };
  });
}

interface Window {
  cpuUs: number;
  heapB: number;
  bufB: number;
  gcs: number;
}

let gcCount = 0;
new PerformanceObserver((l) => {
  gcCount += l.getEntries().length;
}).observe({ entryTypes: ["gc"] });
const settle = () => new Promise((r) => setImmediate(r));

async function measure(
  v: Variant,
  packets: readonly Packet[],
  wire: readonly Buffer[],
  hasher: Hasher,
  table: ClipTable,
): Promise<Window> {
  const log = SendLog.create(table.loopFrames);
  const vs = viewers(v, hasher, table, log, packets[0]!.arrivalNs - 50 * MS);
  // lean: one datagram Buffer per delivery, made before the window; arena: one slot for all
  const fresh = v === "lean" ? wire.flatMap((d) => vs.map(() => Buffer.from(d))) : [];
  const slot = Buffer.alloc(2048);
  gc();
  // backing stores are freed by a sweeper thread after the collection: let it finish
  await new Promise((r) => setTimeout(r, 200));
  const g0 = gcCount;
  const m0 = process.memoryUsage();
  const c0 = process.cpuUsage();
  let k = 0;
  for (let i = 0; i < packets.length; i++) {
    const p = packets[i]!;
    if (p.logK >= 0) log.record(p.logK, p.sendNs);
    const d = wire[i]!;
    for (let j = 0; j < vs.length; j++) {
      if (v === "lean") {
        const f = fresh[k++]!;
        vs[j]!.rx.receive(f, f.length, p.arrivalNs);
      } else {
        d.copy(slot, 0, 0, d.length);
        vs[j]!.rx.receive(slot, d.length, p.arrivalNs);
      }
    }
  }
  const c1 = process.cpuUsage(c0);
  const m1 = process.memoryUsage();
  await settle();
  await settle();
  const gcs = gcCount - g0;
  const frames = packets.filter((p) => p.logK >= 0).length;
  for (const { rx, pipeline } of vs) {
    rx.close();
    const r = pipeline.finish();
    if (r.rtp.received !== packets.length || r.oneWayDelay.samples < frames - 2) {
      throw new Error(
        `${v}: ${r.rtp.received} of ${packets.length} packets, ${r.oneWayDelay.samples} samples`,
      );
    }
  }
  const n = packets.length * vs.length;
  return {
    cpuUs: (c1.user + c1.system) / n,
    heapB: (m1.heapUsed - m0.heapUsed) / n,
    bufB: (m1.arrayBuffers - m0.arrayBuffers) / n,
    gcs,
  };
}

const hasher = await createHasher();
const clip = loadClip("vp8");
const table = new ClipTable(hasher, clip);
const packets = recording(clip, PACKETS);
const wire = protectRecording(profile, packets);
const windows = new Map<Variant, Window[]>(VARIANTS.map((v) => [v, []]));
for (let round = 0; round <= ROUNDS; round++) {
  for (const v of VARIANTS) {
    const w = await measure(v, packets, wire, hasher, table);
    if (round > 0) windows.get(v)!.push(w); // round 0 warms the JIT
  }
}

const lines = [
  `${args.profile === "cm" ? "AES_CM_128_HMAC_SHA1_80" : "AEAD_AES_128_GCM"}, embedded VP8 clip, ${VIEWERS} viewers × ${PACKETS} packets per window, medians of ${ROUNDS} rounds`,
  "",
  "| path | CPU µs/packet | heap B/packet | buffer B/packet | windows with a GC |",
  "| --- | ---: | ---: | ---: | ---: |",
];
for (const [v, ws] of windows) {
  const quiet = ws.filter((w) => w.gcs === 0);
  const alloc = (f: (w: Window) => number): string =>
    quiet.length > 0 ? fmtFixed(median(quiet.map(f)), 0) : "n/a";
  lines.push(
    `| ${v} | ${fmtFixed(median(ws.map((w) => w.cpuUs)), 2)} | ${alloc((w) => w.heapB)} | ${alloc((w) => w.bufB)} | ${ws.length - quiet.length} of ${ws.length} |`,
  );
}
process.stdout.write(`${lines.join("\n")}\n`);
