// Simulcast on agents (issue 41, docs/definitions.md#many-hosts): a coordinator (`run --agents 2`)
// publishes the layers to the built-in relay, two `whipbench agent` processes run the viewers. The
// layers' combined clip identity reaches the agents with the send log, their viewers' per-layer
// records come back, and the pooled per-layer delay is exactly the viewers' per-layer samples
// merged across both hosts. The agents' viewers choose layers as local ones do (a forced switch l→h):
// their layer choice records come back with their instants on the coordinator's clock.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { LAYER_NO_FRAME } from "../../src/core/report/layer-delay.ts";
import type { Report } from "../../src/core/report/types.ts";
import { agentsFixture, runOnTwoAgents } from "./agents-fixture.ts";
import { freePort, readReportPair } from "./cli-harness.ts";
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

/** The clip's GOP (docs/definitions.md#simulcast-layers: keyframes every 30 frames at 30 fps), ms. */
const GOP_MS = 1000;

test("layer choice on two agents: every viewer switches l→h at 1 s, asks on the coordinator's clock", async () => {
  const layerSwitch = { startRid: "l", atSeconds: 1, rid: "h" };
  // every frame sampled: a join late on a busy machine still has l's frames before the switch
  const file = scenarioFile("ls", { layerSwitch, excludeFirstSeconds: 0 });
  const r = await runOnTwoAgents(fx, file, join(fx.dir, "ls"), common, "ls");
  assert.deepEqual(checkReportKeys(r).problems, []);
  assert.deepEqual(r.scenario.layerSwitch, layerSwitch);
  assert.deepEqual(
    // hosts stand in the order they connected, which either agent may win
    r.client.hosts
      ?.map((h) => [h.name, h.viewers, h.lost])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    [
      ["alpha", 2, undefined],
      ["beta", 2, undefined],
    ],
  );
  assert.equal(r.client.agentMessagesRejected, 0);
  const viewers = r.viewers ?? [];
  assert.equal(viewers.length, 4);
  for (const v of viewers) {
    assert.equal(v.joined, true, `viewer ${v.id} joined`);
    const c = v.layerChoice;
    assert.ok(c?.available, `viewer ${v.id}: the relay offered the extension (${c?.reason})`);
    assert.deepEqual(
      c.asks.map((a) => [a.rid, a.status]),
      [
        ["l", 200],
        ["h", 200],
      ],
    );
    // the agent's ask instants, rebased onto the coordinator's clock, keep their place after the POST
    const [askL, askH] = c.asks.map((a) => a.askedMs);
    assert.ok((askL ?? -1) >= 0 && (askL ?? 1e9) < 1000, `viewer ${v.id}: asked for l at ${askL} ms`);
    assert.ok((askH ?? -1) >= 1000 && (askH ?? 1e9) < 1500, `viewer ${v.id}: asked for h at ${askH} ms`);
    assert.equal(c.switches.length, 1, `viewer ${v.id}: ${JSON.stringify(c.switches)}`);
    const s = c.switches[0];
    assert.deepEqual([s?.from, s?.to, s?.askedMs], ["l", "h", askH], `viewer ${v.id}: ${JSON.stringify(s)}`);
    // at most one GOP (the relay's PLI may miss the keyframe on request) and a round trip to the relay,
    // which the viewer measured as its WHEP exchange
    const ms = s?.switchMs ?? Number.NaN;
    const bound = GOP_MS + (v.signallingMs ?? Number.NaN);
    assert.ok(ms > 0 && ms <= bound, `viewer ${v.id}: switch ${ms} ms, bound ${bound} ms`);
    const [l, h] = v.layers ?? [];
    assert.ok((l?.samples ?? 0) > 0 && (h?.samples ?? 0) > 0, `viewer ${v.id}: ${JSON.stringify(v.layers)}`);
  }
  // the pooled switches are every host's viewers' switches
  const pooled = r.aggregate.layerSwitches;
  const mine = viewers.flatMap((v) => v.layerChoice?.switches ?? []);
  assert.equal(pooled?.viewers, 4);
  assert.equal(pooled?.withExtension, 4);
  assert.equal(pooled?.asked, mine.length);
  assert.equal(pooled?.reached, mine.filter((s) => s.switchMs !== null).length);
  assert.equal(pooled?.reached, 4);
  assert.equal(pooled?.unasked, 0);
  assert.equal(pooled?.switchMs?.max, Math.max(...mine.map((s) => s.switchMs ?? Number.NaN)));
});
