// Layer choice and switches (docs/definitions.md#layer-switches, #relay-layer-choice): viewers of
// a simulcast run through the built-in relay start on layer l through the WHEP layer extension and
// switch to h 2 s after their POST; the relay asks the publisher for h's keyframe and rewrites the
// leg's sequence numbers and timestamps, so each viewer's stream stays one continuous stream. Each
// layer's delay is its own frames' (#layer-delay), and the live /metrics layer series (#layer-metrics)
// end equal to the report's figures.
import assert from "node:assert/strict";
import { test } from "node:test";
import { loadSimulcastClips } from "../../src/core/clip/simulcast.ts";
import { takeWallAnchor } from "../../src/core/clock/clock.ts";
import { LAYER_NO_FRAME } from "../../src/core/report/layer-delay.ts";
import { readFigure } from "../../src/core/thresholds/figures.ts";
import { linkRels, WHEP_LAYER_REL, WHEP_SSE_REL } from "../../src/core/wire/link-header.ts";
import { RunMetrics } from "../../src/main/observe/metrics.ts";
import { Publisher } from "../../src/main/publisher/publisher.ts";
import { Relay } from "../../src/main/relay/relay.ts";
import { inThreadEngine } from "../../src/main/run/engine.ts";
import {
  filterCandidates,
  gatheringComplete,
  type IceOptions,
  newPeer,
  videoCodecs,
} from "../../src/net/rtc.ts";
import { deleteResource, postOffer } from "../../src/net/sdp-http.ts";
import { firstLayersEvent, postJson } from "../../src/net/whep-ext.ts";
import { parseExposition, sampleValue } from "../unit/prom-text.ts";
import { fingerprintBlock, runThroughRelay } from "./harness.ts";
import { checkReportKeys } from "./report-keys.ts";

const ICE: IceOptions = { loopbackOnly: true, includeLoopback: false };

test("viewers start on l and switch to h at 2 s: a finite switch time, h after it, no loss", async () => {
  const layerSwitch = { startRid: "l", atSeconds: 2, rid: "h" };
  // the shards' ticks feed a /metrics registry as a run with --metrics does (docs/definitions.md#layer-metrics)
  const metrics = new RunMetrics({ viewersTarget: 2, layers: ["l", "m", "h"] });
  // the run ends 1.5 s after both viewers' switches to h reached the ticks; the hold only bounds
  // it: a 4 s hold ended before a viewer's switch under load (1 of 3 runs, load average 11–14)
  let toH = 0;
  const {
    report: r,
    json,
    markdown,
  } = await runThroughRelay(
    {},
    // every frame sampled: on a busy machine a join late past the harness's excluded first second
    // left l (shown until the switch at 2 s) without a delay sample
    { simulcast: ["l", "m", "h"], viewers: 2, holdSeconds: 20, layerSwitch, excludeFirstSeconds: 0 },
    inThreadEngine({ liveDelays: true }),
    (tick) => {
      metrics.applyTick(tick);
      const sw = tick.layers?.switches ?? [];
      for (let i = 1; i < sw.length; i += 2) if (sw[i] === 2) toH++;
    },
    { stopWhen: { done: () => toH >= 2, afterMs: 1500 } },
  );
  assert.equal(r.interrupted, true, "both viewers switched before the hold's end");
  assert.deepEqual(r.scenario.layerSwitch, layerSwitch);
  const viewers = r.viewers ?? [];
  assert.equal(viewers.length, 2);
  for (const v of viewers) {
    assert.equal(v.joined, true, `viewer ${v.id} joined`);
    const c = v.layerChoice;
    assert.ok(c?.available, `viewer ${v.id}: the relay offered the extension`);
    assert.deepEqual(
      c.asks.map((a) => [a.rid, a.status]),
      [
        ["l", 200],
        ["h", 200],
      ],
    );
    const askH = c.asks[1]?.askedMs ?? -1;
    assert.ok(askH >= 2000 && askH < 2500, `viewer ${v.id}: asked for h at ${askH} ms`);
    // one switch, l to h: every frame after it is h's (a return to l would be a second switch)
    assert.equal(c.switches.length, 1, `viewer ${v.id}: ${JSON.stringify(c.switches)}`);
    const s = c.switches[0]!;
    assert.equal(s.from, "l");
    assert.equal(s.to, "h");
    assert.equal(s.askedMs, askH);
    const ms = s.switchMs ?? Number.NaN;
    assert.ok(Number.isFinite(ms) && ms > 0 && ms < 1500, `viewer ${v.id}: switch ${ms} ms`);
    assert.equal(s.framesLost, 0, `viewer ${v.id}: no frame lost across the switch`);
    const [l, m, h] = v.layers ?? [];
    assert.ok((l?.timeMs ?? 0) > 0 && (h?.timeMs ?? 0) > 500, `viewer ${v.id}: ${JSON.stringify(v.layers)}`);
    assert.equal(m?.timeMs, 0);
    assert.equal(m?.samples, 0);
    // each layer's delay is its own frames' (docs/definitions.md#layer-delay): m never came
    for (const layer of [l, h]) assert.equal(layer?.delayMs?.n, layer?.samples, JSON.stringify(layer));
    assert.ok((h?.samples ?? 0) > 0 && (l?.samples ?? 0) > 0, JSON.stringify(v.layers));
    assert.equal(m?.delayMs, undefined);
    assert.equal(m?.reason, LAYER_NO_FRAME);
    // the relay's rewrite puts h one frame ahead of its picture: the matcher still samples it
    assert.equal(v.oneWayDelay[0]?.invalid, 0, `viewer ${v.id}: ${JSON.stringify(v.oneWayDelay[0])}`);
    // the rewrite keeps the leg one stream: nothing counted lost, every frame matched
    assert.equal(v.rtp.lost, 0, `viewer ${v.id}: packets lost`);
    assert.equal(v.rtp.duplicates, 0, `viewer ${v.id}: duplicates`);
  }
  const fp = fingerprintBlock(r);
  assert.equal(fp.unmatchedFrames, 0);
  assert.equal(fp.duplicateFrames, 0);
  const pooled = r.aggregate.layerSwitches;
  assert.ok(pooled !== undefined);
  assert.equal(pooled.withExtension, 2);
  assert.equal(pooled.asked, 2);
  assert.equal(pooled.reached, 2);
  assert.equal(pooled.switchMs?.n, 2);
  assert.equal(pooled.framesLost, 0);
  const byRid = new Map((r.aggregate.layerDelay ?? []).map((p) => [p.rid, p]));
  assert.deepEqual([...byRid.keys()], ["l", "m", "h"]);
  const sum = (j: number) => viewers.reduce((a, v) => a + (v.layers?.[j]?.samples ?? 0), 0);
  assert.equal(byRid.get("h")?.samples, sum(2));
  assert.equal(byRid.get("h")?.delayMs?.n, sum(2));
  assert.equal(byRid.get("h")?.viewers, 2);
  assert.equal(byRid.get("l")?.samples, sum(0));
  assert.equal(byRid.get("m")?.reason, LAYER_NO_FRAME);
  assert.deepEqual(readFigure(r, "layerSwitch.p50"), { value: pooled.switchMs?.p50 });
  assert.deepEqual(readFigure(r, "layerDelay.h.p95"), { value: byRid.get("h")?.delayMs?.p95 });
  // the live layer series end equal to the report's figures
  const fams = parseExposition(await metrics.text());
  const live = (name: string, labels: Record<string, string>) => sampleValue(fams, name, labels);
  for (const rid of ["l", "m", "h"])
    assert.equal(
      live("whipbench_layer_one_way_delay_seconds_count", { layer: rid }),
      byRid.get(rid)?.samples,
      rid,
    );
  assert.equal(live("whipbench_layer_switches_total", { from: "l", to: "h" }), 2);
  assert.equal(live("whipbench_layer_switches_total", { from: "h", to: "l" }), 0);
  assert.equal(live("whipbench_layer_switch_seconds_count", { layer: "h" }), 2);
  const liveSum = live("whipbench_layer_switch_seconds_sum", { layer: "h" }) * 1000;
  const reportSum = viewers.reduce((a, v) => a + (v.layerChoice?.switches[0]?.switchMs ?? 0), 0);
  assert.ok(Math.abs(liveSum - reportSum) < 1, `live ${liveSum} ms, report ${reportSum} ms`);
  assert.match(markdown, /## Delay per layer/);
  assert.match(
    markdown,
    /\| all viewers \| m \| 0 \| 0 \| — \| — \| unavailable, because no frame of this layer arrived \|/,
  );
  assert.match(markdown, /## Layer switches/);
  assert.match(markdown, /\| 0 \| l \| h \| 2\d\d\d\.\d ms \| \d+\.\d ms \| 0 \|/);
  assert.deepEqual(checkReportKeys(JSON.parse(json)).problems, []);
});

test("a relay with a relay thread sends a simulcast stream's legs itself: a viewer asks for m and gets m", async () => {
  const { report: r, relay } = await runThroughRelay(
    { threads: 1 },
    { simulcast: ["l", "m", "h"], viewers: 1, holdSeconds: 2, layerSwitch: { startRid: "m" } },
  );
  const [v] = r.viewers ?? [];
  assert.equal(v?.joined, true);
  assert.equal(v?.layerChoice?.available, true);
  assert.deepEqual(v?.layerChoice?.switches, [], "on m from its first frame");
  const [l, m, h] = v?.layers ?? [];
  assert.ok((m?.timeMs ?? 0) > 500 && l?.timeMs === 0 && h?.timeMs === 0, JSON.stringify(v?.layers));
  if (relay.send.path.path === "native") {
    assert.match(relay.send.describe(), /native in 1 relay thread\(s\)/);
    assert.equal(
      relay.send.nativeLegs,
      1,
      "the native fan-out sent the leg (the ring carries no simulcast packet)",
    );
  }
});

test("the relay's extension: Link headers, a layers event naming l, m, h, and choices it refuses", async () => {
  const sc = loadSimulcastClips("vp8");
  const relay = new Relay({ ice: ICE });
  const base = await relay.listen();
  const p = new Publisher({
    whip: `${base}/x/whip`,
    clip: sc.combined,
    simulcast: sc,
    ice: ICE,
    noStamp: false,
    sendLog: null,
    anchor: takeWallAnchor(),
  });
  const stop = new AbortController();
  const pc = newPeer(ICE, videoCodecs("viewer"));
  let location: string | null = null;
  try {
    await p.connect();
    const streaming = p.stream(stop.signal);
    await relay.ready("x");
    pc.addTransceiver("video", { direction: "recvonly" });
    await pc.setLocalDescription(await pc.createOffer());
    await gatheringComplete(pc, 5000);
    const whep = `${base}/x/whep`;
    const res = await postOffer(whep, filterCandidates(pc.localDescription?.sdp ?? "", ICE), {});
    location = res.location;
    const rels = linkRels(res.links, whep);
    const layerUrl = rels.get(WHEP_LAYER_REL) ?? "";
    const sseUrl = rels.get(WHEP_SSE_REL) ?? "";
    assert.match(layerUrl, /\/session\/v1\/layer$/);
    assert.match(res.links ?? "", /events="layers"/);
    const signal = AbortSignal.timeout(5000);
    assert.deepEqual(await firstLayersEvent(sseUrl, { signal }), ["l", "m", "h"]);
    const post = async (body: unknown) => (await postJson(layerUrl, body, { signal })).status;
    assert.equal(await post({ mediaId: "0", encodingId: "m" }), 200);
    assert.equal(await post({ mediaId: "0", encodingId: "x" }), 400);
    assert.equal(await post({ mediaId: "1", encodingId: "m" }), 400);
    assert.equal(await post({}), 200, "back to the default");
    stop.abort();
    await streaming;
  } finally {
    stop.abort();
    await deleteResource(location, {});
    await pc.close();
    await relay.close();
  }
});
