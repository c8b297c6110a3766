// The relay's own layer choice (docs/definitions.md#relay-layer-estimate): with the relay's
// layerEstimate, a simulcast leg whose viewer chose no layer takes the highest layer its transport
// feedback's estimate carries. A viewer behind a 30 % loss link (its cohort's emulated downlink,
// so its feedback reports the losses) is moved down by the relay; a clean one stays on h.
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseCohorts } from "../../src/core/link/parse.ts";
import { runThroughRelay } from "./harness.ts";

test("a leg whose feedback reports 30 % loss is moved down; a clean leg stays on the top layer", async (t) => {
  const cohorts = parseCohorts([{ name: "lossy", viewers: 1, down: { loss: "30%" }, seed: 7 }]);
  const { report: r } = await runThroughRelay(
    { layerEstimate: true },
    { simulcast: ["l", "m", "h"], viewers: 2, holdSeconds: 8, cohorts },
  );
  const viewers = r.viewers ?? [];
  assert.equal(viewers.length, 2);
  for (const v of viewers) {
    assert.equal(v.joined, true, `viewer ${v.id}`);
    const time = Object.fromEntries((v.layers ?? []).map((l) => [l.rid, l.timeMs]));
    t.diagnostic(`viewer ${v.id} (${v.cohort ?? "clean"}): ms on l ${time.l}, m ${time.m}, h ${time.h}`);
    // no viewer chose: no layer choice block, the moves are the relay's own
    assert.equal(v.layerChoice, undefined);
    if (v.cohort === "lossy") {
      assert.ok(
        (time.l ?? 0) + (time.m ?? 0) > 2000,
        `viewer ${v.id} was moved down: ${JSON.stringify(time)}`,
      );
    } else {
      assert.equal(time.l, 0, `clean viewer ${v.id} on l`);
      assert.equal(time.m, 0, `clean viewer ${v.id} on m`);
      assert.ok((time.h ?? 0) > 4000, `clean viewer ${v.id}: ${time.h} ms on h`);
    }
  }
});
