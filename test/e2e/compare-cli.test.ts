// `whipbench compare` through the real CLI on report files (issue 14): it ranks, refuses with
// the reasons, and gates a pipeline with exit 99 on --fail-on.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { buildReport } from "../../src/core/report/build.ts";
import { reportToJson } from "../../src/core/report/json.ts";
import { makeInput, makeScenario, makeViewer } from "../unit/report-fixtures.ts";
import { cli, tempDir } from "./cli-harness.ts";

const tmp = tempDir("compare");
after(() => tmp.remove());

function reportFile(name: string, n: number, shiftMs: number): string {
  const viewers = Array.from({ length: n }, (_, i) =>
    makeViewer(i, {
      keyMs: [10 + shiftMs, 12 + shiftMs],
      deltaMs: [2 + shiftMs, 3 + shiftMs, 4 + i + shiftMs],
    }),
  );
  const path = join(tmp.dir, name);
  writeFileSync(path, reportToJson(buildReport(makeInput(viewers, { scenario: makeScenario(n) }))));
  return path;
}

describe("whipbench compare (CLI)", () => {
  const base = reportFile("base.json", 6, 0);
  const same = reportFile("same.json", 6, 0.5);
  const worse = reportFile("worse.json", 6, 8);
  const other = reportFile("other.json", 5, 0);

  test("rankable and within the gate: exit 0, the table on stdout, HTML written", async () => {
    const html = join(tmp.dir, "c.html");
    const r = await cli(["compare", base, same, "--fail-on", "oneWayDelay.p95 > +50%", "--html", html]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /\*\*rankable on the fingerprint one-way delay;/);
    assert.match(r.stdout, /\| `oneWayDelay\.p95` \| [\d.]+ ms \| [\d.]+ ms \| \+0\.5 ms/);
    assert.match(r.stdout, /\| pass \| `oneWayDelay\.p95 > \+50%` \|/);
    assert.match(readFileSync(html, "utf8"), /<h2>base\.json → same\.json<\/h2>/);
  });

  test("NEW worse beyond --fail-on: exit 99; --json for machines", async () => {
    const r = await cli(["compare", base, worse, "--fail-on", "oneWayDelay.p95 > +10%", "--json"]);
    assert.equal(r.code, 99, r.stderr);
    const out = JSON.parse(r.stdout) as {
      rankable: { fingerprint: { ok: boolean } };
      gates: { tripped: boolean }[];
    };
    assert.equal(out.rankable.fingerprint.ok, true);
    assert.deepEqual(
      out.gates.map((g) => g.tripped),
      [true],
    );
  });

  test("not rankable: exit 3 with the reason", async () => {
    const r = await cli(["compare", base, other, "--fail-on", "oneWayDelay.p95 > +10%"]);
    assert.equal(r.code, 3);
    assert.match(r.stdout, /\*\*not rankable: scenarios differ on viewers;/);
  });

  test("a bad --fail-on or a file that is not a report: exit 2 naming it", async () => {
    const bad = await cli(["compare", base, same, "--fail-on", "oneWayDelay.p95 > 10"]);
    assert.equal(bad.code, 2);
    assert.equal(
      bad.stderr,
      'whipbench compare: --fail-on "oneWayDelay.p95 > 10": a time figure needs ms or s (or % for a relative change)\n',
    );
    const junk = join(tmp.dir, "junk.json");
    writeFileSync(junk, '{"schema": "other"}');
    const notReport = await cli(["compare", base, junk]);
    assert.equal(notReport.code, 2);
    assert.match(notReport.stderr, /junk\.json: not a whipbench report/);
  });
});
