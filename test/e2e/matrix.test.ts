// `whipbench matrix` (issue 14): a 2 × 2 matrix over two built-in relays with different fault
// knobs (one in this process, one started by the matrix's start command with --lose-every), each
// cell's report and the table, then a second call in the same --out resumes: only the cell whose
// run is missing runs again.
import assert from "node:assert/strict";
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Relay } from "../../src/main/relay/relay.ts";
import { BIN, cli, freePort, tempDir } from "./cli-harness.ts";

const tmp = tempDir("matrix");
after(() => tmp.remove());

const scenario = (viewers: number) => ({
  viewers,
  rampSeconds: 0,
  holdSeconds: 6,
  warmupSeconds: 0.3,
  joinTimeoutSeconds: 5,
  excludeFirstSeconds: 0,
  loopbackOnly: true,
});

describe("whipbench matrix (2 × 2 over built-in relays)", () => {
  let relay: Relay;
  let base = "";
  let lossyPort = 0;
  before(async () => {
    relay = new Relay({ ice: { loopbackOnly: true, includeLoopback: false } });
    base = await relay.listen("127.0.0.1", 0);
    lossyPort = await freePort();
  });
  after(async () => {
    await relay.close();
  });

  test("runs every cell, writes the table, and resumes", async () => {
    const lossy = `http://127.0.0.1:${lossyPort}`;
    const matrixFile = join(tmp.dir, "matrix.json");
    writeFileSync(
      matrixFile,
      JSON.stringify({
        name: "relays",
        figure: "nacks",
        repeats: 1,
        servers: [
          { name: "clean", whip: `${base}/m/whip`, whep: `${base}/m/whep` },
          {
            name: "lossy",
            whip: `${lossy}/m/whip`,
            whep: `${lossy}/m/whep`,
            start: `'${process.execPath}' '${BIN}' relay --listen 127.0.0.1:${lossyPort} --lose-every 50`,
          },
        ],
        scenarios: [
          { name: "2 viewers", scenario: scenario(2) },
          { name: "3 viewers", scenario: scenario(3) },
        ],
      }),
    );
    const out = join(tmp.dir, "out");
    const first = await cli(["matrix", matrixFile, "--out", out], { timeoutMs: 120_000 });
    assert.equal(first.code, 0, first.stderr);
    const md = readFileSync(join(out, "matrix.md"), "utf8");
    assert.match(md, /^# relays\n/);
    assert.match(md, /\| \| 2 viewers \| 3 viewers \|\n\|---\|---\|---\|\n/);
    // On this shared 2-core machine a repeat may find its client near its own ceiling; then it
    // is not comparable and its cell says so instead of a figure. Either way the cell's form is
    // one of the two, and matrix.json says which, with the reason.
    const CELL = String.raw`(?:(\d+) \(1 of 1 comparable\)|not comparable \(0 of 1 repeats\))`;
    const row = (server: string) =>
      new RegExp(
        String.raw`\| ${server} \| ${CELL} · \[r1\]\(${server}\/2-viewers\/r1\/whipbench-[^)]+\.md\) \| ${CELL} · \[r1\]\(${server}\/3-viewers\/r1\/`,
      );
    assert.match(md, row("clean"), md);
    assert.match(md, row("lossy"), md);
    assert.match(
      readFileSync(join(out, "matrix.html"), "utf8"),
      /<th>lossy<\/th><td class="(?:ok|nc)">(?:\d+ \(1 of 1 comparable\)|not comparable \(0 of 1 repeats\))<br><small><a href="lossy\/2-viewers\/r1\/whipbench-/,
    );
    const cells = ["clean/2-viewers", "clean/3-viewers", "lossy/2-viewers", "lossy/3-viewers"].map((c) =>
      join(out, c, "r1", "cell.json"),
    );
    for (const c of cells) assert.ok(existsSync(c), c);
    // each outcome says whether it may be ranked (the reason when not); each cell how many were
    const mj = JSON.parse(readFileSync(join(out, "matrix.json"), "utf8")) as {
      outcomes: {
        server: string;
        comparable: boolean;
        notComparableReason?: string;
        value?: { value: number };
      }[];
      cells: { comparable: number; repeats: number }[];
    };
    for (const o of mj.outcomes) {
      if (!o.comparable) assert.match(o.notComparableReason ?? "", /^the client was near its own ceiling \(/);
      else assert.equal(o.notComparableReason, undefined);
    }
    assert.deepEqual(
      mj.cells.map((c) => [c.comparable, c.repeats]),
      mj.outcomes.map((o) => [o.comparable ? 1 : 0, 1]),
    );
    // the clean relay loses nothing, so its viewers send no NACK; the lossy one makes them NACK
    const nacks = (server: string) =>
      mj.outcomes.filter((o) => o.server === server).map((o) => o.value?.value);
    assert.deepEqual(nacks("clean"), [0, 0]);
    assert.ok(
      nacks("lossy").every((n) => (n ?? 0) > 0),
      `lossy NACKs ${nacks("lossy").join(", ")}`,
    );
    assert.ok(existsSync(join(out, "lossy", "server.log")));

    // resume: one cell's run is missing, the others are kept as they are
    rmSync(join(out, "lossy/3-viewers"), { recursive: true });
    const kept = cells.slice(0, 3).map((c) => [c, statSync(c).mtimeMs, readFileSync(c, "utf8")] as const);
    const second = await cli(["matrix", matrixFile, "--out", out], { timeoutMs: 120_000 });
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stderr, /matrix: clean: 2 cell run\(s\) already done, skipped/);
    assert.match(second.stderr, /matrix: lossy: 1 cell run\(s\) already done, skipped/);
    assert.match(second.stderr, /matrix: lossy × 3 viewers, repeat 1/);
    assert.doesNotMatch(second.stderr, /matrix: clean × /);
    for (const [c, mtime, text] of kept) {
      assert.equal(statSync(c).mtimeMs, mtime, `${c} untouched`);
      assert.equal(readFileSync(c, "utf8"), text);
    }
    assert.ok(existsSync(cells[3] as string));
    assert.match(readFileSync(join(out, "matrix.md"), "utf8"), row("lossy"));
  });

  test("a server that does not start: its cells are DNF with the reason, exit 3, nothing kept for a resume", async () => {
    const file = join(tmp.dir, "dead.json");
    writeFileSync(
      file,
      JSON.stringify({
        healthTimeoutSeconds: 5,
        servers: [{ name: "dead", whep: "http://127.0.0.1:1/x/whep", start: "echo starting; exit 7" }],
        scenarios: [{ name: "s", scenario: scenario(1) }],
      }),
    );
    const out = join(tmp.dir, "dead-out");
    const r = await cli(["matrix", file, "--out", out], { timeoutMs: 30_000 });
    assert.equal(r.code, 3, r.stderr);
    assert.match(
      readFileSync(join(out, "matrix.md"), "utf8"),
      /\| dead \| DNF: server dead did not start: the start command exited with 7 before the server was healthy \(commands run in the matrix file's directory\); its output ended: starting \|/,
    );
    assert.equal(readFileSync(join(out, "dead", "server.log"), "utf8"), "starting\n");
    assert.equal(existsSync(join(out, "dead", "s", "r1", "cell.json")), false);
  });

  test("a bad matrix is exit 2 naming the key", async () => {
    const bad = join(tmp.dir, "bad.json");
    writeFileSync(
      bad,
      JSON.stringify({ servers: [{ name: "a", whep: "http://127.0.0.1:1/x" }], scenarios: [{ name: "s" }] }),
    );
    const r = await cli(["matrix", bad, "--out", join(tmp.dir, "bad-out")]);
    assert.equal(r.code, 2);
    assert.equal(
      r.stderr,
      "whipbench matrix: matrix: scenarios[0]: give exactly one of scenario (an object) or file\n",
    );
    const badScenario = join(tmp.dir, "bad2.json");
    writeFileSync(
      badScenario,
      JSON.stringify({
        servers: [{ name: "a", whep: "http://127.0.0.1:1/x" }],
        scenarios: [{ name: "s", scenario: { viewers: 1, holdSeconds: 1, thresholds: { loss: "< 1" } } }],
      }),
    );
    const r2 = await cli(["matrix", badScenario, "--out", join(tmp.dir, "bad-out")]);
    assert.equal(r2.code, 2);
    assert.match(
      r2.stderr,
      /^whipbench matrix: matrix: scenarios\[0\] \(s\) with server a: scenario: thresholds\["loss"\]: condition "< 1" needs a percentage/,
    );
  });
});
