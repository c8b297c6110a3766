// What the method lines say about the publisher (issue 11): a `view` of someone else's stream
// (GStreamer, a browser …) must not describe this tool's clip — a fixed 1 s GOP that cannot
// answer PLI — as if it were the publisher's; a run that published, or a view that followed
// a `whipbench publish` send log, still does.
import assert from "node:assert/strict";
import { test } from "node:test";
import { buildReport } from "../../src/core/report/build.ts";
import type { ReportInput } from "../../src/core/report/input.ts";
import { reportToMarkdown } from "../../src/core/report/markdown.ts";
import { healthyViewers, makeInput, makeScenario } from "./report-fixtures.ts";

/** A claim about the publisher's clip: its GOP, PLI, or "the loop". */
const CLIP_CLAIM = /publisher's clip|1 s GOP|cannot answer PLI|in the loop/;

function viewInput(hasSendLog: boolean): ReportInput {
  const input = makeInput(healthyViewers(2), {
    command: "view",
    topology: "split",
    hasSendLog,
    clock: { method: "none", stepDetected: false },
    scenario: makeScenario(2, { whip: "" }),
  });
  const { publisher: _p, ...view } = input;
  return view;
}

test("a view of a foreign publisher claims nothing about its clip; a run still describes its own", () => {
  const view = buildReport(viewInput(false));
  const claims = view.method.filter((l) => CLIP_CLAIM.test(l));
  assert.deepEqual(claims, [], "a view without a send log knows nothing of the publisher's clip");
  const keyframe = view.method.find((l) => l.startsWith("Keyframe interval:"));
  assert.ok(keyframe, "the keyframe-interval definition stays");
  assert.match(keyframe, /not known here/);
  assert.doesNotMatch(reportToMarkdown(view), CLIP_CLAIM);

  const run = buildReport(makeInput(healthyViewers(2)));
  assert.ok(
    run.method.some((l) =>
      /publisher's clip has a fixed 1 s GOP, and the publisher answers a PLI or FIR/.test(l),
    ),
    "a run that published knows its clip",
  );
  const off = buildReport(
    makeInput(healthyViewers(2), { scenario: { ...makeScenario(2), keyframeOnRequest: false } }),
  );
  assert.ok(
    off.method.some((l) => /fixed 1 s GOP and this run's publisher ignores PLI and FIR/.test(l)),
    "a run with keyframeOnRequest false says its publisher ignored the requests",
  );
  // a view that followed `whipbench publish`'s send log knows the clip too
  const followed = buildReport(viewInput(true));
  assert.ok(followed.method.some((l) => /publisher's clip has a fixed 1 s GOP/.test(l)));
});
