import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { capacityToHtml } from "../../src/core/capacity/html.ts";
import { capacityToMarkdown } from "../../src/core/capacity/markdown.ts";
import { capacityMethod } from "../../src/core/capacity/method.ts";
import { parseCapacity } from "../../src/core/capacity/parse.ts";
import { CapacitySearch, capacityExitCode } from "../../src/core/capacity/search.ts";
import { judgeStep, measuredFromNs, stepFigures } from "../../src/core/capacity/step.ts";
import {
  CAPACITY_DEFAULTS,
  type CapacityReport,
  type CapacitySpec,
  type CapacityStep,
  type StepOutcome,
} from "../../src/core/capacity/types.ts";
import { buildReport } from "../../src/core/report/build.ts";
import type { Report } from "../../src/core/report/types.ts";
import { parseScenario } from "../../src/core/scenario-file/scenario.ts";
import { applyThresholds, evaluateThresholds } from "../../src/core/thresholds/evaluate.ts";
import { parseThresholds } from "../../src/core/thresholds/parse.ts";
import { healthyViewers, makeInput } from "./report-fixtures.ts";
import { thrown } from "./thrown.ts";

describe("the capacity key", () => {
  test("defaults apply to keys not given", () => {
    assert.deepEqual(parseCapacity({}), CAPACITY_DEFAULTS);
    assert.deepEqual(parseCapacity({ start: 20, growth: 1.5 }), {
      ...CAPACITY_DEFAULTS,
      start: 20,
      growth: 1.5,
    });
  });

  test("every mistake names its key", () => {
    assert.match(
      thrown(() => parseCapacity({ strat: 10 })),
      /capacity: unknown key "strat"/,
    );
    assert.match(
      thrown(() => parseCapacity({ growth: 1 })),
      /^capacity\.growth: must be above 1/,
    );
    assert.match(
      thrown(() => parseCapacity({ start: 0 })),
      /^capacity\.start: /,
    );
    assert.match(
      thrown(() => parseCapacity({ start: 2.5 })),
      /^capacity\.start: /,
    );
    assert.match(
      thrown(() => parseCapacity({ resolution: "5" })),
      /^capacity\.resolution: want a number/,
    );
    assert.match(
      thrown(() => parseCapacity({ start: 50, max: 40 })),
      /^capacity\.max: must be at least capacity\.start/,
    );
    assert.match(
      thrown(() => parseCapacity({ stepSeconds: 5, settleSeconds: 5 })),
      /^capacity\.settleSeconds: /,
    );
    assert.match(
      thrown(() => parseCapacity([])),
      /^capacity: want an object/,
    );
  });

  test("a scenario carries it; a bad one is a scenario error naming the key", () => {
    const base = '"whep":"http://127.0.0.1:1/x/whep","viewers":1,"holdSeconds":1';
    const s = parseScenario(`{${base},"capacity":{"start":5,"max":80}}`);
    assert.equal(s.capacity?.start, 5);
    assert.equal(s.capacity?.max, 80);
    assert.equal(parseScenario(`{${base}}`).capacity, undefined);
    assert.match(
      thrown(() => parseScenario(`{${base},"capacity":{"growth":0.5}}`)),
      /^scenario: capacity\.growth: /,
    );
  });
});

/** Runs a search against a server whose knee is `knee` (pass at ≤ knee viewers), and a client near its ceiling from `clientAt` viewers on. */
function simulate(spec: CapacitySpec, knee: number, clientAt = Number.POSITIVE_INFINITY) {
  const search = new CapacitySearch(spec);
  const asked: number[] = [];
  for (let n = search.next(); n !== null; n = search.next()) {
    asked.push(n);
    assert.ok(asked.length < 100, "the search ends");
    const outcome: StepOutcome =
      n >= clientAt
        ? { kind: "client", evidence: ["worker 0: receive lag p99 9 ms ≥ 5 ms"] }
        : n <= knee
          ? { kind: "pass" }
          : { kind: "fail", failed: ["loss"] };
    search.record(n, outcome);
  }
  return { asked, result: search.result(12.5) };
}

describe("the capacity search", () => {
  const spec: CapacitySpec = { ...CAPACITY_DEFAULTS, start: 10, max: 2000, growth: 2, resolution: 5 };

  test("it brackets every knee to within the resolution, the knee being the last passing count", () => {
    for (let knee = 10; knee <= 700; knee += 7) {
      const { asked, result } = simulate(spec, knee);
      assert.equal(result.limitedBy, "threshold:loss", `knee ${knee}`);
      const max = result.maxViewers ?? -1;
      const fail = result.firstFailingViewers ?? -1;
      assert.ok(max <= knee && fail > knee, `knee ${knee}: ${max}..${fail}`);
      assert.ok(fail - max <= spec.resolution, `knee ${knee}: ${max}..${fail}`);
      assert.equal(result.steps, asked.length);
      assert.ok(asked.every((n) => n >= spec.start && n <= spec.max));
      assert.equal(capacityExitCode(result), 0);
    }
  });

  test("the relay's knee of 40 from start 10, growth 2: 10, 20, 40 pass, 80 fails, then bisection", () => {
    const { asked, result } = simulate(spec, 40);
    assert.deepEqual(asked, [10, 20, 40, 80, 60, 50, 45]);
    assert.equal(result.maxViewers, 40);
    assert.equal(result.firstFailingViewers, 45);
    assert.equal(result.linearSweepSteps, 8);
    assert.match(result.summary, /^40 viewers hold the thresholds; 45 fail loss$/);
  });

  test("a start that fails gives no knee and exit 99", () => {
    const { asked, result } = simulate(spec, 5);
    assert.deepEqual(asked, [10]);
    assert.equal(result.maxViewers, undefined);
    assert.equal(result.firstFailingViewers, 10);
    assert.equal(result.limitedBy, "threshold:loss");
    assert.equal(capacityExitCode(result), 99);
  });

  test("passing all the way stops at max (never above it), exit 0", () => {
    const { asked, result } = simulate({ ...spec, max: 100 }, 10_000);
    assert.deepEqual(asked, [10, 20, 40, 80, 100]);
    assert.equal(result.limitedBy, "max");
    assert.equal(result.maxViewers, 100);
    assert.equal(capacityExitCode(result), 0);
  });

  test("a client-bound step above a pass caps the search: bisection below it, no knee above it, exit 3", () => {
    // the client is near its ceiling from 80 viewers on; the server would hold any number
    const grow = simulate(spec, 10_000, 80);
    assert.deepEqual(grow.asked, [10, 20, 40, 80, 60, 70, 75]);
    assert.equal(grow.result.limitedBy, "client");
    assert.equal(grow.result.clientBoundAt, 80);
    assert.equal(grow.result.maxViewers, 75, "the last passing count is what was shown");
    assert.match(
      grow.result.summary,
      /^75 viewers hold the thresholds; at 80 the client was near its own ceiling/,
    );
    assert.equal(capacityExitCode(grow.result), 3);
  });

  test("a server knee below the client's cap is found: the relay's 40 with the client bound from 80", () => {
    const r = simulate(spec, 40, 80);
    assert.deepEqual(r.asked, [10, 20, 40, 80, 60, 50, 45]);
    assert.equal(r.result.limitedBy, "threshold:loss");
    assert.equal(r.result.maxViewers, 40);
    assert.equal(r.result.firstFailingViewers, 45);
    assert.equal(capacityExitCode(r.result), 0);
  });

  test("a client-bound first step stops the search with no knee, exit 3", () => {
    const first = simulate(spec, 10_000, 10);
    assert.deepEqual(first.asked, [10]);
    assert.equal(first.result.limitedBy, "client");
    assert.match(first.result.summary, /^client-bound at 10 viewers: add worker threads or hosts/);
    assert.equal(capacityExitCode(first.result), 3);
  });

  test("a step with no verdict stops it, exit 3", () => {
    const search = new CapacitySearch(spec);
    search.record(search.next() ?? 0, { kind: "no-verdict", reason: "interrupted" });
    assert.equal(search.next(), null);
    const r = search.result(1);
    assert.equal(r.limitedBy, "no-verdict");
    assert.equal(r.reason, "interrupted");
    assert.equal(capacityExitCode(r), 3);
  });
});

function judged(lossLimit: string): Report {
  const base = buildReport(makeInput(healthyViewers(4)));
  return applyThresholds(
    base,
    evaluateThresholds(base, parseThresholds({ loss: lossLimit, "oneWayDelay.p99": "< 1s" }), null),
  );
}

describe("a step judged from its own report", () => {
  test("the measured window starts at the ramp's end, or the last seeded start, plus the settle", () => {
    const base = '"whep":"http://127.0.0.1:1/x/whep","viewers":10,"holdSeconds":6,"rampSeconds":2';
    const run = { startMonoNs: 1e9, t0MonoNs: 2e9, endMonoNs: 20e9 };
    // ramp 2 s: from t0 + 2 s + settle 3 s
    assert.equal(measuredFromNs(parseScenario(`{${base}}`), 3, run), 7e9);
    // a seeded offset of up to 4 s: from the latest start, which is past the ramp's end
    const seeded = parseScenario(`{${base},"rampOffsetSeed":7,"rampOffsetMaxSeconds":4}`);
    const got = measuredFromNs(seeded, 3, run);
    assert.ok(got > 7e9 && got <= 2e9 + 2e9 + 4e9 + 3e9, `${got}`);
    // never past the step's end; without viewers, from the step's start
    assert.equal(measuredFromNs(parseScenario(`{${base}}`), 3, { ...run, endMonoNs: 5e9 }), 5e9);
    assert.equal(measuredFromNs(parseScenario(`{${base}}`), 3, { ...run, t0MonoNs: 0 }), 4e9);
  });

  test("pass, fail naming the figure, interrupted", () => {
    assert.deepEqual(judgeStep(judged("< 1%"), false), { kind: "pass" });
    assert.deepEqual(judgeStep(judged("< 0%"), false), { kind: "fail", failed: ["loss"] });
    assert.deepEqual(judgeStep(judged("< 1%"), true), { kind: "no-verdict", reason: "interrupted" });
  });

  test("a client near its ceiling is never a server verdict, whatever the thresholds say", () => {
    const r = judged("< 0%");
    const near = {
      ...r,
      client: {
        ...r.client,
        ceiling: {
          nearCeiling: true,
          thresholds: { eventLoopUtilisation: 0.9, eventLoopDelayP99Ms: 20 },
          evidence: ["worker 0: x"],
        },
      },
    };
    assert.deepEqual(judgeStep(near as Report, false), { kind: "client", evidence: ["worker 0: x"] });
  });

  test("an invalid report is no verdict", () => {
    const r = judged("< 1%");
    const invalid = {
      ...r,
      aggregate: { ...r.aggregate, valid: false, verdict: "no verdict: 0 of 4 viewers joined" },
    };
    assert.deepEqual(judgeStep(invalid, false), {
      kind: "no-verdict",
      reason: "no verdict: 0 of 4 viewers joined",
    });
  });

  test("the headline figures come from the report; a missing one is absent, not 0", () => {
    const f = stepFigures(judged("< 1%"));
    assert.equal(f.joined, 4);
    assert.equal(f.lossPercent, 0);
    assert.ok((f.oneWayDelayP99Ms ?? 0) > 0);
    assert.equal("receiveLagP99Ms" in f, false);
  });
});

function step(
  index: number,
  viewers: number,
  outcome: CapacityStep["outcome"],
  loss: number,
  cpu?: number,
): CapacityStep {
  return {
    index,
    viewers,
    window: { startS: index * 10, measuredFromS: index * 10 + 4, endS: index * 10 + 9 },
    outcome,
    verdict: "valid",
    thresholds: [{ figure: "loss", condition: "< 1%", unit: "%", observed: loss, pass: loss < 1 }],
    figures: { joined: viewers, failed: 0, lossPercent: loss, oneWayDelayP50Ms: 3, oneWayDelayP99Ms: 9 },
    ...(cpu !== undefined
      ? { server: { cpuCores: { mean: cpu, max: cpu + 0.1 }, rssMiB: { unavailable: "process 7 exited" } } }
      : {}),
  };
}

function sample(): CapacityReport {
  const spec = { ...CAPACITY_DEFAULTS, stepSeconds: 6, settleSeconds: 2 };
  const search = new CapacitySearch(spec);
  const steps = [
    step(1, 10, "pass", 0, 0.2),
    step(2, 20, "pass", 0, 0.4),
    step(3, 40, "pass", 0, 0.8),
    step(4, 80, "fail", 5, 1.6),
    step(5, 60, "fail", 5, 1.2),
    step(6, 50, "fail", 5, 1),
    step(7, 45, "fail", 5, 0.9),
  ];
  for (const s of steps)
    search.record(s.viewers, s.outcome === "pass" ? { kind: "pass" } : { kind: "fail", failed: ["loss"] });
  return {
    schema: "whipbench.capacity/v0",
    whipbenchVersion: "v0.0.0",
    startedAt: "2026-12-01T00:00:00Z",
    finishedAt: "2026-12-01T00:01:10Z",
    scenario: { name: "demo <b>", rampSeconds: 2, workers: 1 },
    capacity: spec,
    thresholds: [{ figure: "loss", condition: "< 1%", value: 1, unit: "%" }],
    serverWatch: { pid: 7 },
    result: search.result(70),
    steps,
    method: capacityMethod(spec),
  };
}

describe("the capacity report's pages", () => {
  test("Markdown: result, cost beside a linear sweep, every step with the server's resources", () => {
    const md = capacityToMarkdown(sample());
    assert.match(md, /\*\*40 viewers hold the thresholds; 45 fail loss\*\*/);
    assert.match(md, /\| limited by \| `threshold:loss` \|/);
    assert.match(md, /\| steps \| 7 \(a linear sweep in steps of 5 from 10: 8 steps, about 80 s\) \|/);
    assert.match(md, /\| 4 \| 80 \| fail \| 80\/80 \| 3\.0 \/ 9\.0 \| 5\.000 \|/);
    assert.match(md, /\| 1\.60 \(max 1\.70\) \| unavailable: process 7 exited \| loss \|/);
    assert.equal(md.split("\n").filter((l) => /^\| \d+ \| \d+ \|/.test(l)).length, 7);
  });

  test("HTML: the shared page shell, one chart per threshold and headline, the threshold line and the knee", () => {
    const assets = {
      chartJs: "/*uplot*/",
      chartCss: ".u-legend{}",
      chartLicense: "MIT",
      pageJs: "/*capacity*/",
    };
    const html = capacityToHtml(sample(), assets);
    assert.match(html, /Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'/);
    assert.match(
      html,
      /<style>\.u-legend\{\}<\/style>\n<style>\n:root\{--fg:/,
      "uPlot's and the run report's style",
    );
    assert.match(html, /<script>\/\*capacity\*\/<\/script>/);
    assert.doesNotMatch(html, /demo <b>/, "the name is escaped");
    assert.doesNotMatch(html, /<svg /, "charts are drawn by the page script, not inline SVG");
    const data = JSON.parse(
      /<script type="application\/json" id="whipbench-data">(.*?)<\/script>/s.exec(html)?.[1] ?? "null",
    ) as {
      knee: number | null;
      charts: { id: string; title: string; line?: number; points: { outcome: string }[] }[];
    };
    assert.equal(data.knee, 40);
    // loss threshold, delay p99, loss, server CPU
    assert.deepEqual(
      data.charts.map((c) => c.title),
      ["loss < 1%", "one-way delay p99, ms", "loss, %", "server CPU, cores"],
    );
    assert.deepEqual(
      data.charts.map((c) => c.line),
      [1, undefined, undefined, undefined],
    );
    for (const c of data.charts) {
      assert.equal(c.points.filter((p) => p.outcome === "fail").length, 4);
      assert.match(html, new RegExp(`<div id="${c.id}" data-chart></div>`));
    }
  });
});
