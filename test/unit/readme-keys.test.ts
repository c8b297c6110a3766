// Every scenario key is documented in the README's key table (issue 13: `workers` and
// `receivePath` were not), and the table names no key the parser does not know.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { SCENARIO_KEYS } from "../../src/core/scenario/scenario.ts";

test("the README's scenario key table lists exactly the parser's keys, in its order", () => {
  const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
  const start = readme.indexOf("| key | type | default | what |");
  assert.ok(start >= 0, "the README has a scenario key table");
  const rows = readme.slice(start).split("\n\n")[0]?.split("\n").slice(2) ?? [];
  const documented = rows.map((r) => /^\| `([A-Za-z]+)` \|/.exec(r)?.[1] ?? `unreadable row: ${r}`);
  assert.deepEqual(
    documented,
    SCENARIO_KEYS.map(([k]) => k),
  );
});
