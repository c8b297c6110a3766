// Layer choice and switches (docs/definitions.md#layer-switches): the scenario key `layerSwitch`
// and its errors, the answer's Link header, a viewer's switches from its stays and asks, the
// driver's "unavailable" without the extension, and the pooled block and Markdown section.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Command } from "commander";
import { monoNs } from "../../src/core/clock/clock.ts";
import { LayerStays } from "../../src/core/delay/layer-stays.ts";
import { type LayerAsk, layerSwitches } from "../../src/core/delay/layer-switches.ts";
import { layersSection } from "../../src/core/report/html-layers.ts";
import {
  pooledLayerSwitches,
  type ViewerLayerChoice,
  viewerLayerChoice,
} from "../../src/core/report/layer-choice.ts";
import { layersMarkdown, pooledLayerText } from "../../src/core/report/markdown-layers.ts";
import type { Report } from "../../src/core/report/types.ts";
import { parseScenario } from "../../src/core/scenario-file/scenario.ts";
import { linkRels, WHEP_LAYER_REL, WHEP_SSE_REL } from "../../src/core/wire/link-header.ts";
import { addRunKeyOptions } from "../../src/main/cli/scenario-flags.ts";
import { applyKeyFlags } from "../../src/main/run/run-inputs.ts";
import { layersOf } from "../../src/net/whep-ext.ts";
import { LayerDriver } from "../../src/workers/viewer/layer-driver.ts";
import { makeScenario } from "./report-fixtures.ts";

const BASE = {
  whip: "http://127.0.0.1:1/s/whip",
  whep: "http://127.0.0.1:1/s/whep",
  viewers: 1,
  holdSeconds: 1,
  simulcast: ["l", "h"],
};
const parse = (layerSwitch: unknown, over: object = {}) =>
  parseScenario(JSON.stringify({ ...BASE, ...over, layerSwitch }));
const refused = (layerSwitch: unknown, message: string, over: object = {}) =>
  assert.throws(() => parse(layerSwitch, over), { message: `scenario: ${message}` });

describe("scenario key layerSwitch", () => {
  test("run's --layer-switch sets it: l, l:2s:h or :2s:h; a bad value names the flag", () => {
    const flags = (argv: string[]) => {
      const c = addRunKeyOptions(new Command().exitOverride()).action(() => {});
      c.parse(argv, { from: "user" });
      return c.opts<{ layerSwitch?: object }>();
    };
    assert.deepEqual(flags(["--layer-switch", "l:2s:h"]).layerSwitch, {
      startRid: "l",
      atSeconds: 2,
      rid: "h",
    });
    assert.deepEqual(flags(["--layer-switch", "m"]).layerSwitch, { startRid: "m" });
    assert.deepEqual(flags(["--layer-switch", ":1500ms:l"]).layerSwitch, { atSeconds: 1.5, rid: "l" });
    const bad = (v: string, message: string) =>
      assert.throws(() => flags(["--layer-switch", v]), { message: `--layer-switch: ${message}` });
    bad("l:2s", "want <startRid>, <startRid>:<duration>:<rid> or :<duration>:<rid>, e.g. l:2s:h");
    bad("l:2s:x", "the switch's layer is not one of l, m, h");
    bad("q", "the start layer is not one of l, m, h");
    bad("l:2:h", "want a duration such as 300ms, 10s or 1m30s");
    bad("h:2s:h", "rid is the layer it starts on");
    const spec = { startRid: "l", atSeconds: 2, rid: "h" };
    const { scenario, set } = applyKeyFlags(makeScenario(1), { layerSwitch: spec });
    assert.deepEqual([scenario.layerSwitch, set], [spec, ["layerSwitch"]]);
  });

  test("a start layer, a switch, or both", () => {
    const both = { startRid: "l", atSeconds: 2, rid: "h" };
    assert.deepEqual(parse(both).layerSwitch, both);
    assert.deepEqual(parse({ startRid: "h" }).layerSwitch, { startRid: "h" });
    assert.deepEqual(parse({ atSeconds: 0.5, rid: "l" }).layerSwitch, { atSeconds: 0.5, rid: "l" });
  });

  test("bad values exit 2 with a message naming the key", () => {
    const want = 'want an object {"startRid", "atSeconds", "rid"} naming layers l, m, h';
    refused("h", `layerSwitch: ${want}`);
    refused({ startRid: "x" }, `layerSwitch: startRid is not a layer (${want})`);
    refused({ rid: "h" }, "layerSwitch: atSeconds and rid come together");
    refused(
      { atSeconds: 0, rid: "h" },
      "layerSwitch: atSeconds must be a number of seconds above 0 and at most 3600",
    );
    refused(
      { atSeconds: "2", rid: "h" },
      "layerSwitch: atSeconds must be a number of seconds above 0 and at most 3600",
    );
    refused({}, "layerSwitch: name startRid, or atSeconds and rid");
    refused({ startRid: "h", atSeconds: 1, rid: "h" }, "layerSwitch: rid is the layer it starts on");
    refused({ startRid: "l", when: 1 }, `layerSwitch: unknown key "when" (${want})`);
    refused({ startRid: "m" }, 'layerSwitch: startRid "m" is not one of the simulcast layers (l, h)');
    refused({ startRid: "l" }, "layerSwitch needs simulcast (the layers to choose from)", {
      simulcast: false,
    });
  });
});

test("the answer's Link header: each rel's URL, resolved against the WHEP URL, commas in quotes kept", () => {
  const rels = linkRels(
    `</session/v1/sse>; rel="${WHEP_SSE_REL}"; events="layers,viewercount", <https://x.example/l>; rel=${WHEP_LAYER_REL}, <stun:s.example>; rel="ice-server"`,
    "http://127.0.0.1:8080/s/whep?token=t",
  );
  assert.equal(rels.get(WHEP_SSE_REL), "http://127.0.0.1:8080/session/v1/sse");
  assert.equal(rels.get(WHEP_LAYER_REL), "https://x.example/l");
  assert.equal(rels.get("ice-server"), "stun:s.example");
  assert.equal(linkRels(null, "http://a/").size, 0);
  assert.deepEqual(layersOf('{"0":{"layers":[{"encodingId":"l"},{"encodingId":"h"},{"encodingId":"h"}]}}'), [
    "l",
    "h",
  ]);
  assert.equal(layersOf("not json"), null);
});

const MS = 1e6;

/** Frames of `layer` every 33 ms from `fromMs` (timestamps one frame apart), the first a keyframe. */
function feed(
  s: LayerStays,
  layer: number,
  fromMs: number,
  frames: number,
  firstTs: number,
  key = true,
): void {
  for (let i = 0; i < frames; i++) s.frame(layer, (fromMs + 33 * i) * MS, firstTs + 3000 * i, key && i === 0);
}

describe("a viewer's switches", () => {
  test("an asked switch: from the ask to the new layer's first keyframe, no frame lost", () => {
    const s = new LayerStays(2);
    feed(s, 0, 0, 30, 0);
    // the ask at 900 ms; h's first frame (a delta one, not decodable) at 1000 ms, its keyframe at 1033 ms
    s.frame(1, 1000 * MS, 30 * 3000, false);
    s.frame(1, 1033 * MS, 31 * 3000, true);
    const asks: LayerAsk[] = [{ rid: "h", atNs: 900 * MS, status: 200 }];
    assert.deepEqual(layerSwitches(s.list(), asks, ["l", "h"], 3000), [
      { from: "l", to: "h", askedNs: 900 * MS, switchNs: 133 * MS, framesLost: 0 },
    ]);
  });

  test("frames lost across a switch, a server's unasked switch, and an ask never answered", () => {
    const s = new LayerStays(2);
    feed(s, 0, 0, 10, 0);
    feed(s, 1, 400, 10, 12 * 3000); // two frames missing (10 and 11)
    feed(s, 0, 800, 5, 22 * 3000);
    const asks: LayerAsk[] = [
      { rid: "h", atNs: 300 * MS, status: 200 },
      { rid: "h", atNs: 900 * MS, status: 200 },
      { rid: "h", atNs: 950 * MS, status: 0, error: "no answer" },
    ];
    assert.deepEqual(layerSwitches(s.list(), asks, ["l", "h"], 3000), [
      { from: "l", to: "h", askedNs: 300 * MS, switchNs: 100 * MS, framesLost: 2 },
      { from: "h", to: "l", askedNs: null, switchNs: null, framesLost: 0 },
      { from: "l", to: "h", askedNs: 900 * MS, switchNs: null, framesLost: null },
    ]);
    assert.deepEqual(s.timesNs(), [400 * MS + 4 * 33 * MS, 400 * MS]);
  });

  test("a start ask the first frames already answer is no switch", () => {
    const s = new LayerStays(2);
    feed(s, 0, 100, 5, 0);
    assert.deepEqual(
      layerSwitches(s.list(), [{ rid: "l", atNs: 10 * MS, status: 200 }], ["l", "h"], 3000),
      [],
    );
  });

  test("a start ask replaced by the switch before the first frame is no switch; no frames, no switches", () => {
    const s = new LayerStays(2);
    feed(s, 1, 2500, 5, 0);
    const asks: LayerAsk[] = [
      { rid: "l", atNs: 900 * MS, status: 200 },
      { rid: "h", atNs: 2000 * MS, status: 200 },
    ];
    assert.deepEqual(layerSwitches(s.list(), asks, ["l", "h"], 3000), []);
    assert.deepEqual(layerSwitches([], asks, ["l", "h"], 3000), []);
    // the switch asked for last and never reached
    assert.deepEqual(
      layerSwitches(s.list(), [{ rid: "l", atNs: 2600 * MS, status: 200 }], ["l", "h"], 3000),
      [{ from: "h", to: "l", askedNs: 2600 * MS, switchNs: null, framesLost: null }],
    );
  });
});

test("without the extension the choice is unavailable, and the report says why", async () => {
  const stop = new AbortController();
  const d = new LayerDriver({ startRid: "l" }, null, "http://127.0.0.1:1/whep", monoNs(), {
    bearer: undefined,
    stop: stop.signal,
  });
  await d.end();
  const rec = d.record(null, ["l", "h"], 3000);
  assert.deepEqual(rec, { asks: [], switches: [], reason: "the server offered no layer extension" });
  const block = viewerLayerChoice({ layerChoice: rec, postMonoNs: 0 });
  assert.deepEqual(block, {
    available: false,
    reason: "the server offered no layer extension",
    asks: [],
    switches: [],
  });
  const pooled = pooledLayerSwitches(block === undefined ? [] : [block]);
  assert.equal(pooled?.reason, "the server offered no layer extension");
  assert.equal(pooled?.withExtension, 0);
  assert.equal(pooled !== undefined && "switchMs" in pooled, false, "no switch time, not a zero");
});

test("the Markdown and HTML sections: pooled switch times and one row per switch, or why unavailable", () => {
  const block = viewerLayerChoice({
    postMonoNs: 1000 * MS,
    layerChoice: {
      asks: [{ rid: "h", atNs: 3000 * MS, status: 200 }],
      switches: [{ from: "l", to: "h", askedNs: 3000 * MS, switchNs: 150 * MS, framesLost: 0 }],
    },
  });
  assert.ok(block !== undefined);
  const report = (b: ViewerLayerChoice) =>
    ({
      scenario: { layerSwitch: { startRid: "l", atSeconds: 2, rid: "h" } },
      aggregate: { layerSwitches: pooledLayerSwitches([b]) },
      viewers: [{ id: 0, layerChoice: b }],
    }) as unknown as Report;
  const md = layersMarkdown(report(block)).join("\n");
  assert.match(md, /Viewers' layer choice: start l, h at 2 s\./);
  assert.match(md, /\| ask → new layer's first keyframe \| 1 \| 150\.0 ms \|/);
  assert.match(md, /\| 0 \| l \| h \| 2000\.0 ms \| 150\.0 ms \| 0 \|/);
  assert.match(layersSection(report(block)), /<td class="num">150\.0 ms<\/td>/);
  const none: ViewerLayerChoice = {
    available: false,
    reason: "the server offered no layer extension",
    asks: [],
    switches: [],
  };
  assert.match(
    layersMarkdown(report(none)).join("\n"),
    /Unavailable, because the server offered no layer extension\./,
  );
  assert.match(layersSection(report(none)), /Unavailable, because the server offered no layer extension\./);
});

test("pooled frames lost: the sum over the switches that measured it; absent and unavailable when none did", () => {
  const sw = (framesLost: number | null) => ({
    from: "l",
    to: "h",
    askedMs: 100,
    switchMs: null,
    framesLost,
  });
  const block = (fl: (number | null)[]): ViewerLayerChoice => ({
    available: true,
    asks: [],
    switches: fl.map(sw),
  });
  const measured = pooledLayerSwitches([block([2, null]), block([1])]);
  assert.equal(measured?.framesLost, 3);
  assert.match(pooledLayerText(measured!), /; 3 frames lost across them\.$/);
  const none = pooledLayerSwitches([block([null]), block([])]);
  assert.ok(none !== undefined && !("framesLost" in none), "no 0 for a figure never measured");
  assert.match(
    pooledLayerText(none),
    /frames lost across them unavailable, because no switch's loss was measured/,
  );
});
