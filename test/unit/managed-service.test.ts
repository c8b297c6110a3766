// The optional scenario keys of a managed-service run (docs/load-testing-etiquette.md):
// serverVersion, plan, region, permission. Validated like every key (a wrong type or an
// unusable text fails naming the key), recorded in the report's `server` block beside the
// hosts, shown in the Markdown header, and outside ranking.
import assert from "node:assert/strict";
import { test } from "node:test";
import { buildReport } from "../../src/core/report/build.ts";
import { rankable } from "../../src/core/report/comparability.ts";
import { reportToJson } from "../../src/core/report/json.ts";
import { reportToMarkdown } from "../../src/core/report/markdown.ts";
import { parseScenario } from "../../src/core/scenario-file/scenario.ts";
import { healthyViewers, makeInput, makeScenario } from "./report-fixtures.ts";

const WHEP = "http://127.0.0.1:8889/s/whep";
const MANAGED = {
  serverVersion: "media 4.2.1",
  plan: "pro",
  region: "eu-west-1",
  permission: "terms §7.3 (load tests on own account)",
};

function fails(extra: Record<string, unknown>): string {
  try {
    parseScenario(JSON.stringify({ whep: WHEP, viewers: 1, holdSeconds: 1, ...extra }));
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error("accepted");
}

test("the keys parse as text; a wrong type or an unusable text fails naming the key", () => {
  const s = parseScenario(JSON.stringify({ whep: WHEP, viewers: 1, holdSeconds: 1, ...MANAGED }));
  assert.equal(s.plan, "pro");
  assert.equal(s.permission, MANAGED.permission);
  assert.equal(fails({ plan: 5 }), "scenario: plan: got 5, want a string");
  assert.equal(fails({ region: ["eu"] }), "scenario: region: got an array, want a string");
  assert.equal(fails({ serverVersion: true }), "scenario: serverVersion: got true, want a string");
  assert.equal(
    fails({ permission: "x".repeat(201) }),
    "scenario: permission must be one line of at most 200 characters",
  );
  assert.equal(
    fails({ permission: "a\nb" }),
    "scenario: permission must be one line of at most 200 characters",
  );
});

test("the report records them in `server` after the hosts, and the Markdown shows them", () => {
  const r = buildReport(makeInput(healthyViewers(2), { scenario: makeScenario(2, MANAGED) }));
  assert.deepEqual(Object.keys(r.server), [
    "whipHost",
    "whepHost",
    "serverVersion",
    "plan",
    "region",
    "permission",
  ]);
  assert.equal(r.server.region, "eu-west-1");
  assert.ok(!("plan" in r.scenario), "not repeated in the scenario block");
  assert.match(reportToJson(r), /"whepHost": "\[::1\]:8889",\n {4}"serverVersion": "media 4\.2\.1",/);
  const md = reportToMarkdown(r);
  assert.ok(
    md.includes(
      "| WHEP host | `[::1]:8889` |\n| server version | media 4.2.1 |\n| plan | pro |\n| region | eu-west-1 |\n| permission | terms §7.3 (load tests on own account) |\n",
    ),
  );
  const without = buildReport(makeInput(healthyViewers(2)));
  assert.deepEqual(Object.keys(without.server), ["whipHost", "whepHost"]);
  assert.deepEqual(rankable(r, without, "fingerprint"), { ok: true }, "they do not take part in ranking");
});
