// One short run through the built-in relay with everything that shows while a run lasts:
// /metrics scraped mid-run (names, types, label sets) and at the end (the one-way delay _count
// equals the viewers' samples), progress log lines for a non-terminal, and the HTML report
// opened in headless Chromium with every chart drawn.
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { CHARTS } from "../../src/core/report/html.ts";
import type { Report } from "../../src/core/report/types.ts";
import { normaliseScenario, validateScenario } from "../../src/core/scenario-file/scenario.ts";
import { memoryLogger } from "../../src/main/observe/log.ts";
import type { RunMetrics } from "../../src/main/observe/metrics.ts";
import { Relay } from "../../src/main/relay/relay.ts";
import { inThreadEngine } from "../../src/main/run/engine.ts";
import { runAndReport } from "../../src/main/run/run-and-report.ts";
import { type Family, parseExposition, SPEC_FAMILIES, sampleValue } from "../unit/prom-text.ts";
import { chromiumPath, openReport } from "./chromium.ts";

const VIEWERS = 3;
const dir = mkdtempSync(join(tmpdir(), "whipbench-live-"));
let relay: Relay;
let code = -1;
let metrics: RunMetrics | null = null;
let midRun: Family[] | null = null;
let midRunError = "";
const log = memoryLogger();
const stdout: string[] = [];
let progressText = "";

/** Scrapes until every viewer has joined and a delay sample is counted, while the run lasts. */
async function scrapeMidRun(url: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url);
      const fams = parseExposition(await res.text());
      const joined = sampleValue(fams, "whipbench_viewers_joined_total");
      const samples = sampleValue(fams, "whipbench_one_way_delay_seconds_count", { source: "fingerprint" });
      if (res.headers.get("content-type") !== "text/plain; version=0.0.4; charset=utf-8") {
        midRunError = `content type ${res.headers.get("content-type")}`;
        return;
      }
      if (joined === VIEWERS && samples > 0) {
        midRun = fams;
        return;
      }
    } catch (err) {
      midRunError = (err as Error).message;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

before(async () => {
  relay = new Relay({ ice: { loopbackOnly: true, includeLoopback: false } });
  const base = await relay.listen();
  const s = normaliseScenario({
    name: "live",
    whip: `${base}/live/whip`,
    whep: `${base}/live/whep`,
    codec: "vp8",
    viewers: VIEWERS,
    rampSeconds: 1,
    holdSeconds: 3,
    warmupSeconds: 0.5,
    joinTimeoutSeconds: 5,
    excludeFirstSeconds: 0.5,
    loopbackOnly: true,
    metrics: "127.0.0.1:0",
  });
  validateScenario(s);
  let scraping: Promise<void> = Promise.resolve();
  code = await runAndReport({
    command: "run",
    scenario: s,
    out: dir,
    log,
    engine: inThreadEngine({ liveDelays: true }),
    stdout: (l) => stdout.push(l),
    progress: {
      isTTY: false,
      logEveryS: 1,
      write: (t) => {
        progressText += t;
      },
    },
    onMetrics: (m, url) => {
      metrics = m;
      scraping = scrapeMidRun(url);
    },
  });
  await scraping;
});

after(async () => {
  await relay.close();
  rmSync(dir, { recursive: true, force: true });
});

function reportFile(ext: string): string {
  const f = readdirSync(dir).find((n) => n.endsWith(ext));
  assert.ok(f, `a ${ext} file in ${readdirSync(dir).join(", ")}`);
  return join(dir, f);
}

test("live run: exit 0, and JSON, Markdown and HTML written", () => {
  assert.equal(code, 0, log.lines.join("\n"));
  assert.deepEqual(
    readdirSync(dir)
      .map((n) => n.replace(/^.*\./, ""))
      .sort(),
    ["html", "json", "md"],
  );
  assert.ok(stdout.some((l) => l.startsWith("wrote ") && l.endsWith(".html")));
  assert.ok(log.lines.some((l) => /^metrics on http:\/\/127\.0\.0\.1:\d+\/metrics$/.test(l)));
});

test("live run: /metrics scraped mid-run has every docs/definitions.md#prometheus-metrics family with its type and label set", () => {
  assert.ok(midRun, `no mid-run scrape with every viewer joined: ${midRunError}`);
  const fams: Family[] = midRun;
  const types = new Map(fams.map((f) => [f.name, f.type]));
  // docs/definitions.md#prometheus-metrics's families, plus the per-thread gauges the worker engine adds
  const want: [string, string, string[]][] = [
    ...SPEC_FAMILIES,
    ["whipbench_worker_event_loop_delay_p99_seconds", "gauge", ["worker"]],
    ["whipbench_worker_event_loop_utilisation_ratio", "gauge", ["worker"]],
  ];
  for (const [name, type, labels] of want) {
    assert.equal(types.get(name), type, name);
    const fam = fams.find((f) => f.name === name)!;
    const sets = new Set(fam.samples.filter((s) => !s.name.endsWith("_sum") && !s.name.endsWith("_count")));
    for (const s of sets) {
      const expected = s.name.endsWith("_bucket") ? [...labels, "le"] : labels;
      assert.deepEqual(Object.keys(s.labels).sort(), expected.sort(), `${s.name} labels`);
    }
  }
  assert.equal(sampleValue(fams, "whipbench_viewers_target"), VIEWERS);
  assert.equal(sampleValue(fams, "whipbench_viewers_active"), VIEWERS);
  assert.ok(sampleValue(fams, "whipbench_rtp_packets_received_total") > 0);
  assert.ok(sampleValue(fams, "whipbench_worker_event_loop_utilisation_ratio", { worker: "main" }) > 0);
});

test("live run: the final one-way delay _count equals the sum of the viewers' samples", async () => {
  assert.ok(metrics);
  const fams = parseExposition(await (metrics as RunMetrics).text());
  const r = JSON.parse(readFileSync(reportFile(".json"), "utf8")) as Report;
  const viewers = r.viewers ?? [];
  assert.equal(viewers.length, VIEWERS);
  const samples = viewers.reduce(
    (a, v) => a + (v.oneWayDelay.find((b) => b.source === "fingerprint")?.samples ?? 0),
    0,
  );
  assert.ok(samples > 0);
  const fp = { source: "fingerprint" };
  assert.equal(sampleValue(fams, "whipbench_one_way_delay_seconds_count", fp), samples);
  assert.equal(sampleValue(fams, "whipbench_one_way_delay_seconds_bucket", { ...fp, le: "+Inf" }), samples);
  assert.equal(sampleValue(fams, "whipbench_viewers_started_total"), VIEWERS);
  assert.equal(sampleValue(fams, "whipbench_viewers_joined_total"), VIEWERS);
  assert.equal(sampleValue(fams, "whipbench_viewers_failed_total"), 0);
  assert.equal(sampleValue(fams, "whipbench_viewers_active"), 0, "every viewer has left");
  const packets = viewers.reduce((a, v) => a + v.rtp.received + v.rtp.duplicates + v.rtp.tooLate, 0);
  assert.equal(
    sampleValue(fams, "whipbench_rtp_packets_received_total"),
    packets,
    "the last partial second too",
  );
  assert.equal(sampleValue(fams, "whipbench_publisher_rtp_packets_sent_total"), r.publisher?.packetsSent);
  assert.equal(sampleValue(fams, "whipbench_publisher_frames_sent_total"), r.publisher?.framesSent);
  // what the viewers saw: the live counters end equal to the report's sums (each freeze counted once)
  const render = r.aggregate.render;
  assert.ok(render !== undefined, "the report carries aggregate.render");
  assert.equal(sampleValue(fams, "whipbench_freezes_total"), render.freezes);
  const frozen = sampleValue(fams, "whipbench_frozen_seconds_total");
  // the report's intervals are whole ms as libwebrtc's (floored instants), the live ones exact: < 1 ms a freeze apart
  assert.ok(
    Math.abs(frozen - render.frozenSeconds) <= 1e-3 * render.freezes + 1e-9,
    `${frozen} s live, ${render.frozenSeconds} s in the report, ${render.freezes} freezes`,
  );
  for (const e of r.timeline ?? []) assert.ok((e.viewersFrozen ?? -1) >= 0, `second ${e.t}`);
});

test("live run: a non-terminal gets plain periodic progress lines, never the status line", () => {
  assert.equal(progressText, "", "nothing written to the terminal sink");
  const lines = log.lines.filter((l) => l.startsWith("progress "));
  assert.ok(lines.length >= 2, log.lines.join("\n"));
  for (const l of lines) {
    assert.match(l, /^progress \d+\/4 s: \d of 3 viewers joined, \d active, \d failed; \d+ packets\/s; /);
    assert.match(l, /client CPU [\d.]+%, worst event-loop delay p99 [\d.]+ ms/);
  }
  assert.ok(
    lines.some((l) => /one-way delay p50 [\d.]+ ms, p99 [\d.]+ ms/.test(l)),
    lines.join("\n"),
  );
});

const browser = chromiumPath();
test("live run: the HTML report opens in headless Chromium with every chart drawn and no console error", {
  skip:
    browser === null ? "chromium not installed (apt-get install -y chromium; .ci/run installs it)" : false,
}, async () => {
  const shot = process.env["WHIPBENCH_SCREENSHOT"];
  const page = await openReport(browser as string, reportFile(".html"), shot);
  assert.deepEqual(page.problems, []);
  assert.deepEqual(page.requests, [], "no network fetch");
  // every chart of the page (core/report/html.ts CHARTS: timeline, client, viewers frozen, delay, joins)
  const ids = CHARTS.map((c) => c.id);
  assert.equal(ids.length, 6);
  assert.deepEqual(Object.keys(page.charts).sort(), [...ids].sort());
  for (const id of ids) {
    const c = page.charts[id]!;
    assert.ok(c.canvas === true && c.points > 0, `${id} drew ${JSON.stringify(c)}`);
  }
  assert.ok(page.text.includes("valid: 3 of 3 viewers joined"));
  assert.ok(page.text.includes("Comparability"));
});
