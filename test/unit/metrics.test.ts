// /metrics (docs/definitions.md#prometheus-metrics): names, types, labels, buckets and values of the exposition, from ticks fed
// the way shards send them.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  DELAY_BUCKETS_S,
  type LiveTick,
  RunMetrics,
  TRANSIT_BUCKETS_S,
} from "../../src/main/observe/metrics.ts";
import { metricsAddress, serveMetrics } from "../../src/main/observe/metrics-server.ts";
import { family, parseExposition, SPEC_FAMILIES, sampleValue } from "./prom-text.ts";

function tick(over: Partial<LiveTick> = {}): LiveTick {
  return {
    shard: 0,
    packets: 0,
    bytes: 0,
    transportFeedbackSent: 0,
    rtxReceived: 0,
    started: 0,
    joined: 0,
    failed: 0,
    active: 0,
    delaySamples: [],
    ...over,
  };
}

test("metrics: every docs/definitions.md#prometheus-metrics family, in order, HELP before TYPE, with its labels; a fresh run is all zero", async () => {
  const m = new RunMetrics({ viewersTarget: 7 });
  const fams = parseExposition(await m.text());
  assert.deepEqual(
    fams.slice(0, SPEC_FAMILIES.length).map((f) => [f.name, f.type]),
    SPEC_FAMILIES.map(([n, t]) => [n, t]),
  );
  for (const [name, type, labels] of SPEC_FAMILIES) {
    const f = family(fams, name);
    assert.ok(f.help.length > 0, name);
    assert.ok(f.samples.length > 0, `${name} has a sample line`);
    for (const s of f.samples) {
      const want = type === "histogram" && s.name.endsWith("_bucket") ? [...labels, "le"] : labels;
      assert.deepEqual(Object.keys(s.labels).sort(), want.sort(), `${s.name} labels`);
    }
  }
  assert.equal(sampleValue(fams, "whipbench_viewers_target"), 7);
  assert.equal(sampleValue(fams, "whipbench_viewers_started_total"), 0);
  // the one-way delay family is declared with count 0 even before any sample (a `view`)
  assert.equal(sampleValue(fams, "whipbench_one_way_delay_seconds_count", { source: "fingerprint" }), 0);
  const les = family(fams, "whipbench_one_way_delay_seconds")
    .samples.filter((s) => s.name.endsWith("_bucket"))
    .map((s) => s.labels["le"]);
  assert.deepEqual(les, [...DELAY_BUCKETS_S.map(String), "+Inf"]);
  assert.deepEqual(les.slice(0, 3), ["0.0001", "0.0002", "0.0005"]);
  const tles = family(fams, "whipbench_packet_transit_seconds")
    .samples.filter((s) => s.name.endsWith("_bucket"))
    .map((s) => s.labels["le"]);
  assert.deepEqual(tles, [...TRANSIT_BUCKETS_S.map(String), "+Inf"]);
  assert.ok(sampleValue(fams, "whipbench_client_cpu_seconds_total") > 0);
  assert.ok(sampleValue(fams, "whipbench_client_heap_bytes") > 0);
  assert.ok(sampleValue(fams, "whipbench_client_goroutines") >= 0);
  assert.equal(m.contentType, "text/plain; version=0.0.4; charset=utf-8");
});

test("metrics: the spec's transit example, deltas from two shards, drops of negatives and unknown sources", async () => {
  const m = new RunMetrics({ viewersTarget: 2, workerLabel: (s) => `w${s}` });
  m.applyTick(tick({ shard: 0, started: 1, joined: 1, active: 1, packets: 10, bytes: 1000 }));
  m.applyTick(tick({ shard: 1, started: 1, failed: 1, active: 0, packets: 5, bytes: 400 }));
  m.applyTick(tick({ shard: 0, active: 1, packets: 7, bytes: 700, transitSamples: [3e6, 40e6, 9000e6, -1] }));
  m.applyTick(tick({ shard: 1, active: 2, delaySamples: [0.15e6, 1.5e6, -5, 2e9] }));
  m.observeDelays("bogus", [1e6]);
  m.observeWorker({ worker: "main", eventLoopDelayMs: 12, utilisation: 0.5, cpuSeconds: 0.25 });
  m.applyTick(
    tick({
      shard: 0,
      active: 1,
      thread: { cpuSeconds: 0.5, eventLoopUtilisation: 0.75, eventLoopDelayMs: { p99: 3 } },
    }),
  );
  let sent = { packetsSent: 11, framesSent: 4 };
  m.setPublisher({
    get packetsSent() {
      return sent.packetsSent;
    },
    get framesSent() {
      return sent.framesSent;
    },
  });
  sent = { packetsSent: 20, framesSent: 9 };
  const fams = parseExposition(await m.text());
  const v = (name: string, labels: Record<string, string> = {}) => sampleValue(fams, name, labels);
  assert.equal(v("whipbench_viewers_started_total"), 2);
  assert.equal(v("whipbench_viewers_joined_total"), 1);
  assert.equal(v("whipbench_viewers_failed_total"), 1);
  assert.equal(v("whipbench_viewers_active"), 3, "the last level of each shard, summed");
  assert.equal(v("whipbench_rtp_packets_received_total"), 22);
  assert.equal(v("whipbench_rtp_bytes_received_total"), 2100);
  assert.equal(v("whipbench_publisher_rtp_packets_sent_total"), 20, "read at scrape");
  assert.equal(v("whipbench_publisher_frames_sent_total"), 9);
  const t = "whipbench_packet_transit_seconds";
  assert.equal(v(`${t}_bucket`, { le: "0.002" }), 0);
  assert.equal(v(`${t}_bucket`, { le: "0.005" }), 1);
  assert.equal(v(`${t}_bucket`, { le: "0.05" }), 2);
  assert.equal(v(`${t}_bucket`, { le: "5" }), 2);
  assert.equal(v(`${t}_bucket`, { le: "+Inf" }), 3);
  assert.equal(v(`${t}_sum`), 9.043);
  assert.equal(v(`${t}_count`), 3);
  const d = "whipbench_one_way_delay_seconds";
  const fp = { source: "fingerprint" };
  assert.equal(v(`${d}_bucket`, { ...fp, le: "0.0002" }), 1);
  assert.equal(v(`${d}_bucket`, { ...fp, le: "0.002" }), 2);
  assert.equal(v(`${d}_bucket`, { ...fp, le: "1" }), 2);
  assert.equal(v(`${d}_bucket`, { ...fp, le: "+Inf" }), 3);
  assert.equal(v(`${d}_count`, fp), 3);
  assert.ok(Math.abs(v(`${d}_sum`, fp) - 2.00165) < 1e-12);
  assert.deepEqual(
    [...new Set(family(fams, d).samples.map((s) => s.labels["source"]))],
    ["fingerprint"],
    "an unknown source is dropped; stamp appears only with its first sample",
  );
  assert.equal(v("whipbench_worker_event_loop_delay_p99_seconds", { worker: "main" }), 0.012);
  assert.equal(v("whipbench_worker_event_loop_delay_p99_seconds", { worker: "w0" }), 0.003);
  assert.equal(v("whipbench_worker_event_loop_utilisation_ratio", { worker: "w0" }), 0.75);
  assert.equal(v("whipbench_worker_cpu_seconds_total", { worker: "w0" }), 0.5);
});

test("metrics: the stamp source is its own series, declared up front when asked", async () => {
  const m = new RunMetrics({ viewersTarget: 1, delaySources: ["stamp"] });
  let fams = parseExposition(await m.text());
  assert.equal(sampleValue(fams, "whipbench_one_way_delay_seconds_count", { source: "stamp" }), 0);
  m.applyTick(tick({ delaySamples: [2e6], stampSamples: [1e6, 3e6] }));
  fams = parseExposition(await m.text());
  assert.equal(sampleValue(fams, "whipbench_one_way_delay_seconds_count", { source: "stamp" }), 2);
  assert.equal(sampleValue(fams, "whipbench_one_way_delay_seconds_count", { source: "fingerprint" }), 1);
  assert.equal(
    sampleValue(fams, "whipbench_one_way_delay_seconds_bucket", { source: "stamp", le: "0.002" }),
    1,
  );
});

test("metrics server: /metrics only, the 0.0.4 content type, a bare port binds 127.0.0.1", async () => {
  assert.deepEqual(metricsAddress("9464"), { host: "127.0.0.1", port: 9464 });
  assert.deepEqual(metricsAddress(":9464"), { host: "127.0.0.1", port: 9464 });
  assert.deepEqual(metricsAddress("0.0.0.0:9464"), { host: "0.0.0.0", port: 9464 });
  assert.deepEqual(metricsAddress("[::1]:0"), { host: "::1", port: 0 });
  assert.throws(() => metricsAddress("nope"), /--metrics/);
  assert.throws(() => metricsAddress("host:70000"), /--metrics/);
  const m = new RunMetrics({ viewersTarget: 3 });
  const srv = await serveMetrics("127.0.0.1:0", m);
  try {
    assert.match(srv.url, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const res = await fetch(srv.url);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "text/plain; version=0.0.4; charset=utf-8");
    assert.equal(sampleValue(parseExposition(await res.text()), "whipbench_viewers_target"), 3);
    assert.equal((await fetch(srv.url.replace("/metrics", "/"))).status, 404);
    assert.equal((await fetch(srv.url, { method: "POST" })).status, 405);
  } finally {
    await srv.close();
  }
  await assert.rejects(fetch(srv.url));
});
