import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { repeatComparability } from "../../src/core/matrix/comparable.ts";
import { matrixChartData, matrixHtml } from "../../src/core/matrix/html.ts";
import { parseMatrix } from "../../src/core/matrix/parse.ts";
import { cellsOf, matrixMarkdown, type RunOutcome, summariseCell } from "../../src/core/matrix/table.ts";
import type { Report } from "../../src/core/report/types.ts";

const ok = (name: string) => ({ name, whep: `http://127.0.0.1:1/${name}/whep` });

function thrown(text: string): string {
  try {
    parseMatrix(text);
  } catch (err) {
    return (err as Error).message;
  }
  assert.fail("no error");
}

describe("matrix file", () => {
  test("defaults and the full form", () => {
    const m = parseMatrix(
      JSON.stringify({
        servers: [
          { ...ok("a"), whip: "http://127.0.0.1:1/a/whip", start: "x", health: "y", stop: "z" },
          ok("b"),
        ],
        scenarios: [
          { name: "s1", scenario: { viewers: 2 } },
          { name: "s2", file: "s2.json" },
        ],
      }),
    );
    assert.equal(m.figure, "oneWayDelay.p95");
    assert.equal(m.repeats, 1);
    assert.equal(m.healthTimeoutSeconds, 30);
    assert.deepEqual(m.servers[0], {
      name: "a",
      whep: "http://127.0.0.1:1/a/whep",
      whip: "http://127.0.0.1:1/a/whip",
      start: "x",
      health: "y",
      stop: "z",
    });
  });

  test("errors name the path", () => {
    const base = { servers: [ok("a")], scenarios: [{ name: "s", scenario: {} }] };
    const t = (over: Record<string, unknown>) => thrown(JSON.stringify({ ...base, ...over }));
    assert.equal(t({ servers: [{ name: "a" }] }), "matrix: servers[0].whep: want a non-empty string");
    assert.equal(t({ servers: [ok("a"), ok("a")] }), 'matrix: servers[1].name: "a" appears twice');
    assert.equal(
      t({ servers: [{ ...ok("a"), port: 1 }] }),
      "matrix: servers[0].port: unknown key (want name, whip, whep, start, health, stop)",
    );
    assert.equal(t({ repeats: 0 }), "matrix: repeats: want an integer 1..100");
    assert.equal(t({ figure: "speed" }), 'matrix: figure: unknown figure "speed"');
    assert.equal(
      t({ scenarios: [{ name: "s", scenario: { whep: "x" } }] }),
      "matrix: scenarios[0].scenario.whep: the server gives the URLs; leave it out",
    );
    assert.equal(t({ scenarios: [] }), "matrix: scenarios: want a non-empty list");
    assert.equal(
      t({ extra: 1 }),
      "matrix: extra: unknown key (want name, figure, repeats, healthTimeoutSeconds, servers, scenarios)",
    );
    assert.match(thrown("{"), /^matrix: not JSON/);
  });
});

const run = (server: string, scenario: string, repeat: number, over: Partial<RunOutcome>): RunOutcome => ({
  server,
  scenario,
  repeat,
  reportMd: `${server}/${scenario}/r${repeat}/x.md`,
  valid: true,
  verdict: "valid: 2 of 2 viewers joined",
  thresholdsFailed: false,
  comparable: true,
  ...over,
});

const NEAR =
  "the client was near its own ceiling (receive lag p99 9 ms), so its own work may be inside the figure";
const ASSETS = { chartJs: "/*uplot*/", chartCss: "", chartLicense: "MIT", pageJs: "/*page*/" };

describe("matrix table", () => {
  test("median and range over the comparable repeats, and how many were comparable", () => {
    const three = [10, 30, 20].map((v, i) => run("a", "s", i + 1, { value: { value: v } }));
    assert.equal(summariseCell(three, "ms").text, "20.0 ms (10.0 ms – 30.0 ms; 3 of 3 comparable)");
    const one = [run("a", "s", 1, { value: { value: 4 } })];
    assert.equal(summariseCell(one, "").text, "4 (1 of 1 comparable)");
    const partly = [
      run("a", "s", 1, { value: { value: 4 } }),
      run("a", "s", 2, { valid: false, verdict: "no verdict: x", comparable: false }),
    ];
    assert.equal(summariseCell(partly, "").text, "4 (1 of 2 comparable, 1 DNF)");
  });

  test("a not-comparable repeat is left out of the median and range, kept apart with its reason", () => {
    const runs = [
      run("a", "s", 1, { value: { value: 10 } }),
      run("a", "s", 2, { value: { value: 90 }, comparable: false, notComparableReason: NEAR }),
      run("a", "s", 3, { value: { value: 12 } }),
    ];
    const c = summariseCell(runs, "ms");
    assert.equal(c.text, "11.0 ms (10.0 ms – 12.0 ms; 2 of 3 comparable)");
    assert.deepEqual([c.median, c.min, c.max, c.comparable, c.repeats], [11, 10, 12, 2, 3]);
    assert.deepEqual(c.notComparable, [{ repeat: 2, value: 90, reason: NEAR }]);
    const none = runs.map((r) => ({ ...r, comparable: false, notComparableReason: NEAR }));
    const n = summariseCell(none, "ms");
    assert.deepEqual([n.text, n.dnf, n.median], ["not comparable (0 of 3 repeats)", false, undefined]);
  });

  test("DNF with its reason when no repeat gave the figure", () => {
    const none = [run("a", "s", 1, { valid: false, verdict: "no verdict: none of the 2 viewers joined" })];
    assert.deepEqual(
      [summariseCell(none, "ms").text, summariseCell(none, "ms").dnf],
      ["DNF: no verdict: none of the 2 viewers joined", true],
    );
    const unavailable = [run("a", "s", 1, { value: { unavailable: "no samples" } })];
    assert.equal(summariseCell(unavailable, "ms").text, "DNF: unavailable: no samples");
  });

  test("a row per server, a column per scenario, the rule, links, and the repeats not ranked", () => {
    const m = parseMatrix(
      JSON.stringify({
        name: "t",
        repeats: 2,
        servers: [ok("a"), ok("b")],
        scenarios: [
          { name: "s 1", scenario: {} },
          { name: "s2", scenario: {} },
        ],
      }),
    );
    const outcomes: RunOutcome[] = [
      run("a", "s 1", 1, { value: { value: 1 } }),
      run("a", "s 1", 2, { value: { value: 3 } }),
      run("a", "s2", 1, { value: { value: 5 } }),
      run("a", "s2", 2, { value: { value: 50 }, comparable: false, notComparableReason: NEAR }),
      {
        server: "b",
        scenario: "s 1",
        repeat: 1,
        valid: false,
        verdict: "server b did not start: not healthy within 30 s",
        thresholdsFailed: false,
        comparable: false,
      },
    ];
    const cells = cellsOf(m, outcomes, "ms");
    const md = matrixMarkdown(m, cells, "ms");
    assert.match(
      md,
      /^Each cell: `oneWayDelay\.p95`, the median over its comparable repeats of 2 repeats .*Only comparable repeats are ranked/m,
    );
    assert.match(md, /\| \| s 1 \| s2 \|\n\|---\|---\|---\|\n/);
    assert.match(
      md,
      /\| a \| 2\.0 ms \(1\.0 ms – 3\.0 ms; 2 of 2 comparable\) · \[r1\]\(a\/s%201\/r1\/x\.md\) \[r2\]\(a\/s%201\/r2\/x\.md\) \| 5\.0 ms \(1 of 2 comparable\) · \[r1\]/,
    );
    assert.match(md, /\| b \| DNF: server b did not start: not healthy within 30 s \| not run \|/);
    assert.match(
      md,
      /Not comparable, so not ranked:\n\n- a × s2 r2: 50\.0 ms, not ranked: the client was near its own ceiling/,
    );
    const html = matrixHtml(m, cells, "ms", ASSETS);
    assert.match(html, /<tr><th>b<\/th><td class="dnf">DNF: server b did not start/);
    assert.match(html, /<p id="rule">Each cell: oneWayDelay\.p95, the median over its comparable repeats/);
    assert.match(html, /<div id="chart-scenario-0" data-chart><\/div>/);
    assert.match(html, /<li>a × s2 r2: 50\.0 ms, not ranked: /);
    assert.match(html, /<script>\/\*page\*\/<\/script>/);
    const charts = matrixChartData(m, cells);
    assert.deepEqual(charts[1]?.servers[0], {
      name: "a",
      comparable: [{ repeat: 1, value: 5 }],
      notComparable: [{ repeat: 2, value: 50, reason: NEAR }],
      median: 5,
      min: 5,
      max: 5,
    });
    assert.deepEqual(charts[1]?.servers[1], { name: "b", comparable: [], notComparable: [] });
  });
});

/** A report with only what repeatComparability reads. */
function rep(
  valid: boolean,
  blocks: { source: string; comparable: boolean; notComparableReason?: string }[],
  near = false,
): Report {
  return {
    aggregate: {
      valid,
      verdict: valid ? "valid: 2 of 2 viewers joined" : "no verdict: none joined",
      oneWayDelay: blocks,
    },
    client: near ? { ceiling: { nearCeiling: true, evidence: ["receive lag p99 9 ms"] } } : {},
  } as unknown as Report;
}

describe("a repeat's comparability", () => {
  test("a one-way delay figure follows its source's block; other figures the client's ceiling; no verdict is never comparable", () => {
    const fp = { source: "fingerprint", comparable: false, notComparableReason: NEAR };
    const st = { source: "stamp", comparable: true };
    assert.deepEqual(repeatComparability(rep(true, [fp, st]), "oneWayDelay.p95"), {
      comparable: false,
      notComparableReason: NEAR,
    });
    assert.deepEqual(repeatComparability(rep(true, [fp, st]), "oneWayDelay.stamp.p95"), { comparable: true });
    assert.deepEqual(repeatComparability(rep(true, [st], true), "loss"), {
      comparable: false,
      notComparableReason: NEAR,
    });
    assert.deepEqual(repeatComparability(rep(true, [st]), "nacks"), { comparable: true });
    assert.deepEqual(repeatComparability(rep(false, [st]), "nacks"), {
      comparable: false,
      notComparableReason: "no verdict: none joined",
    });
    assert.equal(
      repeatComparability(rep(true, []), "oneWayDelay.p50").notComparableReason,
      "the report has no fingerprint one-way delay block",
    );
  });
});
