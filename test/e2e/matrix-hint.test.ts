// The matrix's DNF cell keeps a recipe's hint (issue 42): with Janus not installed, the Janus
// recipe's start.sh says which file to run, and the cell names it relative to the checkout while
// the redaction still removes endpoints, tokens, query strings and every other path. The real
// recipe runs, pointed (JANUS_LOCAL_DIR) at an empty folder in place of its .local/.
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { cli, tempDir } from "./cli-harness.ts";

const tmp = tempDir("matrix-hint");
after(() => tmp.remove());
const START = fileURLToPath(new URL("../../bench/servers/janus/start.sh", import.meta.url));

test("a Janus recipe that is not installed: the DNF cell names bench/servers/janus/install.sh", async () => {
  const empty = join(tmp.dir, "no-local");
  mkdirSync(empty);
  const file = join(tmp.dir, "janus.json");
  writeFileSync(
    file,
    JSON.stringify({
      healthTimeoutSeconds: 5,
      servers: [
        {
          name: "janus",
          whep: "http://127.0.0.1:1/whep/endpoint/h264?token=SECRET-T0KEN",
          // a second line with a path outside the checkout, a URL and a token: all still redacted
          start: `echo 'see ${tmp.dir}/x.log, http://127.0.0.1:7090/whep/endpoint/h264?k=1 token=abc'; JANUS_LOCAL_DIR='${empty}' '${START}'`,
        },
      ],
      scenarios: [
        { name: "s", scenario: { viewers: 1, rampSeconds: 0, holdSeconds: 2, loopbackOnly: true } },
      ],
    }),
  );
  const out = join(tmp.dir, "out");
  const r = await cli(["matrix", file, "--out", out], { timeoutMs: 30_000 });
  assert.equal(r.code, 3, r.stderr);
  const md = readFileSync(join(out, "matrix.md"), "utf8");
  const cell = md.split("\n").find((l) => l.startsWith("| janus |"));
  assert.equal(
    cell,
    "| janus | DNF: server janus did not start: the start command exited with 1 before the server was healthy" +
      " (commands run in the matrix file's directory); its output ended: see <path>, 127.0.0.1:7090 token=<redacted>" +
      " \\| janus-recipe: error: not installed: run bench/servers/janus/install.sh first |",
  );
  const json = readFileSync(join(out, "matrix.json"), "utf8");
  for (const text of [md, json, r.stderr, r.stdout]) {
    assert.doesNotMatch(text, /SECRET-T0KEN|whep\/endpoint|token=abc|no-local|\?k=1/);
  }
  // the console names the --out folder the user gave; the reports name no path outside the checkout
  for (const text of [md, json]) assert.ok(!text.includes(tmp.dir), "a path outside the checkout");
});
