// Messages read as this TypeScript tool's own (issue 13): a scenario type error names the key,
// the value and what is wanted, not Go's "json: cannot unmarshal … into Go struct field …";
// counts agree with their nouns ("1 worker thread").

import assert from "node:assert/strict";
import { test } from "node:test";
import { ScenarioError } from "../../src/core/errors.ts";
import { resourcesText } from "../../src/core/report/markdown-cells.ts";
import { parseScenario } from "../../src/core/scenario-file/scenario.ts";

const WHEP = "http://127.0.0.1:8889/s/whep";

function message(text: string): string {
  try {
    parseScenario(text);
  } catch (err) {
    assert.ok(err instanceof ScenarioError);
    return err.message;
  }
  throw new Error("accepted");
}

test("a scenario type error names the key, the value and the wanted type", () => {
  const m = message(`{"whep":"${WHEP}","viewers":"ten","holdSeconds":5}`);
  assert.equal(m, "scenario: viewers: got a string, want an integer");
  assert.doesNotMatch(m, /json:|Go struct|unmarshal/);
  assert.equal(
    message(`{"whep":"${WHEP}","viewers":2.5,"holdSeconds":5}`),
    "scenario: viewers: got 2.5, want an integer",
  );
  assert.equal(
    message(`{"whep":"${WHEP}","viewers":2,"holdSeconds":5,"loopbackOnly":"yes"}`),
    "scenario: loopbackOnly: got a string, want true or false",
  );
  assert.equal(
    message(`{"whep":"${WHEP}","viewers":2,"holdSeconds":5,"viewer":1}`),
    'scenario: unknown key "viewer"',
  );
  assert.equal(message("[1]"), "scenario: got an array, want a JSON object of scenario keys");
});

test("one worker thread is singular in the report", () => {
  const text = resourcesText({ peakHeapBytes: 1 << 20, peakRssBytes: 1 << 20, workers: 1 });
  assert.match(text, /, 1 worker thread[ ,]/);
  assert.match(
    resourcesText({ peakHeapBytes: 1 << 20, peakRssBytes: 1 << 20, workers: 3 }),
    /3 worker threads/,
  );
});
