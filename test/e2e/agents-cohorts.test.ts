// Cohorts on agents (docs/definitions.md#many-hosts, docs/definitions.md#cohorts): a coordinator
// (`run --agents 2`) publishes to the built-in relay, two `whipbench agent` processes run the
// viewers. Each viewer's cohort is the one a local run of the same scenario gives its id
// (assignCohorts over the scenario's viewers): a cohort given as a count is not taken once per
// agent, and a share is spread over the run's ids, not over each agent's share.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { assignCohorts } from "../../src/core/link/assign.ts";
import { decodeScenario } from "../../src/core/scenario-file/scenario.ts";
import { agentsFixture, runOnTwoAgents } from "./agents-fixture.ts";
import { shortScenario } from "./harness.ts";
import { checkReportKeys } from "./report-keys.ts";

const env = { WB_AGENT_TOKEN: "agent-token-SECRET" };
const fx = agentsFixture("agents-cohorts", env);
const common = ["--token-env", "WB_AGENT_TOKEN"];

const VIEWERS = 6;
// a tiny delay keeps the link emulator cheap; the assignment is what is checked
const COHORTS = [
  { name: "a", viewers: 2, down: { delay: "1ms" } },
  { name: "b", share: 0.5, down: { delay: "1ms" } },
];

test("cohorts on two agents: every viewer has the cohort a local run gives its id", async () => {
  const file = join(fx.dir, "co.json");
  const s = shortScenario(fx.base, { name: "co", whip: `${fx.base}/co/whip`, whep: `${fx.base}/co/whep` });
  const text = JSON.stringify({ ...s, bearerEnv: undefined, viewers: VIEWERS, cohorts: COHORTS });
  writeFileSync(file, text);
  const r = await runOnTwoAgents(fx, file, join(fx.dir, "co"), common, "co");
  assert.deepEqual(checkReportKeys(r).problems, []);
  assert.deepEqual(
    r.client.hosts?.map((h) => h.viewers),
    [3, 3],
  );
  // what a local run of the same file assigns
  const local = assignCohorts(decodeScenario(text).cohorts ?? [], VIEWERS);
  const nameOf = (g: number) => COHORTS[g]?.name ?? "unimpaired";
  const viewers = [...(r.viewers ?? [])].sort((x, y) => x.id - y.id);
  assert.deepEqual(
    viewers.map((v) => v.id),
    [0, 1, 2, 3, 4, 5],
  );
  for (const v of viewers) assert.equal(v.joined, true, `viewer ${v.id} joined`);
  assert.deepEqual(
    viewers.map((v) => v.cohort ?? "unimpaired"),
    local.map(nameOf),
    "each viewer's cohort is the local run's for its id",
  );
  const expected = ["a", "b", "unimpaired"].map((name) => {
    const n = local.filter((g) => nameOf(g) === name).length;
    return { name, viewers: n, joined: n };
  });
  assert.deepEqual(
    expected.map((e) => e.viewers),
    [2, 2, 2],
    "the local sizes: 2 by count, half the rest",
  );
  assert.deepEqual(
    (r.aggregate.cohorts ?? []).map((g) => ({ name: g.name, viewers: g.viewers, joined: g.joined })),
    expected,
  );
});
