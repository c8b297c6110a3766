// The codec a `view` reports (src/core/report/view-codec.ts, docs/definitions.md#view): what its
// viewers negotiated, "mixed" when they differ, none when no viewer got a track.
import assert from "node:assert/strict";
import { test } from "node:test";
import { reportScenario } from "../../src/core/report/build.ts";
import { scenarioText } from "../../src/core/report/markdown-cells.ts";
import { negotiatedCodec, viewScenario } from "../../src/core/report/view-codec.ts";
import type { Scenario } from "../../src/core/scenario/types.ts";

const s: Scenario = {
  whep: "http://127.0.0.1:1/whep",
  codec: "vp8",
  viewers: 3,
  rampSeconds: 0,
  holdSeconds: 1,
};

test("all viewers on one codec: that codec, not the scenario default", () => {
  assert.equal(negotiatedCodec(["h264", undefined, "h264"]), "h264");
  assert.equal(viewScenario(s, ["h264", "h264"]).codec, "h264");
  assert.equal(s.codec, "vp8", "the run's own scenario is not changed");
});

test("viewers on two codecs: mixed", () => {
  assert.equal(negotiatedCodec(["vp8", "h264", "vp8"]), "mixed");
  assert.match(scenarioText(reportScenario(viewScenario(s, ["vp8", "h264"]))), /codec mixed$/);
});

test("no viewer negotiated a track: no codec key, and the header says so", () => {
  assert.equal(negotiatedCodec([undefined, ""]), undefined);
  const r = reportScenario(viewScenario(s, [undefined]));
  assert.equal("codec" in r, false);
  assert.match(scenarioText(r), /codec none negotiated$/);
});
