// A split run across two network namespaces of the test's own (a veth pair; private addresses
// that exist only inside this test): the built-in relay and the publisher (its wall clock 250 ms
// ahead) in one, `whipbench view` with --clock-peer and --send-log-peer in the other. The
// report's fingerprint and stamp blocks must be comparable with an uncertainty ≤ 1 ms. Skips,
// saying why, where namespaces cannot be made.
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Report } from "../../src/core/report/types.ts";
import { jsonStrings } from "./cli-harness.ts";
import { wallOffsetEnv } from "./faults/wall-offset.ts";
import { assertComparableUnlessClientBound } from "./harness.ts";
import { cleanUp, deleteNamespaces, ip, inNamespace as spawnIn, waitFor } from "./netns/namespaces.ts";

const A = "wbspA";
const B = "wbspB";
const ADDR_A = "10.213.8.1";
const ADDR_B = "10.213.8.2";

let skip: string | false = false;
const children: ChildProcess[] = [];

before(() => {
  deleteNamespaces([A, B]);
  try {
    ip("netns", "add", A);
    ip("netns", "add", B);
    // not named veth*: werift does not gather on interfaces with that prefix
    ip("link", "add", "wbsp0", "netns", A, "type", "veth", "peer", "name", "wbsp1", "netns", B);
    ip("-n", A, "addr", "add", `${ADDR_A}/30`, "dev", "wbsp0");
    ip("-n", B, "addr", "add", `${ADDR_B}/30`, "dev", "wbsp1");
    for (const [ns, dev] of [
      [A, "wbsp0"],
      [B, "wbsp1"],
    ] as const) {
      ip("-n", ns, "link", "set", dev, "up");
      ip("-n", ns, "link", "set", "lo", "up");
    }
  } catch (err) {
    skip = `network namespaces cannot be made here (${(err as Error).message.split("\n")[0]})`;
  }
});

after(() => cleanUp(children, [A, B]));

const inNamespace = (ns: string, args: string[], env: NodeJS.ProcessEnv = {}) =>
  spawnIn(children, ns, args, env);

test("split run across two namespaces: fingerprint and stamp comparable, uncertainty ≤ 1 ms", async (t) => {
  if (skip) {
    t.skip(skip);
    return;
  }
  const base = `http://${ADDR_A}:18890`;
  const relay = inNamespace(A, ["relay", "--listen", `${ADDR_A}:18890`]);
  await waitFor(relay.err, "relay listening", 10_000);
  const pub = inNamespace(
    A,
    [
      "publish",
      "--whip",
      `${base}/s/whip`,
      "--clock-listen",
      `${ADDR_A}:17450`,
      "--send-log-listen",
      `${ADDR_A}:17451`,
    ],
    wallOffsetEnv(250),
  );
  await waitFor(pub.err, "connected in", 15_000);
  const out = mkdtempSync(join(tmpdir(), "wb-netns-split-"));
  try {
    const view = inNamespace(B, [
      "view",
      "--whep",
      `${base}/s/whep`,
      "-n",
      "3",
      "--ramp",
      "1s",
      "--duration",
      "7s", // a view samples after its default 5 s window (excludeFirstSeconds has no view flag)
      "--join-timeout",
      "5s",
      "--clock-peer",
      `${ADDR_A}:17450`,
      "--send-log-peer",
      `${ADDR_A}:17451`,
      "--out",
      out,
      "--quiet",
      "--no-html",
    ]);
    const [code] = (await once(view.child, "exit")) as [number | null];
    assert.equal(code, 0, view.err());
    const file = readdirSync(out).find((f) => f.endsWith(".json"));
    assert.ok(file, "a JSON report was written");
    const r = JSON.parse(readFileSync(join(out, file), "utf8")) as Report;
    assert.equal(r.topology, "split");
    assert.equal(r.clock.method, "exchange");
    const u = r.clock.uncertaintyMs ?? Number.NaN;
    assert.ok(u > 0 && u <= 1, `uncertainty ${u} ms`);
    assert.ok(Math.abs((r.clock.offsetMs ?? 0) - 250) <= u + 0.01, `offset ${r.clock.offsetMs} ms`);
    const [fp, stamp] = r.aggregate.oneWayDelay;
    assert.equal(fp?.available, true, fp?.reason);
    assertComparableUnlessClientBound(r, fp, "fingerprint");
    assert.equal(stamp?.available, true, stamp?.reason);
    assertComparableUnlessClientBound(r, stamp, "stamp");
    assert.ok((fp?.ms?.p50 ?? 999) < 20, `fingerprint p50 ${fp?.ms?.p50} ms`);
    // the server's host is in the report (whepHost); the peers' addresses are not
    const strings = jsonStrings(r);
    for (const port of ["17450", "17451"])
      assert.ok(!strings.includes(`:${port}`), `peer port ${port} leaked`);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
