// `whipbench relay --capacity 3` as a child process and two `whipbench run`s against it: five
// viewers push it over capacity, so every viewer loses 1 packet in 20 that no NACK repairs; the
// three-viewer run after it starts from the count its predecessor's DELETEs left (zero) and
// loses nothing.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { cli, freePort, readReportPair, startCli, tempDir } from "./cli-harness.ts";

const tmp = tempDir("relay-capacity");
after(() => tmp.remove());

interface ViewerFigures {
  joined: boolean;
  nacksSent: number;
  rtp: { lost: number; received: number; lossPercent: number };
}

async function runViewers(port: number, viewers: number): Promise<ViewerFigures[]> {
  const file = join(tmp.dir, `run-${viewers}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      name: `capacity ${viewers}`,
      whip: `http://127.0.0.1:${port}/cap/whip`,
      whep: `http://127.0.0.1:${port}/cap/whep`,
      viewers,
      rampSeconds: 0.2,
      holdSeconds: 5,
      warmupSeconds: 0.5,
      joinTimeoutSeconds: 5,
      excludeFirstSeconds: 0.5,
      loopbackOnly: true,
    }),
  );
  const out = join(tmp.dir, `out-${viewers}`);
  const r = await cli(["run", file, "--out", out, "--quiet"], { timeoutMs: 40_000 });
  assert.equal(r.code, 0, `run of ${viewers}: exit ${r.code}\n${r.stderr}`);
  const vs = (readReportPair(out).report as { viewers?: ViewerFigures[] }).viewers ?? [];
  assert.equal(vs.length, viewers);
  for (const v of vs) assert.ok(v.joined);
  return vs;
}

test("relay --capacity 3: 5 viewers lose 1 packet in 20 unrepaired, then 3 viewers lose none", async (t) => {
  const port = await freePort();
  const relay = startCli(["relay", "--listen", `127.0.0.1:${port}`, "--capacity", "3"]);
  try {
    await relay.waitForStderr("relay listening on");
    const over = await runViewers(port, 5);
    t.diagnostic(`5 viewers: loss ${over.map((v) => `${v.rtp.lossPercent.toFixed(2)} %`).join(", ")}`);
    t.diagnostic(
      `5 viewers: lost ${over.map((v) => v.rtp.lost).join(", ")}, NACKs ${over.map((v) => v.nacksSent).join(", ")}`,
    );
    for (const v of over) {
      const loss = v.rtp.lossPercent;
      assert.ok(loss >= 4 && loss <= 6, `5 viewers over capacity 3: loss ${loss} %, want about 5 %`);
      assert.ok(v.nacksSent > 0, "the viewer asked for the lost packets ...");
      assert.ok(v.rtp.lost > 0, "... and none came back: they stay lost");
    }
    const within = await runViewers(port, 3);
    for (const v of within) {
      assert.equal(v.rtp.lost, 0, "3 viewers at capacity 3 after the 5 left: nothing dropped");
      assert.equal(v.rtp.lossPercent, 0);
    }
  } finally {
    relay.child.kill("SIGTERM");
    await relay.done;
  }
});

test("relay --capacity takes a positive integer: anything else exits 2 naming the flag", async () => {
  for (const bad of ["0", "-3", "2.5", "many"]) {
    const r = await cli(["relay", "--listen", "127.0.0.1:1", "--capacity", bad]);
    assert.equal(r.code, 2, `--capacity ${bad}: exit ${r.code}`);
    assert.match(r.stderr, /^whipbench relay: --capacity: want an integer/);
  }
});
