// Simulcast on agents (issue 41, docs/definitions.md#many-hosts): a coordinator (`run --agents 2`)
// publishes the layers to the built-in relay, two `whipbench agent` processes run the viewers. The
// layers' combined clip identity reaches the agents with the send log, their viewers' per-layer
// records come back, and the pooled per-layer delay is exactly the viewers' per-layer samples
// merged across both hosts. Choosing a layer on agents is refused (exit 2 naming the key).
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { LAYER_NO_FRAME } from "../../src/core/report/layer-delay.ts";
import type { Report } from "../../src/core/report/types.ts";
import { agentsFixture } from "./agents-fixture.ts";
import { cli, freePort, readReportPair } from "./cli-harness.ts";
import { shortScenario } from "./harness.ts";
import { checkReportKeys } from "./report-keys.ts";

const env = { WB_AGENT_TOKEN: "agent-token-SECRET" };
const fx = agentsFixture("agents-simulcast", env);

function scenarioFile(name: string, extra: Record<string, unknown> = {}): string {
  const file = join(fx.dir, `${name}.json`);
  const s = shortScenario(fx.base, {
    name,
    whip: `${fx.base}/${name}/whip`,
    whep: `${fx.base}/${name}/whep`,
  });
  writeFileSync(file, JSON.stringify({ ...s, bearerEnv: undefined, simulcast: ["l", "h"], ...extra }));
  return file;
}

const common = ["--token-env", "WB_AGENT_TOKEN"];

test("simulcast on two agents: per-layer delay pooled across hosts is the viewers' samples, exactly", async () => {
  const port = await freePort();
  const metrics = await freePort();
  const out = join(fx.dir, "sc");
  const listen = ["--coordinator-listen", `127.0.0.1:${port}`, "--agent-wait", "30"];
  const flags = [...listen, ...common, "--out", out, "--no-html", "--metrics", `127.0.0.1:${metrics}`];
  const c = fx.start(["run", scenarioFile("sc"), "--agents", "2", ...flags]);
  await c.waitForStderr("waiting up to");
  const agents = ["alpha", "beta"].map((name) =>
    fx.start([
      "agent",
      "--coordinator",
      `tcp://127.0.0.1:${port}`,
      "--workers",
      "1",
      ...common,
      "--name",
      name,
      "--out",
      join(fx.dir, name),
    ]),
  );
  // the agents' live layer pairs reach the coordinator's /metrics
  await Promise.all(agents.map((a) => a.waitForStderr("running 2 viewers")));
  await new Promise((r) => setTimeout(r, 2500));
  const scrape = await (await fetch(`http://127.0.0.1:${metrics}/metrics`)).text();
  const live = /^whipbench_layer_one_way_delay_seconds_count\{layer="h"\} (\d+)$/m.exec(scrape);
  assert.ok(Number(live?.[1] ?? 0) > 0, `live layer h delay count: ${live?.[0]}`);
  const [rc, ...ra] = await Promise.all([c.done, ...agents.map((a) => a.done)]);
  assert.equal(rc.code, 0, rc.stderr);
  for (const res of ra) assert.equal(res.code, 0, res.stderr);
  assert.ok(rc.stderr.includes("publishing vp8 simulcast (l, h)"), rc.stderr);
  const r = readReportPair(out).report as unknown as Report;
  assert.deepEqual(checkReportKeys(r).problems, []);
  assert.deepEqual(
    r.client.hosts?.map((h) => h.viewers),
    [2, 2],
  );
  const viewers = r.viewers ?? [];
  assert.equal(viewers.length, 4);
  for (const v of viewers) {
    assert.equal(v.joined, true, `viewer ${v.id} joined`);
    const [l, h] = v.layers ?? [];
    // the relay sends every viewer layer h (docs/definitions.md#relay-simulcast)
    assert.deepEqual(l, { rid: "l", samples: 0, timeMs: 0, reason: LAYER_NO_FRAME }, `viewer ${v.id}`);
    assert.ok((h?.samples ?? 0) > 30, `viewer ${v.id}: ${h?.samples} samples on h`);
    assert.equal(h?.samples, v.oneWayDelay[0]?.samples, `viewer ${v.id}: every sample is on h`);
  }
  const pooled = new Map((r.aggregate.layerDelay ?? []).map((p) => [p.rid, p]));
  for (const rid of ["l", "h"]) {
    const mine = viewers.map((v) => v.layers?.find((x) => x.rid === rid));
    const p = pooled.get(rid);
    assert.equal(
      p?.samples,
      mine.reduce((n, x) => n + (x?.samples ?? 0), 0),
      `${rid}: pooled samples are the sum of every host's viewers'`,
    );
    assert.equal(p?.viewers, mine.filter((x) => (x?.samples ?? 0) > 0).length, rid);
  }
  const h = pooled.get("h");
  const maxes = viewers.map((v) => v.layers?.[1]?.delayMs?.max ?? Number.NaN);
  assert.equal(h?.delayMs?.max, Math.max(...maxes), "h's pooled max is the largest viewer's: merged exactly");
  assert.equal(pooled.get("l")?.delayMs, undefined, "no frame of l: no figure, not a zero");
  const fp = r.aggregate.oneWayDelay[0];
  assert.equal(h?.samples, fp?.samples, "every pooled sample is on h");
});

test("choosing a layer on agents is refused: exit 2 naming layerSwitch", async () => {
  for (const extra of [
    { layerSwitch: { startRid: "l" } },
    { cohorts: [{ name: "low", viewers: 2, layer: "l" }] },
  ]) {
    const file = scenarioFile("refused", extra);
    const res = await cli(["run", file, "--agents", "2", ...common], { env, timeoutMs: 20_000 });
    assert.equal(res.code, 2, `${JSON.stringify(extra)}: ${res.stderr}`);
    assert.match(res.stderr, /layerSwitch: a run on agents does not choose layers yet/);
  }
});
