// examples/grafana/whipbench-dashboard.json queries only series that /metrics serves, and follows
// docs/definitions.md#prometheus-metrics's rules for a portable dashboard: a `datasource` variable, no hard-coded data source uid.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { RunMetrics } from "../../src/main/observe/metrics.ts";
import { parseExposition } from "./prom-text.ts";

/** the data source variable, as Grafana writes it */
const DS_VAR = "$" + "{datasource}";
const DASHBOARD = new URL("../../examples/grafana/whipbench-dashboard.json", import.meta.url);

interface Target {
  expr?: string;
  datasource?: unknown;
}
interface Panel {
  title?: string;
  type?: string;
  datasource?: unknown;
  targets?: Target[];
  panels?: Panel[];
}

function allPanels(panels: readonly Panel[]): Panel[] {
  return panels.flatMap((p) => [p, ...allPanels(p.panels ?? [])]);
}

/** Every series name /metrics can serve: each family, with _bucket/_sum/_count for histograms. */
async function servedNames(): Promise<Set<string>> {
  const m = new RunMetrics({ viewersTarget: 1 });
  m.observeWorker({ worker: "main", eventLoopDelayMs: 1, utilisation: 0.1, cpuSeconds: 0.1 });
  const names = new Set<string>();
  for (const f of parseExposition(await m.text())) {
    names.add(f.name);
    if (f.type === "histogram") for (const s of ["_bucket", "_sum", "_count"]) names.add(f.name + s);
  }
  return names;
}

test("grafana dashboard: every queried series is one /metrics serves", async () => {
  const dash = JSON.parse(readFileSync(DASHBOARD, "utf8")) as {
    panels: Panel[];
    templating: { list: unknown[] };
  };
  const served = await servedNames();
  const exprs: string[] = allPanels(dash.panels).flatMap((p) => (p.targets ?? []).map((t) => t.expr ?? ""));
  exprs.push(JSON.stringify(dash.templating));
  const queried = new Set(exprs.flatMap((e) => e.match(/\bwhipbench_[a-z0-9_]+/g) ?? []));
  assert.ok(queried.size >= 12, `the dashboard queries ${queried.size} series`);
  const missing = [...queried].filter((n) => !served.has(n));
  assert.deepEqual(missing, [], "series the dashboard queries but /metrics does not serve");
  // the docs/definitions.md#prometheus-metrics plots are there
  for (const want of [
    "whipbench_viewers_active",
    "whipbench_viewers_failed_total",
    "whipbench_rtp_packets_received_total",
    "whipbench_publisher_rtp_packets_sent_total",
    "whipbench_one_way_delay_seconds_bucket",
    "whipbench_packet_transit_seconds_bucket",
    "whipbench_client_cpu_seconds_total",
    "whipbench_client_goroutines",
    "whipbench_client_heap_bytes",
  ]) {
    assert.ok(queried.has(want), `the dashboard plots ${want}`);
  }
});

test("grafana dashboard: a datasource variable, every panel and target on it, schemaVersion ≥ 36", () => {
  const text = readFileSync(DASHBOARD, "utf8");
  const dash = JSON.parse(text) as {
    schemaVersion: number;
    panels: Panel[];
    templating: { list: { name: string; type: string; query: unknown }[] };
  };
  assert.ok(dash.schemaVersion >= 36);
  const ds = dash.templating.list.find((v) => v.name === "datasource");
  assert.deepEqual(ds && { type: ds.type, query: ds.query }, { type: "datasource", query: "prometheus" });
  const want = { type: "prometheus", uid: DS_VAR };
  const panels = allPanels(dash.panels);
  assert.ok(panels.length >= 8);
  for (const p of panels) {
    assert.deepEqual(p.datasource, want, `panel ${p.title}`);
    assert.ok((p.targets ?? []).length > 0, `panel ${p.title} has a query`);
    for (const t of p.targets ?? []) assert.deepEqual(t.datasource, want, `a target of ${p.title}`);
  }
  // no data source uid other than the variable, anywhere
  const uids = [...text.matchAll(/"uid":\s*("(?:[^"\\]|\\.)*"|null)/g)].map((m) => m[1]);
  assert.deepEqual([...new Set(uids)].sort(), [`"${DS_VAR}"`, "null"]);
});
