// One-way delay per simulcast layer (docs/definitions.md#layer-delay): offline, a viewer receives
// layer h for 30 frames, then m, each layer with its own transit; each layer's samples are its own
// frames' delays, a layer inside excludeFirstSeconds or never received says why, and the pooled
// per-layer figures merge the viewers' histograms, in JSON, Markdown and HTML.
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { loadSimulcastClips, type SimulcastClips } from "../../src/core/clip/simulcast.ts";
import { packetizeVp8 } from "../../src/core/codec/vp8.ts";
import { createHasher, type Hasher } from "../../src/core/delay/fingerprint.ts";
import { layerDelaySection } from "../../src/core/report/html-layers.ts";
import {
  LAYER_EXCLUDED,
  LAYER_NO_FRAME,
  pooledLayerDelay,
  viewerLayers,
} from "../../src/core/report/layer-delay.ts";
import { layerDelayMarkdown } from "../../src/core/report/markdown-layers.ts";
import type { Report } from "../../src/core/report/types.ts";
import { DelayHistogram } from "../../src/core/stats/summaries.ts";
import { layeredPipeline, POST_NS } from "./simulcast-fixtures.ts";

const MS = 1e6;
const SEND_START = POST_NS + 50 * MS;
const FRAME_NS = 1e9 / 30;
/** transit per layer l, m, h: h's frames 2 ms, m's 7 ms */
const TRANSIT = [0, 7 * MS, 2 * MS];
const RIDS = ["l", "m", "h"];

let hasher: Hasher;
let sc: SimulcastClips;
before(async () => {
  hasher = await createHasher();
  sc = loadSimulcastClips("vp8");
});

/** h for frames 0..29, m for 30..59; the decoded per-layer record fields. */
function viewer(excludeFirstNs: number, shiftTs = 0) {
  const N = sc.layerFrames;
  const { pipeline, log } = layeredPipeline(hasher, sc, excludeFirstNs);
  let seq = 100;
  for (let f = 0; f < 60; f++) {
    const t0 = SEND_START + Math.round(f * FRAME_NS);
    for (let j = 0; j < 3; j++) log.record(3 * f + j, t0, j * N + (f % N));
    const j = f < 30 ? 2 : 1;
    const payloads = packetizeVp8(sc.layers[j]!.clip.frames[f % N]!, 1200, f);
    // every packet of a frame arrives together: the sample is the layer's transit
    payloads.forEach((p, n) => {
      pipeline.onPacket(
        seq,
        (1000 + f * 3000 + (f < 30 ? 0 : shiftTs)) >>> 0,
        n === payloads.length - 1,
        p,
        t0 + TRANSIT[j]!,
        -1,
      );
      seq = (seq + 1) & 0xffff;
    });
  }
  const r = pipeline.finish();
  return { ...r, layerDelayHists: (r.layerDelayHists ?? []).map((h) => DelayHistogram.decode(h)) };
}

test("each layer's samples are its own frames' delays; a layer never received says so", () => {
  const v = viewer(0);
  assert.deepEqual(v.layerSamples, [0, 30, 30]);
  assert.deepEqual(v.layerFrames, [0, 30, 30]);
  assert.deepEqual(v.layerExcluded, [0, 0, 0]);
  const layers = viewerLayers(RIDS, v) ?? [];
  assert.deepEqual(
    layers.map((l) => l.rid),
    RIDS,
  );
  assert.equal(layers[0]!.delayMs, undefined);
  assert.equal(layers[0]!.reason, LAYER_NO_FRAME);
  // the histogram's buckets keep 2 significant digits
  assert.ok(Math.abs((layers[1]!.delayMs?.p50 ?? 0) - 7) < 0.1, `${layers[1]!.delayMs?.p50}`);
  assert.ok(Math.abs((layers[2]!.delayMs?.p95 ?? 0) - 2) < 0.05, `${layers[2]!.delayMs?.p95}`);
  assert.equal(layers[1]!.delayMs?.n, 30);
  assert.equal(layers[2]!.reason, undefined);
});

test("a layer whose frames came inside excludeFirstSeconds is unavailable, because of that, never 0", () => {
  // h's 30 frames arrive in the first 0.99 s after the first packet, m's after
  const v = viewer(990 * MS);
  assert.deepEqual(v.layerSamples, [0, 30, 0]);
  assert.deepEqual(v.layerExcluded, [0, 0, 30]);
  const layers = viewerLayers(RIDS, v) ?? [];
  assert.equal(layers[2]!.samples, 0);
  assert.equal(layers[2]!.delayMs, undefined);
  assert.equal(layers[2]!.reason, LAYER_EXCLUDED);
  assert.ok(layers[2]!.timeMs > 900, `${layers[2]!.timeMs}`);
});

test("pooled per layer: the viewers' histograms merged, viewers with samples counted, reasons kept", () => {
  const a = viewer(0);
  const b = viewer(990 * MS);
  const pooled = pooledLayerDelay(RIDS, [a, b]) ?? [];
  assert.deepEqual(
    pooled.map((p) => [p.rid, p.viewers, p.samples, p.reason ?? ""]),
    [
      ["l", 0, 0, LAYER_NO_FRAME],
      ["m", 2, 60, ""],
      ["h", 1, 30, ""],
    ],
  );
  assert.equal(pooled[1]!.delayMs?.n, 60);
  assert.equal(pooled[0]!.delayMs, undefined);
  assert.equal(pooledLayerDelay(RIDS, [b])?.[2]?.reason, LAYER_EXCLUDED);
  assert.equal(pooledLayerDelay(undefined, [a]), undefined);
  // the run's block and a cohort's, in Markdown and HTML
  const v0 = { id: 0, layers: viewerLayers(RIDS, b) };
  const report = {
    viewers: [v0],
    aggregate: { layerDelay: pooled, cohorts: [{ name: "lossy", layerDelay: pooledLayerDelay(RIDS, [b]) }] },
  } as unknown as Report;
  const md = layerDelayMarkdown(report).join("\n");
  assert.match(md, /## Delay per layer/);
  assert.match(md, /\| all viewers \| m \| 2 \| 60 \| 7\.\d ms \| 7\.\d ms \| {2}\|/);
  assert.match(
    md,
    /\| all viewers \| l \| 0 \| 0 \| — \| — \| unavailable, because no frame of this layer arrived \|/,
  );
  assert.match(
    md,
    /\| lossy \| h \| 0 \| 0 \| — \| — \| unavailable, because its frames arrived inside the excluded/,
  );
  assert.match(
    md,
    /\| 0 \| l: unavailable, because no frame .*; m: 30 samples, p50 7\.\d ms, p95 7\.\d ms; h: unavailable/,
  );
  const html = layerDelaySection(report);
  assert.match(html, /<h2>Delay per layer<\/h2>/);
  assert.match(html, /<td>lossy<\/td><td>h<\/td><td class="num">0<\/td>/);
  assert.equal(layerDelayMarkdown({ aggregate: {} } as unknown as Report).length, 0);
  assert.equal(layerDelaySection({ aggregate: {} } as unknown as Report), "");
});

test("a switch whose new layer's timestamps an SFU rewrote one frame ahead: every frame still sampled", () => {
  // the relay's first frame of the new layer is one frame after the old layer's last, though it
  // is the same picture (docs/definitions.md#relay-layer-choice); each frame arrives before the
  // next is logged, so a step counted from the old layer's anchor would wait for a send never due
  const v = viewer(0, 3000);
  assert.equal(v.oneWayDelay.invalid, 0);
  assert.equal(v.oneWayDelay.samples, 60);
  assert.deepEqual(v.layerSamples, [0, 30, 30]);
  // m's samples are its own transit, from its own sends
  assert.ok(Math.abs((v.layerDelayHists[1]?.summaryMs().max ?? 0) - 7) < 0.1);
});
