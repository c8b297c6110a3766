// Simulcast's scenario key, run flag, report and matcher (docs/definitions.md#simulcast-publisher):
// `simulcast` true or a list of rids, refused without whip; the report carries it, says how it was
// measured, and reports with and without it are not ranked; the matcher steps a layered log's k by
// the number of layers per frame and takes the layer from the frame's index.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Command } from "commander";
import { Matcher, type MatchOutcome } from "../../src/core/delay/matcher.ts";
import { SendLog } from "../../src/core/delay/sendlog.ts";
import { buildReport } from "../../src/core/report/build.ts";
import { rankable } from "../../src/core/report/comparability.ts";
import { reportToJson } from "../../src/core/report/json.ts";
import { parseScenario } from "../../src/core/scenario-file/scenario.ts";
import { addRunKeyOptions } from "../../src/main/cli/scenario-flags.ts";
import { applyKeyFlags } from "../../src/main/run/run-inputs.ts";
import { healthyViewers, makeInput, makeScenario } from "./report-fixtures.ts";

const BASE = {
  whip: "http://127.0.0.1:1/s/whip",
  whep: "http://127.0.0.1:1/s/whep",
  viewers: 1,
  holdSeconds: 1,
};
const parse = (simulcast: unknown) => parseScenario(JSON.stringify({ ...BASE, simulcast }));
const refused = (simulcast: unknown, message: string) =>
  assert.throws(() => parse(simulcast), { message: `scenario: ${message}` });

describe("scenario key simulcast", () => {
  test("true is every embedded layer; a list its rids, lowest first; false none", () => {
    assert.deepEqual(parse(true).simulcast, ["l", "m", "h"]);
    assert.deepEqual(parse(["h", "l"]).simulcast, ["l", "h"]);
    assert.equal("simulcast" in parse(false), false);
    assert.equal("simulcast" in parseScenario(JSON.stringify(BASE)), false);
  });

  test("bad values exit 2 with a message naming the key", () => {
    refused("h", "simulcast: want true, false or a list of rids (l, m, h)");
    refused(["h", "x"], "simulcast: item 1 is not a layer (want true, false or a list of rids (l, m, h))");
    refused(["h", "h"], 'simulcast: layer "h" is named twice');
    refused(["h"], "simulcast: name at least two layers");
    assert.throws(() => parseScenario(JSON.stringify({ ...BASE, whip: undefined, simulcast: true })), {
      message: "scenario: simulcast needs whip (the run publishes the layers)",
    });
  });

  test("run's --simulcast sets the key: alone every layer, with a list those; a bad rid names the flag", () => {
    const flags = (argv: string[]) => {
      const c = addRunKeyOptions(new Command().exitOverride()).action(() => {});
      c.parse(argv, { from: "user" });
      return c.opts<{ simulcast?: string[] }>();
    };
    assert.deepEqual(flags(["--simulcast"]).simulcast, ["l", "m", "h"]);
    assert.deepEqual(flags(["--simulcast", "m,h"]).simulcast, ["m", "h"]);
    assert.equal(flags([]).simulcast, undefined);
    assert.throws(() => flags(["--simulcast", "m,q"]), {
      message: "--simulcast: item 1 is not a layer (want a comma list of l, m, h)",
    });
    assert.throws(() => flags(["--simulcast", "m"]), { message: "--simulcast: name at least two layers" });
    const { scenario, set } = applyKeyFlags(makeScenario(1), { simulcast: ["l", "h"] });
    assert.deepEqual([scenario.simulcast, set], [["l", "h"], ["simulcast"]]);
  });
});

describe("a simulcast report", () => {
  const plain = () => buildReport(makeInput(healthyViewers(2)));
  const layered = () =>
    buildReport(makeInput(healthyViewers(2), { scenario: makeScenario(2, { simulcast: ["l", "m", "h"] }) }));

  test("records the layers in its scenario and a method line", () => {
    const r = layered();
    assert.deepEqual(r.scenario.simulcast, ["l", "m", "h"]);
    assert.match(reportToJson(r), /"simulcast": \[\n {6}"l",/);
    assert.ok(r.method.some((m) => m.startsWith("Simulcast: the publisher sends 3 layers (rids l, m, h")));
    assert.ok(!plain().method.some((m) => m.startsWith("Simulcast:")));
  });

  test("is not ranked against one without simulcast, nor one with other layers", () => {
    assert.deepEqual(rankable(plain(), layered(), "fingerprint"), {
      ok: false,
      reason: "scenarios differ on simulcast",
    });
    const two = buildReport(
      makeInput(healthyViewers(2), { scenario: makeScenario(2, { simulcast: ["l", "h"] }) }),
    );
    assert.equal(rankable(two, layered(), "fingerprint").ok, false);
    assert.deepEqual(rankable(layered(), layered(), "fingerprint"), { ok: true });
  });
});

describe("matcher over a layered log", () => {
  // 3 layers of 10 frames: layer j's frame of absolute frame f is k = 3f + j, index 10j + f mod 10
  const N = 10;
  const TICKS = 3000;
  const at = (f: number, j: number) => 1e15 + f * 33e6 + j * 1e3;
  const T = 1e15 + 1e12;
  function logUpTo(l: SendLog, from: number, to: number): void {
    for (let f = from; f <= to; f++)
      for (let j = 0; j < 3; j++) l.record(3 * f + j, at(f, j), N * j + (f % N));
  }
  const want = (m: Matcher, i: number, ts: number, outcome: MatchOutcome) =>
    assert.equal(m.match(i, ts, T), outcome, `match(${i}, ${ts})`);

  test("a frame on another layer is matched to its own k; a layer's frame a loop too new is aliased", () => {
    const l = SendLog.create(3 * N);
    logUpTo(l, 0, 39);
    const m = new Matcher(l, 3 * N, TICKS, 3);
    want(m, 2 * N + 5, 1000, "sampled"); // layer h, f 35: k 107
    assert.equal(m.anchorK, 107);
    assert.equal(m.delayNs, T - at(35, 2));
    // layer m's index 16 one frame on (f 36): its own k, 3·36 + 1
    want(m, N + 6, 1000 + TICKS, "sampled");
    assert.equal(m.anchorK, 109);
    assert.equal(m.delayNs, T - at(36, 1));
    logUpTo(l, 40, 49);
    // layer h's index 29 three frames on (f 39): its latest send is f 49's, a loop too new
    want(m, 2 * N + 9, 1000 + 4 * TICKS, "aliased");
    assert.equal(m.anchorK, 109);
  });

  test("read as one layer, the same log takes the loop-old send as a sample", () => {
    const l = SendLog.create(3 * N);
    logUpTo(l, 0, 39);
    const m = new Matcher(l, 3 * N, TICKS);
    want(m, 2 * N + 5, 1000, "sampled");
    logUpTo(l, 40, 49);
    want(m, 2 * N + 9, 1000 + 4 * TICKS, "sampled");
  });
});
