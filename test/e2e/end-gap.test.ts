// A viewer's end gap (docs/definitions.md#freezes-and-pauses) is measured up to its end: packets
// that arrive while its WHEP DELETE is answered and its peer closes are not its own any more
// (src/workers/receive/stages.ts PipelineStage.stop). Here every DELETE is held 400 ms by a proxy
// in front of the built-in relay, so media keeps flowing for 12 frames after each viewer's end: a
// frame shown then would lie after the end and clamp the end gap to 0 for every viewer.
import assert from "node:assert/strict";
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { buildReport } from "../../src/core/report/build.ts";
import { normaliseScenario, validateScenario } from "../../src/core/scenario-file/scenario.ts";
import { memoryLogger } from "../../src/main/observe/log.ts";
import { Relay } from "../../src/main/relay/relay.ts";
import { inThreadEngine } from "../../src/main/run/engine.ts";
import { run } from "../../src/main/run/runner.ts";
import { BEARER_SECRET, shortScenario } from "./harness.ts";

const HOLD_DELETE_MS = 400;

/** An HTTP proxy to `target` that answers every DELETE HOLD_DELETE_MS late. */
async function slowDeletes(target: string): Promise<{ base: string; close(): Promise<void> }> {
  const to = new URL(target);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const forward = () => {
        const out = request(
          { host: to.hostname, port: to.port, path: req.url, method: req.method, headers: req.headers },
          (r) => {
            res.writeHead(r.statusCode ?? 502, r.headers);
            r.pipe(res);
          },
        );
        out.on("error", () => res.destroy());
        out.end(Buffer.concat(chunks));
      };
      if (req.method === "DELETE") setTimeout(forward, HOLD_DELETE_MS);
      else forward();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    base: `http://127.0.0.1:${port}`,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

test("frames shown while a viewer's DELETE is answered do not count: its end gap is not clamped to 0", async () => {
  const relay = new Relay({ ice: { loopbackOnly: true, includeLoopback: false }, token: BEARER_SECRET });
  const proxy = await slowDeletes(await relay.listen());
  try {
    const s = normaliseScenario(shortScenario(proxy.base, { viewers: 3, holdSeconds: 3 }));
    validateScenario(s);
    const input = await run({
      command: "run",
      scenario: s,
      bearer: BEARER_SECRET,
      engine: inThreadEngine(),
      log: memoryLogger(),
      interrupt: new AbortController().signal,
    });
    const report = buildReport(input);
    const joined = (report.viewers ?? []).filter((v) => v.joined);
    assert.equal(joined.length, 3, "every viewer joined");
    const gaps = joined.map((v) => v.render.endGapMs ?? -1);
    console.log(`end gaps (ms): ${gaps.join(", ")}`);
    for (const g of gaps) {
      // a frame every 33 ms up to the end: the last one shown lies within a few frames of it
      assert.ok(g >= 0 && g < HOLD_DELETE_MS, `end gap ${g} ms: measured to the viewer's end, not past it`);
    }
    // each is 0 only when its last frame completed within the end's millisecond (about 1 in 33)
    assert.ok(
      gaps.some((g) => g > 0),
      `end gaps ${gaps.join(", ")}: frames shown after the end clamped them all to 0`,
    );
  } finally {
    await proxy.close();
    await relay.close();
  }
});
