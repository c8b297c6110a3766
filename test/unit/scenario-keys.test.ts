// The one scenario key table (docs/definitions.md#scenario-keys) lists exactly the keys the parser
// reads, in its order, and each row's key is one the parser knows by name (issue 13: `workers`
// and `receivePath` were missing from the table; issue 34: the README's copy of it is gone).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { parseScenario, SCENARIO_KEYS } from "../../src/core/scenario-file/scenario.ts";
import { ROOT } from "./repo-files.ts";

const HEADER = "| key | type | default | what |";

/** The keys of the table under `### Scenario keys`, in the table's order. */
function documentedKeys(): string[] {
  const doc = readFileSync(join(ROOT, "docs/definitions.md"), "utf8");
  const section = doc.indexOf("\n### Scenario keys\n");
  assert.ok(section >= 0, "definitions.md has a Scenario keys section");
  const start = doc.indexOf(HEADER, section);
  assert.ok(start >= 0 && start < doc.indexOf("\n### ", section + 1), "the section holds the key table");
  const rows = doc.slice(start).split("\n\n")[0]?.split("\n").slice(2) ?? [];
  return rows.map((r) => /^\| `([A-Za-z]+)` \|/.exec(r)?.[1] ?? `unreadable row: ${r}`);
}

/** The keys the parser hands to parsers of their own (OBJECT_KEYS in scenario.ts, not exported). */
function objectKeys(): string[] {
  const src = readFileSync(join(ROOT, "src/core/scenario-file/scenario.ts"), "utf8");
  const block = /const OBJECT_KEYS[^{]*\{([^}]*)\}/.exec(src)?.[1];
  assert.ok(block !== undefined, "scenario.ts declares OBJECT_KEYS");
  return [...block.matchAll(/^\s*([A-Za-z]+):/gm)].map((m) => m[1] ?? "");
}

/** What the parser says of `key` given a value no key accepts (a list of lists). */
function complaint(key: string): string {
  const scenario = { whep: "http://127.0.0.1:1/s/whep", viewers: 1, holdSeconds: 1, [key]: [[]] };
  try {
    parseScenario(JSON.stringify(scenario));
  } catch (err) {
    return (err as Error).message;
  }
  return "accepted";
}

test("the scenario key table lists the parser's keys in its order, then the object keys", () => {
  const objects = objectKeys();
  assert.ok(objects.length >= 4, `found object keys ${objects.join(", ")}`);
  const documented = documentedKeys();
  const scalar = SCENARIO_KEYS.map(([k]) => k as string);
  assert.deepEqual(documented.slice(0, scalar.length), scalar);
  assert.deepEqual([...documented.slice(scalar.length)].sort(), [...objects].sort());
});

test("the parser knows every documented key by name and refuses one it does not", () => {
  assert.match(complaint("notAScenarioKey"), /unknown key "notAScenarioKey"/);
  for (const key of documentedKeys()) {
    const said = complaint(key);
    assert.ok(said.startsWith(`scenario: ${key}`), `${key}: ${said}`);
  }
});
