import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseMatrix } from "../../src/core/matrix/parse.ts";
import {
  cellsOf,
  matrixHtml,
  matrixMarkdown,
  type RunOutcome,
  summariseCell,
} from "../../src/core/matrix/table.ts";

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
  ...over,
});

describe("matrix table", () => {
  test("median and range over repeats, DNF with its reason", () => {
    const three = [10, 30, 20].map((v, i) => run("a", "s", i + 1, { value: { value: v } }));
    assert.equal(summariseCell(three, "ms").text, "20.0 ms (10.0 ms – 30.0 ms, 3 runs)");
    const partly = [
      run("a", "s", 1, { value: { value: 4 } }),
      run("a", "s", 2, { valid: false, verdict: "no verdict: x" }),
    ];
    assert.equal(summariseCell(partly, "").text, "4, 1 DNF");
    const none = [run("a", "s", 1, { valid: false, verdict: "no verdict: none of the 2 viewers joined" })];
    assert.deepEqual(
      [summariseCell(none, "ms").text, summariseCell(none, "ms").dnf],
      ["DNF: no verdict: none of the 2 viewers joined", true],
    );
    const unavailable = [run("a", "s", 1, { value: { unavailable: "no samples" } })];
    assert.equal(summariseCell(unavailable, "ms").text, "DNF: unavailable: no samples");
  });

  test("a row per server, a column per scenario, links to each repeat", () => {
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
    const outcomes = [
      run("a", "s 1", 1, { value: { value: 1 } }),
      run("a", "s 1", 2, { value: { value: 3 } }),
      run("a", "s2", 1, { value: { value: 5 } }),
      {
        server: "b",
        scenario: "s 1",
        repeat: 1,
        valid: false,
        verdict: "server b did not start: not healthy within 30 s",
        thresholdsFailed: false,
      },
    ];
    const cells = cellsOf(m, outcomes, "ms");
    const md = matrixMarkdown(m, cells);
    assert.match(md, /\| \| s 1 \| s2 \|\n\|---\|---\|---\|\n/);
    assert.match(
      md,
      /\| a \| 2\.0 ms \(1\.0 ms – 3\.0 ms, 2 runs\) · \[r1\]\(a\/s%201\/r1\/x\.md\) \[r2\]\(a\/s%201\/r2\/x\.md\) \| 5\.0 ms · \[r1\]\(a\/s2\/r1\/x\.md\) \|/,
    );
    assert.match(md, /\| b \| DNF: server b did not start: not healthy within 30 s \| not run \|/);
    assert.match(matrixHtml(m, cells), /<tr><th>b<\/th><td class="dnf">DNF: server b did not start/);
  });
});
