// Each list of figures is declared once (core/delay/counters.ts, core/tick-counts.ts,
// core/render/counts.ts, core/reference/figures.ts) and the types, sums, key orders and metric
// families are derived from it; what is written by hand beside a list (a Markdown sentence, a definitions.md section) is checked
// here against the list, so a figure added to a list and missed in such a place fails.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { DELAY_COUNTERS } from "../../src/core/delay/counters.ts";
import { pickCounts } from "../../src/core/figures.ts";
import {
  REFERENCE_FIGURE_KEYS,
  REFERENCE_FIGURES,
  type ReferenceFigures,
} from "../../src/core/reference/figures.ts";
import { RENDER_COUNT_KEYS, RENDER_COUNTS } from "../../src/core/render/counts.ts";
import { buildReport } from "../../src/core/report/build.ts";
import { reportToMarkdown } from "../../src/core/report/markdown.ts";
import { COHORT_TICK_COUNT_KEYS, TICK_COUNTS } from "../../src/core/tick-counts.ts";
import { emptyTick, mergeTicks } from "../../src/main/agents/tick-merge.ts";
import { RunMetrics } from "../../src/main/observe/metrics.ts";
import type { ShardTick } from "../../src/workers/protocol.ts";
import { parseExposition } from "./prom-text.ts";
import { makeInput, makeViewer } from "./report-fixtures.ts";

const DEFINITIONS = readFileSync(new URL("../../docs/definitions.md", import.meta.url), "utf8");

/** The whole numbers written in a line of text. */
function numbersIn(line: string): string[] {
  return line.match(/\d+/g) ?? [];
}

test("every one-way delay counter reaches the viewer block, in list order, its pooled sum and the Markdown", () => {
  // distinct values per counter, none a number the sentence carries otherwise
  const counters = Object.fromEntries(DELAY_COUNTERS.map((k, i) => [k, 1000 + 37 * i]));
  const viewers = [0, 1].map((id) => makeViewer(id, { keyMs: [10, 12], deltaMs: [2, 3, 4], counters }));
  const report = buildReport(makeInput(viewers));
  const block = report.viewers?.[0]?.oneWayDelay[0] as unknown as Record<string, unknown>;
  const keys = Object.keys(block);
  const at = keys.indexOf("frameEnd") + 1;
  assert.ok(at > 0, "the block has a frameEnd");
  assert.deepEqual(keys.slice(at, at + DELAY_COUNTERS.length), [...DELAY_COUNTERS]);
  assert.equal(keys[at + DELAY_COUNTERS.length], "ms", "the counters end where ms begins");
  const pooled = report.aggregate.oneWayDelay[0] as unknown as Record<string, number>;
  const line = reportToMarkdown(report)
    .split("\n")
    .find((l) => l.startsWith("One-way delay (fingerprint):"));
  assert.ok(line !== undefined, "the Markdown has the fingerprint sentence");
  const shown = numbersIn(line);
  for (const k of DELAY_COUNTERS) {
    // a block's samples are its histogram's count (5 a viewer here), the rest its viewer's counter
    const one = k === "samples" ? 5 : (counters[k] as number);
    assert.equal(block[k], one, `viewers[0].oneWayDelay[0].${k}`);
    assert.equal(pooled[k], 2 * one, `aggregate.oneWayDelay[0].${k}: the sum over both viewers`);
    assert.ok(shown.includes(String(2 * one)), `the Markdown's fingerprint sentence shows ${k}: ${line}`);
    assert.match(DEFINITIONS, new RegExp(`\`${k}\``), `docs/definitions.md defines ${k}`);
  }
});

test("every tick count has its /metrics family, sums in an agent's merge and reaches each cohort's family", async () => {
  const value = (i: number, shard: number) => 100 * (i + 1) + shard;
  const tick = (shard: number): ShardTick => {
    const t = emptyTick(shard, 1, {
      cpuSeconds: 0,
      eventLoopUtilisation: 0,
      eventLoopDelayMs: { p50: 0, p99: 0, max: 0 },
    });
    TICK_COUNTS.forEach((s, i) => {
      t[s.key] = value(i, shard);
    });
    t.cohorts = [
      {
        cohort: "lossy",
        ...pickCounts(t, COHORT_TICK_COUNT_KEYS),
        delaySamples: [],
        freezes: 0,
        frozenNs: [],
      },
    ];
    return t;
  };
  const merged = mergeTicks([tick(1), tick(2)]);
  assert.ok(merged !== null);
  const m = new RunMetrics({ viewersTarget: 1, cohorts: [{ name: "lossy", viewers: 1 }] });
  m.applyTick(merged);
  const families = new Map(parseExposition(await m.text()).map((f) => [f.name, f]));
  TICK_COUNTS.forEach((s, i) => {
    const sum = value(i, 1) + value(i, 2);
    assert.equal(merged[s.key], sum, `the merge sums ${s.key}`);
    const f = families.get(s.metric);
    assert.equal(f?.type, s.kind === "delta" ? "counter" : "gauge", s.metric);
    assert.equal(f?.help, s.help, `${s.metric}'s help`);
    assert.deepEqual(
      f?.samples.map((x) => x.value),
      [sum],
      `${s.metric} after one tick`,
    );
    if ("cohort" in s) {
      const c = families.get(s.cohort.metric);
      assert.deepEqual(
        c?.samples.map((x) => [x.labels["cohort"], x.value]),
        [["lossy", sum]],
        s.cohort.metric,
      );
      assert.equal(merged.cohorts?.[0]?.[s.key], sum, `the merge sums the cohort's ${s.key}`);
    }
  });
});

test("every render count reaches the viewer block, in list order, its pooled figure and the Markdown", () => {
  // distinct values per count; the second viewer's one more, so a max differs from a sum
  const counts = (d: number) => Object.fromEntries(RENDER_COUNTS.map((s, i) => [s.key, 5000 + 1000 * i + d]));
  const viewers = [0, 1].map((id) => makeViewer(id, { keyMs: [10], deltaMs: [2], render: counts(id) }));
  const report = buildReport(makeInput(viewers));
  const block = report.viewers?.[0]?.render as unknown as Record<string, unknown>;
  assert.deepEqual(
    Object.keys(block).filter((k) => (RENDER_COUNT_KEYS as readonly string[]).includes(k)),
    [...RENDER_COUNT_KEYS],
  );
  const pooled = report.aggregate.render as unknown as Record<string, number>;
  const para = reportToMarkdown(report)
    .split("\n")
    .find((l) => l.startsWith("Frames: "));
  assert.ok(para !== undefined, "the Markdown has the pooled counts' paragraph");
  const shown: string[] = para.match(/\d+(?:\.\d+)?/g) ?? [];
  for (const s of RENDER_COUNTS) {
    const [a, b] = [counts(0)[s.key] as number, counts(1)[s.key] as number];
    assert.equal(block[s.key], a, `viewers[0].render.${s.key}`);
    const one = s.pool === "max" ? Math.max(a, b) : a + b;
    const key = "pooledSeconds" in s ? s.pooledSeconds : s.key;
    const want = "pooledSeconds" in s ? one / 1000 : one;
    assert.equal(pooled[key], want, `aggregate.render.${key} (${s.pool})`);
    const text = "pooledSeconds" in s ? want.toFixed(1) : String(want);
    assert.ok(shown.includes(text), `the Markdown's paragraph shows ${key} (${text}): ${para}`);
  }
});

test("every reference figure reaches its block, in list order, the Markdown, /metrics and definitions.md", async () => {
  // distinct values per figure and viewer, so a sum differs from either
  const figures = (d: number) =>
    Object.fromEntries(REFERENCE_FIGURES.map((f, i) => [f.key, 700 + 10 * i + d])) as ReferenceFigures;
  const reference = [0, 1].map((d) => ({ group: "", figures: figures(d), measuredMs: 30_000 }));
  const viewers = [0, 1].map((id) => makeViewer(id, { keyMs: [10], deltaMs: [2] }));
  const report = buildReport(
    makeInput(viewers, { scenario: { ...makeInput(viewers).scenario, referenceViewers: 2 }, reference }),
  );
  const block = report.aggregate.reference as unknown as Record<string, unknown>;
  assert.deepEqual(
    Object.keys(block).filter((k) => (REFERENCE_FIGURE_KEYS as readonly string[]).includes(k)),
    [...REFERENCE_FIGURE_KEYS],
  );
  const row = reportToMarkdown(report)
    .split("\n")
    .find((l) => l.startsWith("| `all` |"));
  assert.ok(row !== undefined, "the Markdown has the whole run's reference row");
  const cells = row.split(" | ");
  const m = new RunMetrics({ viewersTarget: 2, reference: [{ cohort: "unimpaired", viewers: 2 }] });
  for (const r of reference) m.applyReference("unimpaired", reference.indexOf(r), r.figures);
  const fams = parseExposition(await m.text());
  for (const f of REFERENCE_FIGURES) {
    const sum = (figures(0)[f.key] as number) + (figures(1)[f.key] as number);
    assert.equal(block[f.key], sum, `aggregate.reference.${f.key}`);
    const shown = f.key.endsWith("Seconds") ? sum.toFixed(2) : String(sum);
    assert.ok(cells.includes(shown), `the Markdown row shows ${f.key} (${shown}): ${row}`);
    assert.equal(
      fams.find((x) => x.name === `whipbench_reference_${f.metric}`)?.samples[0]?.value,
      sum,
      `whipbench_reference_${f.metric}`,
    );
    assert.match(
      DEFINITIONS,
      new RegExp(`\`${f.key}\` — \`${f.stat}\``),
      `docs/definitions.md defines ${f.key}`,
    );
  }
});
