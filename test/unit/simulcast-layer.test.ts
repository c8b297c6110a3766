// A viewer's layer (docs/definitions.md#layer): offline, a publisher logs three layers of every
// frame while the viewer receives layer h for 30 frames, then layer m (a server's switch on the
// shared keyframe, one continuous stream); every frame is sampled against its own layer's send,
// and the samples and the time on each layer are the viewer's.
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { loadSimulcastClips, type SimulcastClips } from "../../src/core/clip/simulcast.ts";
import { packetizeVp8 } from "../../src/core/codec/vp8.ts";
import { ClipTable, createHasher, type Hasher } from "../../src/core/delay/fingerprint.ts";
import { SendLog } from "../../src/core/delay/sendlog.ts";
import { ViewerPipeline } from "../../src/core/delay/viewer-pipeline.ts";
import { DelayHistogram } from "../../src/core/stats/summaries.ts";
import { layeredPipeline, POST_NS } from "./simulcast-fixtures.ts";

const MS = 1e6;
const SEND_START = POST_NS + 50 * MS;
const TRANSIT_NS = 2 * MS;
const LAYER_GAP_NS = 300_000; // the publisher sends a frame's layers one after another
const FRAME_NS = 1e9 / 30;

let hasher: Hasher;
let sc: SimulcastClips;
before(async () => {
  hasher = await createHasher();
  sc = loadSimulcastClips("vp8");
});

test("frames of h then m: samples against each layer's own send, and the time on each layer", () => {
  const N = sc.layerFrames;
  const { pipeline, log } = layeredPipeline(hasher, sc, 0);
  const arrivals: number[] = [];
  const want = new DelayHistogram();
  let seq = 100;
  for (let f = 0; f < 60; f++) {
    const t0 = SEND_START + Math.round(f * FRAME_NS);
    for (let j = 0; j < 3; j++) log.record(3 * f + j, t0 + j * LAYER_GAP_NS, j * N + (f % N));
    const j = f < 30 ? 2 : 1;
    const payloads = packetizeVp8(sc.layers[j]!.clip.frames[f % N]!, 1200, f);
    const sentNs = t0 + j * LAYER_GAP_NS;
    payloads.forEach((p, n) => {
      const at = sentNs + TRANSIT_NS + n * 10_000;
      pipeline.onPacket(seq, (1000 + f * 3000) >>> 0, n === payloads.length - 1, p, at, -1);
      seq = (seq + 1) & 0xffff;
      if (n === payloads.length - 1) arrivals.push(at);
    });
    want.recordNs(TRANSIT_NS + (payloads.length - 1) * 10_000);
  }
  const r = pipeline.finish();
  assert.equal(r.oneWayDelay.samples, 60);
  assert.equal(r.oneWayDelay.invalid, 0);
  assert.equal(r.oneWayDelay.unmatchedFrames, 0);
  assert.deepEqual(r.layerSamples, [0, 30, 30]);
  // each sample is its own layer's send to its last packet: the layer gap is not in any of them
  const got = DelayHistogram.decode(r.delayHist);
  assert.equal(got.count, want.count);
  assert.equal(got.quantileNs(100), want.quantileNs(100));
  assert.equal(got.quantileNs(0), want.quantileNs(0));
  // h: its first frame's arrival to m's first; m: its first to its last
  assert.deepEqual(r.layerNs, [0, arrivals[59]! - arrivals[30]!, arrivals[30]! - arrivals[0]!]);
  assert.ok(Math.abs((r.layerNs?.[2] ?? 0) - 30 * FRAME_NS) < 1 * MS, `${r.layerNs}`);
});

test("one encoding: no per-layer figures", () => {
  const table = new ClipTable(hasher, sc.layers[0]!.clip);
  const p = new ViewerPipeline({
    codec: "vp8",
    stallNs: 500 * MS,
    excludeFirstNs: 0,
    postNs: POST_NS,
    wallMinusMonoNs: 0,
    hasher,
    table,
    sendLog: SendLog.create(table.loopFrames),
    absCaptureNegotiated: false,
  });
  const r = p.finish();
  assert.equal("layerSamples" in r, false);
  assert.equal("layerNs" in r, false);
});
